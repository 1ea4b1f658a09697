#include "tools/commands.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "drivers/sim/sim_device.h"
#include "emulator/simulated_npus.h"
#include "flags/command_line.h"
#include "hal/file_contents.h"
#include "hal/model_builder.h"
#include "hal/operand_types.h"
#include "hal/text_escape.h"
#include "conformance/cts_runner.h"
#include "farm/pool.h"
#include "tools/conform_shard.h"
#include "tools/connection_flags.h"
#include "tools/model_subject.h"
#include "tools/models/built_in.h"
#include "tools/nnremote_flags.h"
#include "tools/scalesim_compat.h"
#include "tools/trace_render.h"
#include "tools/sample_model.h"
#include "tools/target.h"

namespace nnremote::tools {

int fail(const std::string& command, const hal::Error& error) {
  std::cerr << "nnremote " << command << ": " << hal::toString(error.code) << ": " << error.message
            << "\n";
  return 1;
}

namespace {

std::string formatDuration(const hal::OptionalDuration& duration) {
  if (!duration.has_value()) return "not available";
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << duration->count() / 1000.0 << " us";
  return out.str();
}


void printDevices(const Target& target) {
  std::cout << "Devices at " << target.description << ":\n";
  for (const auto& device : target.devices) {
    std::cout << "  " << device->getName() << "\n"
              << "    type:          " << hal::toString(device->getType()) << "\n"
              << "    version:       " << device->getVersionString() << "\n"
              << "    feature level: " << hal::toString(device->getFeatureLevel()) << "\n";
    if (const auto& host = device->backendHost()) {
      std::cout << "    backend host:  "
                << (!host->unavailable().empty() ? "UNAVAILABLE: " + host->unavailable()
                                                 : host->running() ? "running (pid " + std::to_string(host->pid()) + ")"
                                                                   : "restarting")
                << ", " << host->restarts() << " restarts"
                << (host->last_exit().empty() ? "" : "; last " + host->last_exit()) << "\n";
    }
    std::cout << "    extensions:    ";
    if (device->getSupportedExtensions().empty()) std::cout << "none";
    for (const auto& extension : device->getSupportedExtensions()) {
      std::cout << "\n      " << extension.name;
      if (extension.operandTypes.empty()) std::cout << " (operations only)";
      for (const auto& type : extension.operandTypes) {
        std::cout << "\n        operand type " << type.type << ": " << (type.isTensor ? "tensor" : "scalar") << ", "
                  << type.byteSize << " bytes per element";
      }
    }
    const auto [modelFiles, dataFiles] = device->getNumberOfCacheFilesNeeded();
    std::cout << "\n    cache files:   " << modelFiles << " model, " << dataFiles << " data\n";
  }
}

}  // namespace

int runDevices() {
  auto target = openTarget();
  if (!target.ok()) return fail("devices", target.error());
  printDevices(*target);
  return 0;
}

int runSample() {
  const hal::Priority priority = absl::GetFlag(FLAGS_priority);
  const hal::OptionalDuration deadline = deadlineFromFlags();
  auto target = openTarget();
  if (!target.ok()) return fail("run-sample", target.error());
  printDevices(*target);

  const SampleModel sample = buildSampleModel();
  std::vector<std::shared_ptr<proxy::ProxyDevice>> devices = target->devices;
  if (const std::string name = absl::GetFlag(FLAGS_device); !name.empty()) {
    auto device = target->device(name);
    if (!device.ok()) return fail("run-sample", device.error());
    devices = {*device};
  }
  std::cout << "\nSample model: CONV_2D -> DEPTHWISE_CONV_2D -> AVERAGE_POOL_2D -> RESHAPE -> "
               "FULLY_CONNECTED -> SOFTMAX, input [1, 8, 8, 3] float32\n";
  for (const auto& device : devices) {
    std::cout << "\n" << device->getName() << ":\n";
    auto prepared = device->prepareModel(sample.model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, priority,
                                         std::nullopt, {}, {}, {});
    if (!prepared.ok()) return fail("run-sample", prepared.error());
    auto io = hal::makeRequest({hal::toBytes(sample.input)}, {4 * sizeof(float)});
    if (!io.ok()) return fail("run-sample", io.error());
    const auto start = std::chrono::steady_clock::now();
    hal::OptionalTimePoint executionDeadline;
    if (deadline) executionDeadline = start + *deadline;
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::YES, executionDeadline, std::nullopt);
    const auto roundTrip = std::chrono::steady_clock::now() - start;
    if (!outcome.ok()) return fail("run-sample", outcome.error());
    const auto output = hal::fromMemory<float>(io->outputs[0], 4);
    std::cout << "  output 0:       [";
    for (size_t i = 0; i < output.size(); ++i) {
      std::cout << (i ? ", " : "") << std::fixed << std::setprecision(6) << output[i];
    }
    std::cout << "]\n  output shape 0: " << hal::toString(outcome->outputShapes[0].dimensions)
              << (outcome->outputShapes[0].isSufficient ? "" : " (buffer too small)") << "\n"
              << "  timeOnDevice:   " << formatDuration(outcome->timing.timeOnDevice)
              << " (device time: simulated on nnremote NPUs, measured on backends such as Arm NN)\n"
              << "  timeInDriver:   " << formatDuration(outcome->timing.timeInDriver) << "\n"
              << "  round trip:     "
              << formatDuration(std::chrono::duration_cast<hal::Duration>(roundTrip))
              << " (client wall clock, through the proxy driver)\n";
  }
  return 0;
}

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
  if (flags::wasGiven(FLAGS_cache_dir)) {
    options.cacheDirectory = absl::GetFlag(FLAGS_cache_dir);
    if (options.cacheDirectory.empty()) return fail("conform", hal::invalidArgument() << "--cache-dir needs a DIR");
    if (device->getNumberOfCacheFilesNeeded() == std::make_pair(0u, 0u)) {
      return fail("conform", hal::invalidArgument() << device->getName() << " does not cache compilations "
                                                    << "(compilation_cache in its NPU config)");
    }
    std::error_code error;
    std::filesystem::create_directories(options.cacheDirectory, error);
    if (error) {
      return fail("conform", hal::invalidArgument() << "cannot create --cache-dir " << options.cacheDirectory << ": "
                                                    << error.message());
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
            << "\n";

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
  if (const std::string junitPath = absl::GetFlag(FLAGS_junit); !junitPath.empty()) {
    std::ofstream junit(junitPath);
    junit << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"nnremote-conform\" "
          << "tests=\"" << totals->passed + totals->failed + totals->unsupported << "\" failures=\""
          << totals->failed << "\" skipped=\"" << totals->unsupported << "\" time=\"" << seconds
          << "\">\n"
          << junitCases.str() << "</testsuite>\n";
    if (!junit) {
      return fail("conform", hal::invalidArgument() << "cannot write " << junitPath);
    }
  }
  std::cout << "Wall time " << std::fixed << std::setprecision(1) << seconds << " s\n"
            << totals->passed << " passed, " << totals->failed << " failed, " << totals->unsupported
            << " unsupported\n";
  return totals->failed == 0 ? 0 : 1;
}

int runCost() {
  const std::string configPath = absl::GetFlag(FLAGS_scalesim_config), topologyPath = absl::GetFlag(FLAGS_topology);
  if (configPath.empty() || topologyPath.empty()) {
    return fail("cost", hal::invalidArgument() << "--scalesim-config=FILE and --topology=FILE are required");
  }
  auto configText = hal::readFileContents(configPath);
  if (!configText.ok()) return fail("cost", configText.error());
  auto npu = parseScaleSimConfig(*configText, configPath);
  if (!npu.ok()) return fail("cost", npu.error());
  if (absl::GetFlag(FLAGS_count_cycles)) npu->set_scalesim_off_by_one(false);
  auto topologyText = hal::readFileContents(topologyPath);
  if (!topologyText.ok()) return fail("cost", topologyText.error());
  auto layers = parseScaleSimTopology(*topologyText, absl::GetFlag(FLAGS_gemm), topologyPath);
  if (!layers.ok()) return fail("cost", layers.error());
  const std::string report = computeReport(*layers, *npu);
  const std::string outputPath = absl::GetFlag(FLAGS_output);
  if (outputPath.empty()) {
    std::cout << report;
    return 0;
  }
  std::ofstream output(outputPath);
  output << report;
  if (!output) return fail("cost", hal::invalidArgument() << "cannot write " << outputPath);
  return 0;
}

int runTrace() {
  auto subject = modelSubjectFromFlags("mobilenet");
  if (!subject.ok()) return fail("trace", subject.error());
  const std::string config = absl::GetFlag(FLAGS_config);
  if (!config.empty() && !absl::GetFlag(FLAGS_target).empty()) {
    return fail("trace", hal::invalidArgument() << "--config picks the NPUs of the emulator nnremote starts itself; "
                                                << "with --target the server's own devices are used");
  }
  auto target = openTarget(config);
  if (!target.ok()) return fail("trace", target.error());
  auto device = target->device(absl::GetFlag(FLAGS_device));
  if (!device.ok()) return fail("trace", device.error());
  auto prepared = (*device)->prepareModel(subject->model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                          hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  if (!prepared.ok()) return fail("trace", prepared.error());
  auto io = hal::makeRequest(subject->inputs, subject->outputSizes);
  if (!io.ok()) return fail("trace", io.error());
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
  if (!outcome.ok()) return fail("trace", outcome.error());
  if (!outcome->profile) {
    return fail("trace", hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
                             << (*device)->getName() << " returned no execution profile");
  }
  const hal::ExecutionProfile& profile = *outcome->profile;

  // The stats: one line per operation, then the totals.
  std::printf("%-4s %-22s %-6s %12s %10s %8s %8s %8s %12s %12s\n", "op", "type", "unit", "cycles",
              "stall", "overhead", "util%", "map%", "DRAM bytes", "SRAM bytes");
  for (const auto& op : profile.operations) {
    std::printf("%-4u %-22s %-6s %12llu %10llu %8llu %8.1f %8.1f %12llu %12llu\n", op.operationIndex,
                hal::toString(op.type).c_str(), hal::toString(op.unit),
                static_cast<unsigned long long>(op.totalCycles),
                static_cast<unsigned long long>(op.stallCycles),
                static_cast<unsigned long long>(op.overheadCycles), op.overallUtilization,
                op.mappingEfficiency,
                static_cast<unsigned long long>(op.dramReadBytes + op.dramWriteBytes),
                static_cast<unsigned long long>(op.sramReadBytes + op.sramWriteBytes));
  }
  std::cout << "total: " << profile.totalCycles << " cycles, timeOnDevice "
            << formatDuration(outcome->timing.timeOnDevice) << ", timeInDriver "
            << formatDuration(outcome->timing.timeInDriver) << ", host simulation wall time "
            << std::fixed << std::setprecision(3) << profile.hostWallNanoseconds / 1e6 << " ms\n";
  if (profile.clockHz > 0) {
    // The whole model: its cycles at the NPU's clock, including any operations its host's CPU ran.
    std::cout << "simulated: " << std::setprecision(6) << double(profile.totalCycles) / profile.clockHz * 1e3
              << " ms\n";
    if (profile.hostCpuCycles > 0) {
      std::cout << "of which host CPU: " << double(profile.hostCpuCycles) / profile.clockHz * 1e3 << " ms\n";
    }
  }
  const std::string title = subject->name + " on " + (*device)->getName();
  for (const auto& [path, text] : {std::make_pair(absl::GetFlag(FLAGS_json), toChromeTraceJson(profile)),
                                   std::make_pair(absl::GetFlag(FLAGS_html), toHtmlTimeline(profile, title))}) {
    if (path.empty()) continue;
    std::ofstream file(path);
    file << text;
    if (!file) return fail("trace", hal::invalidArgument() << "cannot write " << path);
    std::cout << "wrote " << path << "\n";
  }
  return 0;
}

}  // namespace nnremote::tools
