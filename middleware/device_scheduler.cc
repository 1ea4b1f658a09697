#include "middleware/device_scheduler.h"

#include <chrono>

namespace nnremote::middleware {


DeviceScheduler::DeviceScheduler(SchedulerOptions options)
    : options_(std::move(options)), timeline_(options_.timeline) {}

hal::Result<DeviceTimeline::JobId> DeviceScheduler::place(TimelineJobSpec spec) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    // No arrival can come before now, so what ended before it no longer matters; keeping it
    // would make every placement slower as history grows.
    const hal::TimePoint now = options_.time->now();
    timeline_.forgetBefore(now);
    // Work arriving later than now follows its caller's previous work, which ends ahead of the
    // clock (unpaced, a client faster than the simulated device gets ahead of it). It waits
    // while queue_depth jobs are still to end: the device holds that much work at most, and
    // the lead over the clock (and each placement's cost) stays bounded.
    if (spec.arrival <= now) break;
    const hal::TimePoint room = timeline_.whenFewerThan(options_.timeline.queueDepth, now);
    if (room <= now) break;
    options_.time->waitUntil(lock, changed_, room);
  }
  if (const hal::TimePoint now = options_.time->now(); spec.arrival < now) {
    // The clock passed its arrival before it was placed: it waited for room, or the clock moved
    // on after its caller read it. What ended before now is forgotten, so placed at its old
    // arrival it could overlap that; it arrives now instead, with as much time to its deadline
    // as it had.
    if (spec.deadline.has_value()) *spec.deadline += now - spec.arrival;
    spec.arrival = now;
  }
  NN_ASSIGN_OR_RETURN(const DeviceTimeline::JobId id, timeline_.submit(std::move(spec)));
  changed_.notify_all();  // paced jobs it pushed later must wait longer
  return id;
}

JobResult DeviceScheduler::finish(DeviceTimeline::JobId id, const std::vector<hal::Duration>* actualSegments) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (actualSegments != nullptr) {
    timeline_.updateSegments(id, *actualSegments);
    changed_.notify_all();  // paced jobs wait for the costs that may move them
  }
  if (options_.paceRealtime) {
    // Final once its end has passed and no job of unknown cost starts before that end: such a
    // job (a HIGH one that preempts it, one running when it arrived) holds a place of no length
    // until it is computed, and may then push it later.
    for (;;) {
      const std::optional<hal::TimePoint> end = timeline_.endOf(id);
      if (!end.has_value()) break;
      const hal::TimePoint now = options_.time->now();
      if (now < *end) {
        options_.time->waitUntil(lock, changed_, *end);
      } else if (timeline_.awaitsUnknownCosts(id)) {
        // Woken by finish() or cancel() of the job it waits for; the bound only guards the loop.
        options_.time->waitUntil(lock, changed_, now + std::chrono::seconds(1));
      } else {
        break;
      }
    }
  }
  timeline_.commit(id);
  JobResult result{id, timeline_.placement(id), timeline_.ownTime(id)};
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
  NN_ASSIGN_OR_RETURN(const DeviceTimeline::JobId id, place(std::move(spec)));
  return finish(id, nullptr);
}

hal::TimePoint DeviceScheduler::endOf(DeviceTimeline::JobId id, hal::TimePoint ifForgotten) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return timeline_.endOf(id).value_or(ifForgotten);
}

DeviceScheduler::Load DeviceScheduler::load() const {
  std::lock_guard<std::mutex> lock(mutex_);
  const hal::TimePoint now = options_.time->now();
  return Load{timeline_.jobsAt(now), timeline_.jobsAfter(now), busy_, committedJobs_, preparedModels_.load()};
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
