// The conformance models on every device factory: in process and through the proxy.
// Every model built from implemented operations must pass, nothing may fail, and both paths
// must give identical per-model outcomes. Every executor and pool memory runs the V1_0 and V1_3
// sets (V1_3 has control flow, dynamic and zero-sized shapes): in CI each on a part of them
// (matrixShards), in conformance_full_test on all.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "conformance/cts_loader.h"
#include "conformance/cts_runner.h"
#include "tests/hal/device_factories.h"

namespace nnremote::conformance {
namespace {

using Outcomes = std::map<std::string, Outcome>;

Outcomes runFolder(const std::string& folder, const testing::DeviceFactory& factory, Totals* totals,
                   std::string* log, const RunOptions& options = {}) {
  const testing::DeviceUnderTest dut = factory.create();
  Outcomes outcomes;
  std::ostringstream failures;
  auto result = runDirectory(*dut.device, defaultConformanceDirectory() + folder, failures,
                             nullptr, [&](const CtsTestCase& testCase, const CaseResult& r) {
                               outcomes[testCase.fullName()] = r.outcome;
                             },
                             options);
  EXPECT_TRUE(result.ok()) << result.error().message;
  if (result.ok()) *totals = *result;
  *log = failures.str();
  return outcomes;
}

TEST(ConformanceTest, EveryVersionPassesEverywhereAndIdentically) {
  if (defaultConformanceDirectory().empty()) {
    GTEST_SKIP() << "../shared/conformance is absent; set NNREMOTE_CONFORMANCE_DIR to run it";
  }
  std::map<std::string, Outcomes> byFactory;
  auto factories = testing::allDeviceFactories();
  factories.push_back(testing::throughSecureProxyFactory());  // mutual TLS and a token on TCP
  for (const auto& factory : factories) {
    Totals totals;
    std::string log;
    byFactory[factory.name] = runFolder("", factory, &totals, &log);
    std::cout << "All versions, " << factory.name << ": " << totals.passed << " passed, " << totals.failed
              << " failed, " << totals.unsupported << " unsupported\n";
    EXPECT_EQ(totals.failed, 0u) << factory.name << ":\n" << log;
    // Every model is supported; a kernel that regresses to "unsupported" shows up here.
    EXPECT_EQ(totals.unsupported, 0u) << factory.name << ":\n" << log;
    EXPECT_GE(totals.passed, 9374u) << factory.name;
  }
  EXPECT_EQ(byFactory["InProcess"], byFactory["ThroughProxy"]);
  EXPECT_EQ(byFactory["InProcess"], byFactory["ThroughSecureProxy"]);
}

// How many parts of the models each executor and pool memory runs: the CI target
// (conformance_test) gives each combination a different fifth of V1_0 and V1_3, in turn, so
// every model meets several of them; conformance_full_test (manual) runs every combination on
// every model.
size_t matrixShards() {
  const char* shards = std::getenv("NNREMOTE_MATRIX_SHARDS");
  return shards != nullptr && std::atoi(shards) > 1 ? static_cast<size_t>(std::atoi(shards)) : 1;
}

TEST(ConformanceTest, EveryExecutorAndPoolMemoryAgreesWithSync) {
  if (defaultConformanceDirectory().empty()) {
    GTEST_SKIP() << "../shared/conformance is absent; set NNREMOTE_CONFORMANCE_DIR to run it";
  }
  testing::DeviceFactory proxy;
  for (const auto& factory : testing::allDeviceFactories()) {
    if (factory.name == "ThroughProxy") proxy = factory;
  }
  const size_t shards = matrixShards();
  size_t combination = 0;
  for (const char* folder : {"/V1_0", "/V1_3"}) {
    Totals reference;
    std::string log;
    const Outcomes sync = runFolder(folder, proxy, &reference, &log);
    for (const char* executor : {"sync", "async", "reusable", "burst", "fenced"}) {
      for (const char* memory : {"bytes", "shm", "device"}) {
        if (std::string(executor) == "sync" && std::string(memory) == "bytes") continue;  // the reference
        RunOptions options{*executorFromName(executor), *poolMemoryFromName(memory)};
        options.shardCount = shards;
        options.shardIndex = combination++ % shards;
        Totals totals;
        const Outcomes outcomes = runFolder(folder, proxy, &totals, &log, options);
        EXPECT_EQ(totals.failed, 0u) << log;
        // The reference's outcomes of the same models.
        Outcomes expected;
        for (const auto& [name, outcome] : outcomes) {
          if (const auto it = sync.find(name); it != sync.end()) expected[name] = it->second;
        }
        EXPECT_EQ(outcomes, expected) << folder << ", executor " << executor << ", memory " << memory;
        EXPECT_GE((outcomes.size() + 1) * shards, sync.size()) << "the part run is not a " << shards << "th of the models";
        std::cout << folder << " through the proxy, executor " << executor << ", memory " << memory
                  << (shards > 1 ? ", part " + std::to_string(options.shardIndex + 1) + " of " + std::to_string(shards)
                                 : std::string())
                  << ": " << totals.passed << " passed, " << totals.failed << " failed, " << totals.unsupported
                  << " unsupported\n";
      }
    }
  }
}

// `nnremote conform --cache-dir`: every model prepared saving a compilation cache and again from
// it, both executed and checked, in process and through the proxy (where the cache files stay
// in this process and only their bytes travel).
TEST(ConformanceTest, EveryModelPassesPreparedFromItsCompilationCache) {
  if (defaultConformanceDirectory().empty()) {
    GTEST_SKIP() << "../shared/conformance is absent; set NNREMOTE_CONFORMANCE_DIR to run it";
  }
  const char* tmp = std::getenv("TEST_TMPDIR");
  for (const auto& factory : testing::allDeviceFactories()) {
    RunOptions options;
    options.cacheDirectory = std::string(tmp != nullptr ? tmp : "/tmp") + "/conformance-cache-" + factory.name;
    std::filesystem::create_directories(options.cacheDirectory);
    Totals totals;
    std::string log;
    runFolder("", factory, &totals, &log, options);
    std::cout << "All versions with a compilation cache, " << factory.name << ": " << totals.passed << " passed, "
              << totals.failed << " failed, " << totals.unsupported << " unsupported\n";
    EXPECT_EQ(totals.failed, 0u) << factory.name << ":\n" << log;
    EXPECT_GE(totals.passed, 9374u) << factory.name;
  }
}

// The simulator served from its backend library by a real npu_emulator (--backend), and through
// two emulators (--config=remote:ADDR): every model gives the in-process outcome.
// (Its own target, served_paths_conformance_test, so it runs beside the tests above.)
TEST(ServedPathsConformanceTest, BackendLibraryAndTwoHopsGiveTheInProcessOutcomes) {
  if (defaultConformanceDirectory().empty()) {
    GTEST_SKIP() << "../shared/conformance is absent; set NNREMOTE_CONFORMANCE_DIR to run it";
  }
  Totals inProcessTotals;
  std::string log;
  const Outcomes inProcess = runFolder("", testing::allDeviceFactories().front(), &inProcessTotals, &log);
  ASSERT_EQ(inProcessTotals.failed, 0u) << log;
  for (const auto& factory : {testing::throughBackendLibraryFactory(), testing::throughTwoHopsFactory()}) {
    Totals totals;
    const Outcomes outcomes = runFolder("", factory, &totals, &log);
    std::cout << "All versions, " << factory.name << ": " << totals.passed << " passed, " << totals.failed
              << " failed, " << totals.unsupported << " unsupported\n";
    EXPECT_EQ(totals.failed, 0u) << factory.name << ":\n" << log;
    EXPECT_GE(totals.passed, 9374u) << factory.name;
    EXPECT_EQ(outcomes, inProcess) << factory.name;
  }
}

}  // namespace
}  // namespace nnremote::conformance
