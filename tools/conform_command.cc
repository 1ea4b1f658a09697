#include "tools/conform_command.h"

#include <chrono>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "conformance/cts_runner.h"
#include "drivers/sim/npu_config.h"
#include "emulator/simulated_npus.h"
#include "farm/pool.h"
#include "flags/command_line.h"
#include "hal/file_contents.h"
#include "hal/text_escape.h"
#include "tools/command_support.h"
#include "tools/conform_shard.h"
#include "tools/nnremote_flags.h"
#include "tools/output_file.h"
#include "tools/target.h"

namespace nnremote::tools {

int runConform() {
  conformance::RunOptions options;
  const std::string executorName = absl::GetFlag(FLAGS_executor), memoryName = absl::GetFlag(FLAGS_memory);
  auto executor = conformance::executorFromName(executorName);
  if (!executor.ok()) return fail("conform", executor.error());
  auto memory = conformance::poolMemoryFromName(memoryName);
  if (!memory.ok()) return fail("conform", memory.error());
  options.executor = *executor;
  options.memory = *memory;
  const std::string cases = absl::GetFlag(FLAGS_cases);
  if (cases.empty()) return fail("conform", hal::invalidArgument() << "--cases=DIR is required");
  const auto shard = shardFromFlagOrEnvironment(absl::GetFlag(FLAGS_shard));
  if (!shard.ok()) return fail("conform", shard.error());
  options.shardIndex = shard->index;
  options.shardCount = shard->count;
  auto junit = OutputFile::open("junit", absl::GetFlag(FLAGS_junit));
  if (!junit.ok()) return fail("conform", junit.error());

  // --in-process runs the simulator (behind its scheduler) directly, without the emulator and
  // proxy in between.
  std::optional<Target> target;
  hal::SharedDevice device;
  const bool inProcess = absl::GetFlag(FLAGS_in_process);
  if (inProcess) {
    const std::string wanted = absl::GetFlag(FLAGS_device);
    for (const auto& npu : sim::defaultNpuConfigs()) {
      if (wanted.empty() || sim::deviceName(npu) == wanted) {
        device = emulator::createSimulatedNpu(npu);
        break;
      }
    }
    if (device == nullptr) {
      return fail("conform", hal::invalidArgument() << "no simulated device named '" << wanted << "'");
    }
  } else {
    // Every model goes to the server, expect_failure ones included: it is the device (and the
    // server's checks) under test, not the proxy's.
    auto opened = openTarget("", {}, /*checkModelsOnClient=*/false);
    if (!opened.ok()) return fail("conform", opened.error());
    target = std::move(opened).value();
    auto chosen = target->device(absl::GetFlag(FLAGS_device));
    if (!chosen.ok()) return fail("conform", chosen.error());
    device = *chosen;
    // A farm's pool has other devices: a model whose device died runs again on another, and so do
    // the models after it (the shard re-leases). The dead emulator is avoided while its keys
    // have not expired yet.
    if (farm::isPoolTarget(absl::GetFlag(FLAGS_target))) {
      options.replaceLostDevice = [&, avoid = std::vector<std::string>()]() mutable -> hal::Result<hal::SharedDevice> {
        avoid.push_back(target->address);
        device.reset();
        target.reset();  // releases the dead device's hold
        NN_ASSIGN_OR_RETURN(Target replacement, openTarget("", avoid, /*checkModelsOnClient=*/false));
        target = std::move(replacement);
        NN_ASSIGN_OR_RETURN(device, target->device(absl::GetFlag(FLAGS_device)));
        std::cout << "Continuing on " << target->description << "\n";
        return device;
      };
    }
  }
  // A server that died and did not come back ends the run, rather than cost every model left a
  // reconnection's wait. (A farm's pool replaces the device instead, above.)
  if (target.has_value() && !farm::isPoolTarget(absl::GetFlag(FLAGS_target))) {
    options.deviceGone = [&target] { return !target->connection->session().ok(); };
  }
  if (flags::wasGiven(FLAGS_cache_dir)) {
    options.cacheDirectory = absl::GetFlag(FLAGS_cache_dir);
    if (options.cacheDirectory.empty()) return fail("conform", hal::invalidArgument() << "--cache-dir needs a DIR");
    if (device->getNumberOfCacheFilesNeeded() == std::make_pair(0u, 0u)) {
      return fail("conform", hal::invalidArgument() << device->getName() << " does not cache compilations "
                                                    << "(compilation_cache in its NPU config)");
    }
    if (auto writable = hal::makeWritableDirectory(options.cacheDirectory); !writable.ok()) {
      return fail("conform", hal::invalidArgument() << "--cache-dir=" << writable.error().message);
    }
  }
  std::cout << "Running conformance models under " << cases
            << (options.shardCount > 1 ? " (shard " + std::to_string(options.shardIndex) + " of " +
                                             std::to_string(options.shardCount) + ")"
                                       : std::string())
            << " on " << device->getName()
            << (inProcess ? " (in process)" : " (through the proxy driver)") << ", executor " << executorName
            << ", memory " << memoryName
            << (options.cacheDirectory.empty() ? "" : ", each prepared with a cache and again from it")
            << std::endl;

  std::ostringstream junitCases;
  const bool verbose = absl::GetFlag(FLAGS_verbose);
  auto onCase = [&](const conformance::CtsTestCase& testCase, const conformance::CaseResult& result) {
    junitCases << "  <testcase classname=\"" << hal::xmlEscape(testCase.file) << "\" name=\""
               << hal::xmlEscape(testCase.name) << "\">";
    if (result.outcome == conformance::Outcome::FAILED) {
      junitCases << "<failure message=\"" << hal::xmlEscape(result.message) << "\"/>";
    } else if (result.outcome == conformance::Outcome::UNSUPPORTED) {
      junitCases << "<skipped message=\"" << hal::xmlEscape(result.message) << "\"/>";
      if (verbose) std::cout << "UNSUPPORTED " << testCase.fullName() << ": " << result.message << "\n";
    }
    junitCases << "</testcase>\n";
  };
  std::map<std::string, conformance::Totals> perVersion;
  const auto start = std::chrono::steady_clock::now();
  auto totals = conformance::runDirectory(*device, cases, std::cout, &perVersion, onCase, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!totals.ok()) return fail("conform", totals.error());

  if (perVersion.size() > 1) {
    for (const auto& [version, counts] : perVersion) {
      std::cout << "  " << version << ": " << counts.passed << " passed, " << counts.failed
                << " failed, " << counts.unsupported << " unsupported\n";
    }
  }
  if (junit->wanted()) {
    std::ostringstream xml;
    xml << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"nnremote-conform\" "
        << "tests=\"" << totals->passed + totals->failed + totals->unsupported << "\" failures=\"" << totals->failed
        << "\" skipped=\"" << totals->unsupported << "\" time=\"" << seconds << "\">\n"
        << junitCases.str() << "</testsuite>\n";
    if (auto written = junit->write(xml.str()); !written.ok()) return fail("conform", written.error());
  }
  std::cout << "Wall time " << std::fixed << std::setprecision(1) << seconds << " s\n"
            << totals->passed << " passed, " << totals->failed << " failed, " << totals->unsupported
            << " unsupported\n";
  return totals->failed == 0 ? 0 : 1;
}

}  // namespace nnremote::tools
