#include "scheduler/device_scheduler.h"

#include <chrono>

namespace nnremote::scheduler {


DeviceScheduler::DeviceScheduler(SchedulerOptions options)
    : options_(std::move(options)), timeline_(options_.timeline) {}

hal::Result<JobResult> DeviceScheduler::run(TimelineJobSpec spec) {
  std::unique_lock<std::mutex> lock(mutex_);
  // No arrival can come before now, so what ended before it no longer matters; keeping it would
  // make every placement slower as history grows.
  timeline_.forgetBefore(options_.time->now());
  const hal::TimePoint arrival = spec.arrival;
  NN_ASSIGN_OR_RETURN(const DeviceTimeline::JobId id, timeline_.submit(std::move(spec)));
  changed_.notify_all();  // paced jobs it pushed later must wait longer
  if (options_.paceRealtime) {
    for (;;) {
      const TimelinePlacement placement = timeline_.placement(id);
      if (options_.time->now() >= placement.end) break;
      options_.time->waitUntil(lock, changed_, placement.end);
    }
  }
  timeline_.commit(id);
  return JobResult{id, arrival, timeline_.placement(id), timeline_.ownTime(id)};
}

hal::TimePoint DeviceScheduler::endOf(DeviceTimeline::JobId id, hal::TimePoint ifForgotten) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return timeline_.endOf(id).value_or(ifForgotten);
}

std::vector<DeviceTimeline::Entry> DeviceScheduler::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return timeline_.snapshot();
}

}  // namespace nnremote::scheduler
