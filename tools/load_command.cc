// nnremote load: many clients at one emulator, in the spirit of Triton's perf_analyzer. Each
// client is a session of its own that prepares the model at the given priority and executes it
// in a loop for --seconds (tools/load_clients.h); idle sessions are opened first and held. The
// summary is one line for the priority class that ran, with client wall-clock latencies.
#include "tools/load_command.h"

#include <algorithm>
#include <chrono>
#include <iostream>

#include "hal/operand_types.h"
#include "tools/command_support.h"
#include "tools/connection_flags.h"
#include "tools/load_clients.h"
#include "tools/nnremote_flags.h"
#include "tools/target.h"

namespace nnremote::tools {
namespace {

int fail(const hal::Error& error) { return tools::fail("load", error); }

}  // namespace

int runLoad() {
  LoadOptions options;
  const std::string modelName = absl::GetFlag(FLAGS_model).empty() ? "sample" : absl::GetFlag(FLAGS_model);
  auto model = builtInModel(modelName);
  if (!model.ok()) return fail(model.error());
  options.model = std::move(model).value();
  options.priority = absl::GetFlag(FLAGS_priority);
  options.deadline = deadlineFromFlags();
  const std::string executor = absl::GetFlag(FLAGS_executor);
  if (executor != "sync" && executor != "burst") {
    return fail(hal::invalidArgument() << "--executor must be sync or burst, not '" << executor << "'");
  }
  options.burst = executor == "burst";
  const int64_t clients = absl::GetFlag(FLAGS_clients).value;
  const int64_t seconds = absl::GetFlag(FLAGS_seconds).value;
  const int64_t idle = absl::GetFlag(FLAGS_idle_sessions).value;
  options.runFor = std::chrono::seconds(seconds);

  auto target = openTarget();
  if (!target.ok()) return fail(target.error());
  auto device = target->device(absl::GetFlag(FLAGS_device));
  if (!device.ok()) return fail(device.error());
  options.deviceName = (*device)->getName();
  options.address = target->address;
  options.connection = target->options;

  // Idle sessions first: connected, holding a session each, doing nothing.
  std::vector<std::shared_ptr<proxy::Connection>> idleSessions;
  for (int64_t i = 0; i < idle; ++i) {
    auto connection = proxy::Connection::connect(options.address, options.connection);
    if (!connection.ok()) return fail(hal::withContext(connection.error(), "idle session " + std::to_string(i)));
    idleSessions.push_back(*connection);
  }
  std::cout << "nnremote load: " << clients << " " << hal::priorityName(options.priority)
            << "-priority client" << (clients == 1 ? "" : "s") << " running " << modelName << " (" << executor
            << ") on " << options.deviceName << " at " << target->description << " for " << seconds << " s, " << idle
            << " idle session" << (idle == 1 ? "" : "s") << std::endl;

  const auto start = std::chrono::steady_clock::now();
  const ClientTally total = runLoadClients(options, clients, start);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  uint64_t errors = 0;
  for (const auto& [status, count] : total.errors) errors += count;
  if (errors > 0) {
    std::cout << "errors:";
    for (const auto& [status, count] : total.errors) std::cout << " " << status << "=" << count;
    std::cout << "\n";
  }
  std::vector<int64_t> latenciesUs;
  for (const ExecutionSample& sample : total.samples) latenciesUs.push_back(sample.latencyUs);
  std::sort(latenciesUs.begin(), latenciesUs.end());
  std::cout << "priority=" << hal::priorityName(options.priority) << " clients=" << clients
            << " executions=" << total.executions << " errors=" << errors
            << " p50_us=" << percentile(latenciesUs, 0.50) << " p99_us=" << percentile(latenciesUs, 0.99)
            << " throughput_per_s=" << static_cast<int64_t>(static_cast<double>(latenciesUs.size()) / elapsed)
            << " reconnects=" << total.reconnects << std::endl;
  return 0;
}

}  // namespace nnremote::tools
