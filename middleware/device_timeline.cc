#include "middleware/device_timeline.h"

#include <algorithm>
#include <limits>

namespace nnremote::middleware {

using hal::Duration;
using hal::TimePoint;

struct DeviceTimeline::Job {
  JobId id = 0;
  TimelineJobSpec spec;
  std::vector<Duration> remainingFrom;  // remainingFrom[i]: the work of segments i..n-1
  bool committed = false;
  // The schedule: segments [0, done) have a start time and an engine.
  std::vector<TimePoint> segmentStart;
  std::vector<uint32_t> segmentEngine;
  size_t done = 0;
  bool stopped = false;
  TimePoint stopTime;

  size_t segmentCount() const { return spec.segments.size(); }
  bool finished() const { return done == segmentCount(); }
  TimePoint segmentEnd(size_t i) const { return segmentStart[i] + spec.segments[i]; }
  // When it leaves the device in the current schedule (only meaningful once finished/stopped).
  TimePoint end() const {
    if (stopped) return stopTime;
    return done == 0 ? spec.arrival : segmentEnd(done - 1);
  }
  bool leftBy(TimePoint t) const { return (stopped || finished()) && end() <= t; }
};

DeviceTimeline::DeviceTimeline(TimelineOptions options) : options_(options) {
  if (options_.engines == 0) options_.engines = 1;
}

DeviceTimeline::~DeviceTimeline() = default;

int64_t DeviceTimeline::rank(const Job& job) const {
  const int64_t credit = static_cast<int64_t>(job.spec.priority) * options_.agingStep.count();
  return job.spec.arrival.time_since_epoch().count() - credit;
}

hal::Result<DeviceTimeline::JobId> DeviceTimeline::submit(TimelineJobSpec spec) {
  const size_t onDevice = jobsAt(spec.arrival);
  if (onDevice >= options_.queueDepth) {
    return hal::makeError(hal::ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT)
           << "the device queue is full: " << onDevice
           << " executions and preparations are queued or running (queue_depth = "
           << options_.queueDepth << ")";
  }
  auto job = std::make_unique<Job>();
  job->id = nextId_++;
  job->spec = std::move(spec);
  setSegments(*job, std::move(job->spec.segments));
  const TimePoint arrival = job->spec.arrival;
  const JobId id = job->id;
  jobs_.push_back(std::move(job));
  reschedule(arrival);
  return id;
}

void DeviceTimeline::setSegments(Job& job, std::vector<Duration> segments) {
  if (segments.empty()) segments.push_back(Duration::zero());
  job.spec.segments = std::move(segments);
  const size_t n = job.segmentCount();
  job.remainingFrom.assign(n + 1, Duration::zero());
  for (size_t i = n; i-- > 0;) job.remainingFrom[i] = job.remainingFrom[i + 1] + job.spec.segments[i];
  job.segmentStart.assign(n, TimePoint());
  job.segmentEngine.assign(n, 0);
  job.done = 0;
  job.stopped = false;
}

void DeviceTimeline::remove(JobId id) {
  Job* job = find(id);
  if (job == nullptr) return;
  const TimePoint arrival = job->spec.arrival;
  jobs_.erase(std::find_if(jobs_.begin(), jobs_.end(), [id](const std::unique_ptr<Job>& j) { return j->id == id; }));
  reschedule(arrival);
}

void DeviceTimeline::updateSegments(JobId id, std::vector<Duration> segments) {
  Job* job = find(id);
  if (job == nullptr) return;
  setSegments(*job, std::move(segments));
  reschedule(job->spec.arrival);
}

void DeviceTimeline::reschedule(TimePoint from) {
  // The state at `from`: what each engine is running, and how far each job has got. Segments
  // that started before `from` stay as they are; everything after is planned again.
  std::vector<TimePoint> freeAt(options_.engines, from);
  std::vector<Job*> onEngine(options_.engines, nullptr);
  std::vector<Job*> active;
  for (const auto& owned : jobs_) {
    Job& job = *owned;
    if (job.leftBy(from)) continue;  // done before `from`: nothing to replan
    job.stopped = false;
    size_t kept = 0;
    while (kept < job.done && job.segmentStart[kept] < from) ++kept;
    job.done = kept;
    if (kept > 0 && job.segmentEnd(kept - 1) > from) {
      const uint32_t engine = job.segmentEngine[kept - 1];
      freeAt[engine] = job.segmentEnd(kept - 1);
      onEngine[engine] = &job;
    }
    if (!job.finished()) active.push_back(&job);
  }

  TimePoint t = from;
  std::vector<Job*> ready;
  for (;;) {
    // Engines whose segment ends now let go of their job.
    for (uint32_t e = 0; e < options_.engines; ++e) {
      if (onEngine[e] != nullptr && freeAt[e] <= t) onEngine[e] = nullptr;
    }
    ready.clear();
    for (Job* job : active) {
      if (job->finished() || job->stopped || job->spec.arrival > t) continue;
      if (std::find(onEngine.begin(), onEngine.end(), job) != onEngine.end()) continue;
      // A job that can no longer make its deadline stops here, at an operation boundary.
      if (!job->committed && job->spec.deadline.has_value() && t + job->remainingFrom[job->done] > *job->spec.deadline) {
        // It was doomed from the moment it could no longer start its remaining work in time,
        // which the device knew then (the segment holding it up had a known end).
        job->stopped = true;
        job->stopTime = std::max(job->spec.arrival, *job->spec.deadline - job->remainingFrom[job->done]);
        if (job->done > 0) job->stopTime = std::max(job->stopTime, job->segmentEnd(job->done - 1));
        continue;
      }
      ready.push_back(job);
    }
    std::sort(ready.begin(), ready.end(), [this](const Job* a, const Job* b) {
      const int64_t ra = rank(*a), rb = rank(*b);
      return ra != rb ? ra < rb : a->id < b->id;
    });
    size_t next = 0;
    for (uint32_t e = 0; e < options_.engines && next < ready.size(); ++e) {
      if (onEngine[e] != nullptr) continue;
      Job* job = ready[next++];
      job->segmentStart[job->done] = t;
      job->segmentEngine[job->done] = e;
      freeAt[e] = t + job->spec.segments[job->done];
      ++job->done;
      onEngine[e] = job;
    }
    // The next event: an engine finishing a segment, or a job arriving.
    TimePoint nextEvent = TimePoint::max();
    for (uint32_t e = 0; e < options_.engines; ++e) {
      if (onEngine[e] != nullptr) nextEvent = std::min(nextEvent, std::max(freeAt[e], t));
    }
    for (Job* job : active) {
      if (!job->finished() && !job->stopped && job->spec.arrival > t) nextEvent = std::min(nextEvent, job->spec.arrival);
    }
    if (nextEvent == TimePoint::max()) break;
    // Zero-length segments end at t itself; the loop then assigns again at the same time.
    t = nextEvent;
  }
}

DeviceTimeline::Job* DeviceTimeline::find(JobId id) const {
  // jobs_ stays in submission order, which is id order.
  const auto it = std::lower_bound(jobs_.begin(), jobs_.end(), id,
                                   [](const std::unique_ptr<Job>& job, JobId wanted) { return job->id < wanted; });
  return it != jobs_.end() && (*it)->id == id ? it->get() : nullptr;
}

TimelinePlacement DeviceTimeline::placement(JobId id) const {
  TimelinePlacement placement;
  if (const Job* found = find(id)) {
    const Job& job = *found;
    placement.stopped = job.stopped;
    placement.end = job.end();
    placement.start = job.done > 0 ? job.segmentStart[0] : placement.end;
    for (size_t i = 0; i < job.done; ++i) {
      if (!placement.runs.empty()) {
        TimelineRun& last = placement.runs.back();
        if (last.engine == job.segmentEngine[i] && last.end == job.segmentStart[i]) {
          last.end = job.segmentEnd(i);
          ++last.segmentCount;
          continue;
        }
      }
      placement.runs.push_back({job.segmentEngine[i], job.segmentStart[i], job.segmentEnd(i), i, 1});
    }
  }
  return placement;
}

hal::Duration DeviceTimeline::ownTime(JobId id) const {
  const Job* job = find(id);
  return job != nullptr ? job->remainingFrom[0] : Duration::zero();
}

std::optional<hal::TimePoint> DeviceTimeline::endOf(JobId id) const {
  const Job* job = find(id);
  if (job == nullptr) return std::nullopt;
  return job->end();
}

void DeviceTimeline::commit(JobId id) {
  if (Job* job = find(id)) job->committed = true;
}

void DeviceTimeline::forgetBefore(TimePoint horizon) {
  jobs_.erase(std::remove_if(jobs_.begin(), jobs_.end(),
                             [horizon](const std::unique_ptr<Job>& job) {
                               return job->committed && job->leftBy(horizon);
                             }),
              jobs_.end());
}

size_t DeviceTimeline::jobsAt(TimePoint at) const {
  size_t count = 0;
  for (const auto& job : jobs_) {
    if (job->spec.arrival <= at && !job->leftBy(at)) ++count;
  }
  return count;
}

std::vector<DeviceTimeline::Entry> DeviceTimeline::snapshot() const {
  std::vector<Entry> entries;
  for (const auto& job : jobs_) entries.push_back({job->id, job->spec, placement(job->id)});
  return entries;
}

}  // namespace nnremote::middleware
