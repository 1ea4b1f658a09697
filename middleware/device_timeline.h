// One NPU's timeline in simulated time: which execution (or preparation) occupies which engine
// when. It is a pure model, driven by what the scheduler submits; it never looks at a clock.
//
// The rules (docs/scheduler.md):
// - Work is a list of segments, one per operation; an engine runs one segment at a time, and
//   only between segments can it switch to other work (preemption at operation boundaries).
// - When an engine is free it takes the ready job with the best rank, rank = arrival minus a
//   priority credit (LOW 0, MEDIUM one aging step, HIGH two). So priority decides among jobs
//   that arrived within an aging step of each other, and arrival decides otherwise: a LOW job
//   waits at most for what arrived before it plus the HIGH and MEDIUM work that arrives within
//   two aging steps after it. Nothing starves.
// - A job with a deadline that can no longer finish by it (now + remaining work > deadline) is
//   stopped at its last operation boundary, and the stop is dated when it became inevitable
//   (deadline - remaining work), unless it is committed (its result has been returned to the
//   client, so history cannot change; it can still be pushed later).
// - A later arrival changes the schedule only from its arrival on.
#ifndef NNREMOTE_MIDDLEWARE_DEVICE_TIMELINE_H_
#define NNREMOTE_MIDDLEWARE_DEVICE_TIMELINE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hal/result.h"
#include "hal/types.h"

namespace nnremote::middleware {

struct TimelineOptions {
  uint32_t engines = 1;
  hal::Duration agingStep = std::chrono::milliseconds(100);
  // Jobs on the device (running or waiting) when a new one arrives, at most; beyond it the
  // new one is refused with RESOURCE_EXHAUSTED_TRANSIENT.
  uint32_t queueDepth = 256;
};

struct TimelineJobSpec {
  hal::Priority priority = hal::Priority::MEDIUM;
  hal::TimePoint arrival;
  std::optional<hal::TimePoint> deadline;
  std::vector<hal::Duration> segments;  // one per operation, in order
  // Placed before anything was known of its cost (an execution's first run for its input shapes,
  // a preparation timed on the host): `segments` hold its place until updateSegments(). A cost
  // known from before may be corrected too, but is taken as a good enough guess meanwhile.
  bool costUnknown = false;
  std::string label;                    // for snapshots and traces
};

// A stretch of consecutive segments a job ran on one engine.
struct TimelineRun {
  uint32_t engine = 0;
  hal::TimePoint start, end;
  size_t firstSegment = 0, segmentCount = 0;
};

// Where a job stands in the current schedule.
struct TimelinePlacement {
  hal::TimePoint arrival;
  bool stopped = false;  // missed its deadline; `end` is when it was stopped
  hal::TimePoint start;  // its first segment's start (or the stop, if none ran)
  hal::TimePoint end;
  std::vector<TimelineRun> runs;
};

class DeviceTimeline {
 public:
  using JobId = uint64_t;

  explicit DeviceTimeline(TimelineOptions options);
  ~DeviceTimeline();
  DeviceTimeline(const DeviceTimeline&) = delete;
  DeviceTimeline& operator=(const DeviceTimeline&) = delete;

  const TimelineOptions& options() const { return options_; }

  // Places a job and reschedules everything after its arrival. Fails with
  // RESOURCE_EXHAUSTED_TRANSIENT when queueDepth jobs are on the device at its arrival.
  hal::Result<JobId> submit(TimelineJobSpec spec);
  // Replaces a job's segments (its cost turned out different from the estimate it was placed
  // with, or was unknown) and reschedules from its arrival.
  void updateSegments(JobId id, std::vector<hal::Duration> segments);
  TimelinePlacement placement(JobId id) const;
  hal::Duration ownTime(JobId id) const;
  // Where the job ends in the current schedule; nullopt once forgotten.
  std::optional<hal::TimePoint> endOf(JobId id) const;
  // Whether a job whose cost is still unknown (TimelineJobSpec::costUnknown) starts before this
  // one ends, so that this one may yet move when that cost is known. One starting later cannot
  // move it: a job's cost changes the schedule only from its start.
  bool awaitsUnknownCosts(JobId id) const;
  // The job's result has been handed out: it will not be stopped later (but may move later).
  void commit(JobId id);
  // Takes back a job that never ran (its computation failed on the host) and reschedules.
  void remove(JobId id);
  // Drops committed jobs that ended before `horizon`; they can no longer affect anything a later
  // arrival (which arrives at or after `horizon`) sees. Uncommitted ones stay for their owner.
  void forgetBefore(hal::TimePoint horizon);
  // Jobs on the device (started or waiting, not ended) at time `at`.
  size_t jobsAt(hal::TimePoint at) const;
  // Jobs placed to arrive after `at` (unpaced work queued ahead of the clock).
  size_t jobsAfter(hal::TimePoint at) const;
  // When, in the current schedule, fewer than `count` jobs will be left that have not ended by
  // then (counting those that arrive later): `at` itself if that is so already.
  hal::TimePoint whenFewerThan(size_t count, hal::TimePoint at) const;
  // Every job still kept, in submission order: label, spec and placement.
  struct Entry {
    JobId id;
    TimelineJobSpec spec;
    TimelinePlacement placement;
  };
  std::vector<Entry> snapshot() const;

 private:
  struct Job;
  Job* find(JobId id) const;
  static void setSegments(Job& job, std::vector<hal::Duration> segments);
  void reschedule(hal::TimePoint from);
  int64_t rank(const Job& job) const;

  TimelineOptions options_;
  JobId nextId_ = 1;
  std::vector<std::unique_ptr<Job>> jobs_;  // in submission order
};

}  // namespace nnremote::middleware

#endif  // NNREMOTE_MIDDLEWARE_DEVICE_TIMELINE_H_
