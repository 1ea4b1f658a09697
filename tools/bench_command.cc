// nnremote bench: runs clients like `nnremote load`, with timing on every execution, and writes a
// report people would rather look at than read (tools/bench_report.h).
#include "tools/bench_command.h"

#include <iostream>

#include "tools/bench_report.h"
#include "hal/operand_types.h"
#include "tools/command_support.h"
#include "tools/load_clients.h"
#include "tools/nnremote_flags.h"
#include "tools/output_file.h"
#include "tools/target.h"

namespace nnremote::tools {
int runBench() {
  const std::string htmlPath = absl::GetFlag(FLAGS_html), jsonPath = absl::GetFlag(FLAGS_json);
  if (htmlPath.empty()) return fail("bench", hal::invalidArgument() << "--html=FILE is required (the report)");
  auto html = OutputFile::open("html", htmlPath);
  if (!html.ok()) return fail("bench", html.error());
  auto json = OutputFile::open("json", jsonPath);
  if (!json.ok()) return fail("bench", json.error());
  LoadOptions options;
  BenchRun run;
  run.model = absl::GetFlag(FLAGS_model).empty() ? "sample" : absl::GetFlag(FLAGS_model);
  auto model = builtInModel(run.model);
  if (!model.ok()) return fail("bench", model.error());
  options.model = std::move(model).value();
  options.priority = absl::GetFlag(FLAGS_priority);
  run.executor = absl::GetFlag(FLAGS_executor);
  if (run.executor != "sync" && run.executor != "burst") {
    return fail("bench", hal::invalidArgument() << "--executor must be sync or burst, not '" << run.executor << "'");
  }
  options.burst = run.executor == "burst";
  options.measureTiming = true;
  run.clients = absl::GetFlag(FLAGS_clients).value;
  options.runFor = std::chrono::seconds(absl::GetFlag(FLAGS_seconds).value);

  auto target = openTarget();
  if (!target.ok()) return fail("bench", target.error());
  auto device = target->device(absl::GetFlag(FLAGS_device));
  if (!device.ok()) return fail("bench", device.error());
  options.deviceName = (*device)->getName();
  options.address = target->address;
  options.connection = target->options;
  run.device = options.deviceName;
  run.target = target->description;
  run.priority = hal::priorityName(options.priority);
  std::cout << "nnremote bench: " << run.clients << " client" << (run.clients == 1 ? "" : "s") << " running "
            << run.model << " (" << run.executor << ") on " << run.device << " at " << run.target << " for "
            << absl::GetFlag(FLAGS_seconds).value << " s" << std::endl;

  const auto start = std::chrono::steady_clock::now();
  run.tally = runLoadClients(options, run.clients, start);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (auto written = html->write(benchReportHtml(run)); !written.ok()) return fail("bench", written.error());
  if (json->wanted()) {
    if (auto written = json->write(benchReportJson(run)); !written.ok()) return fail("bench", written.error());
  }
  std::vector<int64_t> latencies;
  for (const auto& sample : run.tally.samples) latencies.push_back(sample.latencyUs);
  std::sort(latencies.begin(), latencies.end());
  uint64_t errors = 0;
  for (const auto& [status, count] : run.tally.errors) errors += count;
  std::cout << "executions=" << run.tally.samples.size() << " errors=" << errors
            << " p50_us=" << percentile(latencies, 0.5) << " p99_us=" << percentile(latencies, 0.99)
            << " throughput_per_s=" << static_cast<int64_t>(static_cast<double>(latencies.size()) / run.seconds)
            << "\nreport: " << htmlPath << (jsonPath.empty() ? "" : " and " + jsonPath) << std::endl;
  return errors == 0 ? 0 : 1;
}

}  // namespace nnremote::tools
