#include "tools/trace_command.h"

#include <cstdio>
#include <iomanip>
#include <iostream>

#include "hal/model_builder.h"
#include "hal/operand_types.h"
#include "tools/command_support.h"
#include "tools/model_subject.h"
#include "tools/nnremote_flags.h"
#include "tools/output_file.h"
#include "tools/target.h"
#include "tools/trace_render.h"

namespace nnremote::tools {

int runTrace() {
  auto subject = modelSubjectFromFlags("mobilenet");
  if (!subject.ok()) return fail("trace", subject.error());
  auto json = OutputFile::open("json", absl::GetFlag(FLAGS_json));
  if (!json.ok()) return fail("trace", json.error());
  auto html = OutputFile::open("html", absl::GetFlag(FLAGS_html));
  if (!html.ok()) return fail("trace", html.error());
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
  if (json->wanted()) {
    auto written = json->write(toChromeTraceJson(profile));
    if (!written.ok()) return fail("trace", written.error());
    std::cout << "wrote " << json->path() << "\n";
  }
  if (html->wanted()) {
    auto written = html->write(toHtmlTimeline(profile, title));
    if (!written.ok()) return fail("trace", written.error());
    std::cout << "wrote " << html->path() << "\n";
  }
  return 0;
}

}  // namespace nnremote::tools
