// The vendor-extension models in tests/conformance/extensions (the conformance format with its
// "Vendor extensions" keys, written by make_extension_models.py) on every device factory, and
// com.example.fibonacci under every one of the 65535 prefixes through the proxy (under ASan,
// where 65535 preparations through the proxy would take many minutes: every
// NNREMOTE_PREFIX_STRIDE-th prefix, the last, and every power of two, so each bit is set once).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>
#include <iostream>
#include <sstream>

#include "drivers/sim/extensions/fibonacci.h"
#include "hal/model_builder.h"
#include "conformance/cts_runner.h"
#include "tests/hal/device_factories.h"

namespace nnremote::conformance {
namespace {

constexpr const char* kDirectory = "tests/conformance/extensions";
constexpr size_t kModels = 65;  // fibonacci.json 60, transformer.json 5

#ifndef NNREMOTE_PREFIX_STRIDE
#define NNREMOTE_PREFIX_STRIDE 1
#endif

// The prefixes the sweep tries, in order.
std::vector<uint16_t> sweptPrefixes() {
  std::vector<uint16_t> prefixes;
  for (uint32_t prefix = 1; prefix <= 0xFFFF; ++prefix) {
    const bool powerOfTwo = (prefix & (prefix - 1)) == 0;
    if (prefix % NNREMOTE_PREFIX_STRIDE == 0 || prefix == 0xFFFF || powerOfTwo) {
      prefixes.push_back(static_cast<uint16_t>(prefix));
    }
  }
  return prefixes;
}

TEST(ExtensionConformanceTest, EveryExtensionModelPassesEverywhere) {
  for (const auto& factory : testing::allDeviceFactories()) {
    const testing::DeviceUnderTest dut = factory.create();
    std::ostringstream log;
    size_t refused = 0;
    auto totals = runDirectory(*dut.device, kDirectory, log, nullptr, [&](const CtsTestCase& testCase, const CaseResult& r) {
      if (testCase.expectFailure && r.outcome == Outcome::PASSED) ++refused;
    });
    ASSERT_TRUE(totals.ok()) << totals.error().message;
    std::cout << factory.name << ": " << totals->passed << " passed (" << refused << " invalid models refused), "
              << totals->failed << " failed, " << totals->unsupported << " unsupported\n";
    EXPECT_EQ(totals->passed, kModels) << factory.name << ":\n" << log.str();
    EXPECT_EQ(totals->failed, 0u) << log.str();
    EXPECT_EQ(totals->unsupported, 0u) << log.str();
    EXPECT_EQ(refused, 17u);  // fibonacci.json 16, transformer.json 1
  }
}

TEST(ExtensionConformanceTest, TheProxyReportsTheSameExtensionsAsTheDevice) {
  const auto factories = testing::allDeviceFactories();
  const auto inProcess = factories[0].create(), throughProxy = factories[1].create();
  EXPECT_EQ(inProcess.device->getSupportedExtensions(), throughProxy.device->getSupportedExtensions());
  EXPECT_EQ(throughProxy.device->getSupportedExtensions().size(), 2u);
}

// n = 12 as EXAMPLE_INT64 -> EXAMPLE_TENSOR_QUANT64_ASYMM (scale 1, zero point 0) under `prefix`.
hal::Model fibonacciUnder(uint16_t prefix) {
  auto code = [prefix](uint16_t within) { return static_cast<int32_t>((uint32_t{prefix} << 16) | within); };
  hal::ModelBuilder b;
  const uint32_t n = b.addInput(static_cast<hal::OperandType>(code(sim::fibonacci::EXAMPLE_INT64)), {});
  const uint32_t out = b.addOutput(static_cast<hal::OperandType>(code(sim::fibonacci::EXAMPLE_TENSOR_QUANT64_ASYMM)), {12});
  const sim::fibonacci::ExampleQuant64AsymmParams params{1.0, 0};
  hal::Operand::ExtensionParams bytes(sizeof(params));
  std::memcpy(bytes.data(), &params, sizeof(params));
  b.model().main.operands[out].extraParams = bytes;
  b.addOperation(static_cast<hal::OperationType>(code(sim::fibonacci::EXAMPLE_FIBONACCI)), {n}, {out});
  hal::Model model = b.build();
  model.extensionNameToPrefix = {{sim::fibonacci::kExtensionName, prefix}};
  return model;
}

TEST(ExtensionConformanceTest, EveryPrefixWorksThroughTheProxy) {
  ASSERT_EQ(testing::allDeviceFactories()[1].name, "ThroughProxy");
  const testing::DeviceUnderTest dut = testing::allDeviceFactories()[1].create();
  // Four clients of one connection share the prefixes.
  const std::vector<uint16_t> prefixes = sweptPrefixes();
  constexpr uint32_t kThreads = 4;
  std::atomic<uint32_t> passed{0};
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto io = hal::makeRequest({hal::toBytes<int64_t>({12})}, {12 * 8});
      for (size_t i = t; i < prefixes.size() && failures[t].empty(); i += kThreads) {
        const uint16_t prefix = prefixes[i];
        auto prepared = dut.device->prepareModel(fibonacciUnder(prefix),
                                                 hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                                                 std::nullopt, {}, {}, {});
        if (!prepared.ok()) {
          failures[t] = "prefix " + std::to_string(prefix) + ": " + prepared.error().message;
          break;
        }
        std::memset(io->outputs[0]->data(), 0, 12 * 8);
        auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
        if (!outcome.ok() || hal::fromMemory<uint64_t>(io->outputs[0], 12)[11] != 144u) {
          failures[t] = "prefix " + std::to_string(prefix) + ": " +
                        (outcome.ok() ? "wrong result" : outcome.error().message);
          break;
        }
        ++passed;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& failure : failures) EXPECT_EQ(failure, "");
  EXPECT_EQ(passed.load(), prefixes.size());
  EXPECT_GE(prefixes.size(), 65535u / NNREMOTE_PREFIX_STRIDE);
}

}  // namespace
}  // namespace nnremote::conformance
