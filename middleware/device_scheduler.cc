#include "middleware/device_scheduler.h"

#include <chrono>

namespace nnremote::middleware {


DeviceScheduler::DeviceScheduler(SchedulerOptions options)
    : options_(std::move(options)), timeline_(options_.timeline) {}

hal::Result<DeviceTimeline::JobId> DeviceScheduler::place(TimelineJobSpec spec) {
  std::lock_guard<std::mutex> lock(mutex_);
  // No arrival can come before now, so what ended before it no longer matters; keeping it would
  // make every placement slower as history grows.
  timeline_.forgetBefore(options_.time->now());
  NN_ASSIGN_OR_RETURN(const DeviceTimeline::JobId id, timeline_.submit(std::move(spec)));
  changed_.notify_all();  // paced jobs it pushed later must wait longer
  return id;
}

JobResult DeviceScheduler::finish(DeviceTimeline::JobId id, hal::TimePoint arrival,
                                  const std::vector<hal::Duration>* actualSegments) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (actualSegments != nullptr) {
    timeline_.updateSegments(id, *actualSegments);
    changed_.notify_all();
  }
  if (options_.paceRealtime) {
    for (;;) {
      const std::optional<hal::TimePoint> end = timeline_.endOf(id);
      if (!end.has_value() || options_.time->now() >= *end) break;
      options_.time->waitUntil(lock, changed_, *end);
    }
  }
  timeline_.commit(id);
  JobResult result{id, arrival, timeline_.placement(id), timeline_.ownTime(id)};
  busy_ += result.ownTime;
  ++committedJobs_;
  return result;
}

void DeviceScheduler::cancel(DeviceTimeline::JobId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  timeline_.remove(id);
  changed_.notify_all();
}

hal::Result<JobResult> DeviceScheduler::run(TimelineJobSpec spec) {
  const hal::TimePoint arrival = spec.arrival;
  NN_ASSIGN_OR_RETURN(const DeviceTimeline::JobId id, place(std::move(spec)));
  return finish(id, arrival, nullptr);
}

hal::TimePoint DeviceScheduler::endOf(DeviceTimeline::JobId id, hal::TimePoint ifForgotten) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return timeline_.endOf(id).value_or(ifForgotten);
}

DeviceScheduler::Load DeviceScheduler::load() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return Load{timeline_.jobsAt(options_.time->now()), busy_, committedJobs_, preparedModels_.load()};
}

void DeviceScheduler::observeExecutions(std::function<void(const ExecutionReport&)> observer) const {
  std::atomic_store(&observer_, std::make_shared<const std::function<void(const ExecutionReport&)>>(std::move(observer)));
}

void DeviceScheduler::reportExecution(const ExecutionReport& report) const {
  // No lock on the execution path: the observer is swapped whole.
  if (const auto observer = std::atomic_load(&observer_); observer != nullptr && *observer) (*observer)(report);
}

std::vector<DeviceTimeline::Entry> DeviceScheduler::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return timeline_.snapshot();
}

}  // namespace nnremote::middleware
