#include "tools/load_clients.h"

#include <algorithm>
#include <thread>

#include "hal/model_builder.h"
#include "drivers/proxy/proxy_device.h"

namespace nnremote::tools {
namespace {

void countError(ClientTally* tally, const hal::Error& error) { ++tally->errors[hal::toString(error.code)]; }

// One client: its own session, preparation and loop. Setup failures count as errors too.
ClientTally runClient(const LoadOptions& options, std::chrono::steady_clock::time_point runStart) {
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
  const hal::MeasureTiming measure = options.measureTiming ? hal::MeasureTiming::YES : hal::MeasureTiming::NO;
  // The simulator is deterministic: every result must equal the first one, so a run that
  // survives a server restart is checked to compute the same thing after it.
  std::vector<uint8_t> firstResult;
  const hal::SharedMemory& output = io->outputs[0];
  const auto stopAt = runStart + options.runFor;
  while (std::chrono::steady_clock::now() < stopAt) {
    const auto start = std::chrono::steady_clock::now();
    hal::OptionalTimePoint deadline;
    if (options.deadline) deadline = start + *options.deadline;
    auto outcome = burst ? burst->execute(io->request, measure, deadline, std::nullopt)
                         : (*prepared)->execute(io->request, measure, deadline, std::nullopt);
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
    ExecutionSample sample;
    sample.startSeconds = std::chrono::duration<double>(start - runStart).count();
    sample.latencyUs = std::chrono::duration_cast<std::chrono::microseconds>(latency).count();
    if (outcome->timing.timeOnDevice) {
      sample.deviceUs = std::chrono::duration_cast<std::chrono::microseconds>(*outcome->timing.timeOnDevice).count();
    }
    if (!tally.profile && outcome->profile) tally.profile = *outcome->profile;
    tally.samples.push_back(sample);
  }
  tally.reconnects = (*connection)->reconnects();
  return tally;
}

}  // namespace

ClientTally runLoadClients(const LoadOptions& options, int64_t clients, std::chrono::steady_clock::time_point start) {
  std::vector<ClientTally> tallies(static_cast<size_t>(clients));
  std::vector<std::thread> threads;
  for (auto& tally : tallies) threads.emplace_back([&options, &tally, start] { tally = runClient(options, start); });
  for (auto& thread : threads) thread.join();
  ClientTally total;
  for (auto& tally : tallies) {
    total.executions += tally.executions;
    total.reconnects += tally.reconnects;
    total.samples.insert(total.samples.end(), tally.samples.begin(), tally.samples.end());
    for (const auto& [status, count] : tally.errors) total.errors[status] += count;
    if (!total.profile && tally.profile) total.profile = std::move(tally.profile);
  }
  std::sort(total.samples.begin(), total.samples.end(),
            [](const ExecutionSample& a, const ExecutionSample& b) { return a.startSeconds < b.startSeconds; });
  return total;
}

int64_t percentile(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  const size_t index = std::min(sorted.size() - 1, static_cast<size_t>(p * static_cast<double>(sorted.size())));
  return sorted[index];
}

}  // namespace nnremote::tools
