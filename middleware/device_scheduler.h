// The one scheduler of one NPU: every execution and preparation of the device, from every
// client, is placed on its DeviceTimeline here. Thread-safe.
//
// Work takes the timeline at its arrival with the cost it is expected to have, is computed on the
// host, and then gets the cost each of its operations took, so the host's cores serve many
// clients at once while the timeline still runs one job per engine. Unpaced, a job's result is
// returned as soon as it is placed; with pacing, not before its end on the timeline has passed
// on the clock and no job of still unknown cost can move it. Either way a job that would arrive
// ahead of the clock waits until fewer than queue_depth jobs are still to end.
#ifndef NNREMOTE_MIDDLEWARE_DEVICE_SCHEDULER_H_
#define NNREMOTE_MIDDLEWARE_DEVICE_SCHEDULER_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

#include "hal/types.h"
#include "middleware/device_timeline.h"
#include "middleware/time_source.h"

namespace nnremote::middleware {

struct SchedulerOptions {
  TimelineOptions timeline;
  // The clock follows the timeline: results are returned at their simulated end.
  bool paceRealtime = false;
  std::shared_ptr<const TimeSource> time = hostClock();
  // The simulated time a preparation occupies the device. Unset: the host time the wrapped
  // device took to prepare.
  std::function<hal::Duration(const hal::Model&)> preparationTime;
};

// One execution as its client saw it, for metrics (npu_emulator --metrics).
struct ExecutionReport {
  hal::Priority priority = hal::Priority::MEDIUM;
  hal::ErrorStatus status = hal::ErrorStatus::NONE;
  hal::Duration latency{0};     // host wall clock, from the call to its answer
  hal::Duration deviceTime{0};  // its own time on the simulated device (0 if it never ran)
  hal::Duration queueWait{0};   // on the timeline, from its arrival to its start
};

// What became of a job on the timeline, once it is final for its client.
struct JobResult {
  DeviceTimeline::JobId id = 0;
  TimelinePlacement placement;  // with its arrival
  hal::Duration ownTime{0};
};

class DeviceScheduler {
 public:
  explicit DeviceScheduler(SchedulerOptions options);

  const SchedulerOptions& options() const { return options_; }
  hal::TimePoint now() const { return options_.time->now(); }

  // Places `spec` and, paced, waits until it has ended or been stopped on the clock (and no job
  // of unknown cost may move it). The job is committed when this returns: its outcome no longer
  // changes. Work arriving ahead of the clock first waits for room (see place()).
  hal::Result<JobResult> run(TimelineJobSpec spec);
  // The same in two steps, for work placed before it is computed: place() puts it on the
  // timeline at its arrival at once with the cost it is expected to have (none, if unknown), and
  // finish() corrects its segments if the computation found them different, then waits as run()
  // does. Work timed on the host must be placed so: placed once done, it would take the device
  // for as long again. A spec arriving later than now
  // waits while queue_depth jobs are still to end. No spec arrives before the clock's time when
  // it is placed (it may have waited, or the clock moved on after its caller read it); its
  // deadline moves with its arrival.
  hal::Result<DeviceTimeline::JobId> place(TimelineJobSpec spec);
  JobResult finish(DeviceTimeline::JobId id, const std::vector<hal::Duration>* actualSegments);
  // Takes back a placed job that will not run after all.
  void cancel(DeviceTimeline::JobId id);
  // Where job `id` ends in the current schedule (it may have moved since it was run).
  hal::TimePoint endOf(DeviceTimeline::JobId id, hal::TimePoint ifForgotten) const;

  std::vector<DeviceTimeline::Entry> snapshot() const;

  // How busy the device is, for a farm's load balancing and for metrics.
  struct Load {
    size_t jobsNow = 0;           // on the device now: running, preempted or waiting
    size_t jobsAhead = 0;         // placed to arrive later: unpaced clients ahead of the clock
    hal::Duration busy{0};        // device time of every job committed so far
    uint64_t committedJobs = 0;   // jobs committed so far
    int64_t preparedModels = 0;   // prepared on the device and not yet released
  };
  Load load() const;

  // Whoever wants to hear of every execution (set once, before serving).
  void observeExecutions(std::function<void(const ExecutionReport&)> observer) const;
  void reportExecution(const ExecutionReport& report) const;
  // Counted by the prepared models themselves, for load().
  void preparedModelAdded() { preparedModels_.fetch_add(1); }
  void preparedModelReleased() { preparedModels_.fetch_sub(1); }

 private:
  SchedulerOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;  // the schedule changed
  DeviceTimeline timeline_;
  hal::Duration busy_{0};        // guarded by mutex_
  uint64_t committedJobs_ = 0;   // guarded by mutex_
  std::atomic<int64_t> preparedModels_{0};
  mutable std::shared_ptr<const std::function<void(const ExecutionReport&)>> observer_;  // atomic_load/store
};

}  // namespace nnremote::middleware

#endif  // NNREMOTE_MIDDLEWARE_DEVICE_SCHEDULER_H_
