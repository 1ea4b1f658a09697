// nnremote load: many clients at one emulator, in the spirit of Triton's perf_analyzer. Each
// client is a session of its own that prepares the model at the given priority and executes it
// in a loop for --seconds; idle sessions are opened first and held. The summary is one line
// for the priority class that ran, with client wall-clock latencies. Every result is compared
// with the client's first (the simulator is deterministic); a difference counts as WRONG_RESULT.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#include "hal/model_builder.h"
#include "tools/commands.h"
#include "tools/connection_flags.h"
#include "tools/models/built_in.h"
#include "tools/nnremote_flags.h"
#include "tools/target.h"

namespace nnremote::tools {
namespace {

struct LoadOptions {
  std::string address;  // where clients connect
  proxy::ConnectionOptions connection;  // and how
  std::string deviceName;
  BuiltModel model;
  hal::Priority priority = hal::Priority::MEDIUM;
  bool burst = false;
  hal::OptionalDuration deadline;
  std::chrono::steady_clock::duration runFor;
};

// What one client saw.
struct ClientTally {
  std::vector<int64_t> latenciesUs;  // successful executions
  std::map<std::string, uint64_t> errors;  // by status name
  uint64_t executions = 0;
  uint64_t reconnects = 0;  // sessions the client's connection replaced after losing the server
};

void countError(ClientTally* tally, const hal::Error& error) { ++tally->errors[hal::toString(error.code)]; }

// One client: its own session, preparation and loop. Setup failures count as errors too.
ClientTally runClient(const LoadOptions& options) {
  ClientTally tally;
  auto connection = proxy::Connection::connect(options.address, options.connection);
  if (!connection.ok()) return countError(&tally, connection.error()), tally;
  auto devices = proxy::ProxyDevice::discover(*connection);
  if (!devices.ok()) return countError(&tally, devices.error()), tally;
  std::shared_ptr<proxy::ProxyDevice> device = devices->front();
  for (const auto& candidate : *devices) {
    if (candidate->getName() == options.deviceName) device = candidate;
  }
  auto prepared = device->prepareModel(options.model.model, hal::ExecutionPreference::SUSTAINED_SPEED,
                                       options.priority, std::nullopt, {}, {}, {});
  if (!prepared.ok()) return countError(&tally, prepared.error()), tally;
  auto io = hal::makeRequest({options.model.input}, options.model.outputSizes);
  if (!io.ok()) return countError(&tally, io.error()), tally;
  hal::SharedBurst burst;
  if (options.burst) {
    auto opened = (*prepared)->configureExecutionBurst();
    if (!opened.ok()) return countError(&tally, opened.error()), tally;
    burst = *opened;
  }
  // The simulator is deterministic: every result must equal the first one, so a run that
  // survives a server restart is checked to compute the same thing after it.
  std::vector<uint8_t> firstResult;
  const hal::SharedMemory& output = io->outputs[0];
  const auto stopAt = std::chrono::steady_clock::now() + options.runFor;
  while (std::chrono::steady_clock::now() < stopAt) {
    const auto start = std::chrono::steady_clock::now();
    hal::OptionalTimePoint deadline;
    if (options.deadline) deadline = start + *options.deadline;
    auto outcome = burst ? burst->execute(io->request, hal::MeasureTiming::NO, deadline, std::nullopt)
                         : (*prepared)->execute(io->request, hal::MeasureTiming::NO, deadline, std::nullopt);
    ++tally.executions;
    if (!outcome.ok()) {
      countError(&tally, outcome.error());
      // A server that is gone would otherwise spin; with reconnecting on, the next call waits
      // for it to come back (ConnectionOptions.reconnectTimeout).
      if (outcome.error().code == hal::ErrorStatus::DEAD_OBJECT && !options.connection.reconnect) break;
      continue;
    }
    const auto latency = std::chrono::steady_clock::now() - start;
    if (firstResult.empty()) {
      firstResult.assign(output->data(), output->data() + output->size());
    } else if (!std::equal(firstResult.begin(), firstResult.end(), output->data())) {
      ++tally.errors["WRONG_RESULT"];
      continue;
    }
    std::fill(output->data(), output->data() + output->size(), uint8_t{0});
    tally.latenciesUs.push_back(std::chrono::duration_cast<std::chrono::microseconds>(latency).count());
  }
  tally.reconnects = (*connection)->reconnects();
  return tally;
}

int64_t percentile(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  const size_t index = std::min(sorted.size() - 1, static_cast<size_t>(p * static_cast<double>(sorted.size())));
  return sorted[index];
}

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
  std::cout << "nnremote load: " << clients << " " << flags::priorityName(options.priority)
            << "-priority clients running " << modelName << " (" << executor << ") on " << options.deviceName
            << " at " << target->description << " for " << seconds << " s, " << idle << " idle sessions" << std::endl;

  std::vector<ClientTally> tallies(static_cast<size_t>(clients));
  std::vector<std::thread> threads;
  const auto start = std::chrono::steady_clock::now();
  for (auto& tally : tallies) threads.emplace_back([&options, &tally] { tally = runClient(options); });
  for (auto& thread : threads) thread.join();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  ClientTally total;
  for (const auto& tally : tallies) {
    total.executions += tally.executions;
    total.reconnects += tally.reconnects;
    total.latenciesUs.insert(total.latenciesUs.end(), tally.latenciesUs.begin(), tally.latenciesUs.end());
    for (const auto& [status, count] : tally.errors) total.errors[status] += count;
  }
  uint64_t errors = 0;
  for (const auto& [status, count] : total.errors) errors += count;
  if (errors > 0) {
    std::cout << "errors:";
    for (const auto& [status, count] : total.errors) std::cout << " " << status << "=" << count;
    std::cout << "\n";
  }
  std::sort(total.latenciesUs.begin(), total.latenciesUs.end());
  std::cout << "priority=" << flags::priorityName(options.priority) << " clients=" << clients
            << " executions=" << total.executions << " errors=" << errors
            << " p50_us=" << percentile(total.latenciesUs, 0.50) << " p99_us=" << percentile(total.latenciesUs, 0.99)
            << " throughput_per_s=" << static_cast<int64_t>(static_cast<double>(total.latenciesUs.size()) / elapsed)
            << " reconnects=" << total.reconnects << std::endl;
  return 0;
}

}  // namespace nnremote::tools
