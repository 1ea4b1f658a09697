#include "middleware/device_timeline.h"

#include <algorithm>
#include <limits>
#include <queue>

namespace nnremote::middleware {

using hal::Duration;
using hal::TimePoint;

struct DeviceTimeline::Job {
  JobId id = 0;
  TimelineJobSpec spec;
  std::vector<Duration> remainingFrom;  // remainingFrom[i]: the work of segments i..n-1
  int64_t rank = 0;  // fixed at submission: see DeviceTimeline::rank
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
  job->rank = rank(*job);
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
  job->spec.costUnknown = false;
  reschedule(job->spec.arrival);
}

namespace {

// Ready jobs, best first: lowest rank, then first submitted. (A template only because Job is
// private to DeviceTimeline.)
struct WorseRank {
  template <typename JobPtr>
  bool operator()(const JobPtr* a, const JobPtr* b) const {
    return a->rank != b->rank ? a->rank > b->rank : a->id > b->id;
  }
};

}  // namespace

void DeviceTimeline::reschedule(TimePoint from) {
  // The state at `from`: what each engine is running, and how far each job has got. Segments
  // that started before `from` stay as they are; everything after is planned again.
  std::vector<TimePoint> freeAt(options_.engines, from);
  std::vector<Job*> onEngine(options_.engines, nullptr);
  std::priority_queue<Job*, std::vector<Job*>, WorseRank> ready;
  std::vector<Job*> arrivals;  // after `from`
  for (const auto& owned : jobs_) {
    Job& job = *owned;
    if (job.leftBy(from)) continue;  // done before `from`: nothing to replan
    job.stopped = false;
    job.done = static_cast<size_t>(
        std::lower_bound(job.segmentStart.begin(), job.segmentStart.begin() + job.done, from) - job.segmentStart.begin());
    if (job.done > 0 && job.segmentEnd(job.done - 1) > from) {
      const uint32_t engine = job.segmentEngine[job.done - 1];
      freeAt[engine] = job.segmentEnd(job.done - 1);
      onEngine[engine] = &job;
    } else if (job.spec.arrival > from) {
      arrivals.push_back(&job);
    } else if (!job.finished()) {
      ready.push(&job);
    }
  }
  std::sort(arrivals.begin(), arrivals.end(),
            [](const Job* a, const Job* b) { return a->spec.arrival < b->spec.arrival; });
  size_t arrived = 0;

  // The best ready job that can still make its deadline at `t`. Whether one can is checked when
  // it would start, not while it waits: the answer only changes from yes to no as `t` grows,
  // and when it was stopped does not depend on `t`.
  auto takeBest = [&](TimePoint t) -> Job* {
    while (!ready.empty()) {
      Job* job = ready.top();
      ready.pop();
      if (!job->committed && job->spec.deadline.has_value() && t + job->remainingFrom[job->done] > *job->spec.deadline) {
        // It was doomed from the moment it could no longer start its remaining work in time,
        // which the device knew then (the segment holding it up had a known end).
        job->stopped = true;
        job->stopTime = std::max(job->spec.arrival, *job->spec.deadline - job->remainingFrom[job->done]);
        if (job->done > 0) job->stopTime = std::max(job->stopTime, job->segmentEnd(job->done - 1));
        continue;
      }
      return job;
    }
    return nullptr;
  };
  auto startSegment = [&](Job* job, uint32_t engine, TimePoint t) {
    job->segmentStart[job->done] = t;
    job->segmentEngine[job->done] = engine;
    freeAt[engine] = t + job->spec.segments[job->done];
    ++job->done;
    onEngine[engine] = job;
  };

  TimePoint t = from;
  for (;;) {
    // Engines whose segment ends now let go of their job; arrivals join the ready ones.
    for (uint32_t e = 0; e < options_.engines; ++e) {
      if (onEngine[e] == nullptr || freeAt[e] > t) continue;
      if (!onEngine[e]->finished()) ready.push(onEngine[e]);
      onEngine[e] = nullptr;
    }
    for (; arrived < arrivals.size() && arrivals[arrived]->spec.arrival <= t; ++arrived) ready.push(arrivals[arrived]);
    for (uint32_t e = 0; e < options_.engines && !ready.empty(); ++e) {
      if (onEngine[e] != nullptr) continue;
      if (Job* job = takeBest(t)) startSegment(job, e, t);
    }
    // Until the next arrival or another engine's boundary the ready jobs stay the same, so a
    // running job that outranks them all keeps its engine at each of its own boundaries (unless
    // a lower engine is idle, which would take it over): run its segments back to back without
    // visiting each boundary. Its deadline check gives the same answer at each of them.
    const TimePoint nextArrival = arrived < arrivals.size() ? arrivals[arrived]->spec.arrival : TimePoint::max();
    bool lowerIdle = false;
    for (uint32_t e = 0; e < options_.engines; ++e) {
      Job* job = onEngine[e];
      if (job == nullptr) {
        lowerIdle = true;
        continue;
      }
      if (lowerIdle || (!ready.empty() && !WorseRank()(ready.top(), job))) continue;
      TimePoint limit = nextArrival;
      for (uint32_t other = 0; other < options_.engines; ++other) {
        if (other != e && onEngine[other] != nullptr) limit = std::min(limit, freeAt[other]);
      }
      while (!job->finished() && freeAt[e] < limit) startSegment(job, e, freeAt[e]);
    }
    // The next event: an engine finishing a segment, or a job arriving.
    TimePoint nextEvent = nextArrival;
    for (uint32_t e = 0; e < options_.engines; ++e) {
      if (onEngine[e] != nullptr) nextEvent = std::min(nextEvent, std::max(freeAt[e], t));
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
    placement.arrival = job.spec.arrival;
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

bool DeviceTimeline::awaitsUnknownCosts(JobId id) const {
  const Job* job = find(id);
  if (job == nullptr) return false;
  const TimePoint end = job->end();
  for (const auto& other : jobs_) {
    if (!other->spec.costUnknown || other.get() == job) continue;
    // Where its cost starts to matter: its first segment, or, stopped before running, the
    // moment it was stopped (no later than when it would have started).
    const TimePoint start = other->done > 0  ? other->segmentStart[0]
                            : other->stopped ? other->stopTime
                                             : other->spec.arrival;
    if (start < end) return true;
  }
  return false;
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

size_t DeviceTimeline::jobsAfter(TimePoint at) const {
  return static_cast<size_t>(std::count_if(jobs_.begin(), jobs_.end(),
                                           [at](const std::unique_ptr<Job>& job) { return job->spec.arrival > at; }));
}

hal::TimePoint DeviceTimeline::whenFewerThan(size_t count, TimePoint at) const {
  count = std::max<size_t>(count, 1);
  std::vector<TimePoint> ends;
  for (const auto& job : jobs_) {
    if (!job->leftBy(at)) ends.push_back(job->end());
  }
  if (ends.size() < count) return at;
  // Once the first (size - count + 1) of them have ended, count - 1 are left.
  const auto nth = ends.begin() + static_cast<std::ptrdiff_t>(ends.size() - count);
  std::nth_element(ends.begin(), nth, ends.end());
  return *nth;
}

std::vector<DeviceTimeline::Entry> DeviceTimeline::snapshot() const {
  std::vector<Entry> entries;
  for (const auto& job : jobs_) entries.push_back({job->id, job->spec, placement(job->id)});
  return entries;
}

}  // namespace nnremote::middleware
