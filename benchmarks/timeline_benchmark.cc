// What one placement costs the scheduler when work is already queued ahead of the clock: a job
// arriving now in front of N queued jobs makes the timeline plan all of them again.
//
//   bazel run -c opt //benchmarks:timeline_benchmark
//
// The queued jobs come from one client whose executions follow each other (as an unpaced client
// faster than the simulated device leaves them); each has `segments` operations. The measured
// step places one MEDIUM job at the front and takes it back, two reschedules of everything
// queued.
#include <benchmark/benchmark.h>

#include <chrono>
#include <vector>

#include "middleware/device_timeline.h"

namespace {

using nnremote::middleware::DeviceTimeline;
using nnremote::middleware::TimelineJobSpec;
using nnremote::middleware::TimelineOptions;
using std::chrono::microseconds;

void BM_PlaceInFrontOfQueuedJobs(benchmark::State& state) {
  const auto queued = static_cast<size_t>(state.range(0));
  const auto segments = static_cast<size_t>(state.range(1));
  const auto engines = static_cast<uint32_t>(state.range(2));
  TimelineOptions options;
  options.engines = engines;
  options.queueDepth = static_cast<uint32_t>(queued + 2);
  DeviceTimeline timeline(options);
  // The chained client: each execution arrives when its previous one ends.
  nnremote::hal::TimePoint arrival{};
  for (size_t i = 0; i < queued; ++i) {
    TimelineJobSpec spec;
    spec.priority = nnremote::hal::Priority::LOW;
    spec.arrival = arrival;
    spec.segments.assign(segments, microseconds(100));
    const auto id = timeline.submit(std::move(spec));
    if (!id.ok()) {
      state.SkipWithError(id.error().message.c_str());
      return;
    }
    arrival = *timeline.endOf(*id);
  }
  TimelineJobSpec front;
  front.arrival = nnremote::hal::TimePoint(microseconds(50));
  front.segments = {microseconds(10)};
  for (auto _ : state) {
    const auto id = timeline.submit(front);
    if (!id.ok()) {
      state.SkipWithError(id.error().message.c_str());
      return;
    }
    timeline.remove(*id);
  }
  state.counters["queued"] = static_cast<double>(queued);
}

// {queued jobs, operations per job, engines}
BENCHMARK(BM_PlaceInFrontOfQueuedJobs)
    ->ArgsProduct({{64, 256, 1024}, {1, 20}, {1}})
    ->Args({1024, 20, 2})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
