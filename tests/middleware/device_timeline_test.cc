// The timeline's rules, checked on simulated time alone: order, preemption at operation
// boundaries, aging, engines, deadlines and queue depth; and what must hold of any schedule,
// checked over random workloads.
#include "middleware/device_timeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

namespace nnremote::middleware {
namespace {

using std::chrono::milliseconds;
using hal::Priority;
using hal::TimePoint;

TimePoint at(int64_t ms) { return TimePoint(milliseconds(ms)); }

TimelineJobSpec job(Priority priority, int64_t arrivalMs, std::vector<int64_t> segmentsMs,
                    std::optional<int64_t> deadlineMs = std::nullopt) {
  TimelineJobSpec spec;
  spec.priority = priority;
  spec.arrival = at(arrivalMs);
  for (int64_t ms : segmentsMs) spec.segments.push_back(milliseconds(ms));
  if (deadlineMs) spec.deadline = at(*deadlineMs);
  return spec;
}

DeviceTimeline::JobId submit(DeviceTimeline& timeline, TimelineJobSpec spec) {
  auto id = timeline.submit(std::move(spec));
  EXPECT_TRUE(id.ok()) << id.error().message;
  return id.ok() ? *id : 0;
}

TEST(DeviceTimelineTest, OneEngineRunsJobsOneAfterAnotherInArrivalOrder) {
  DeviceTimeline timeline({});
  const auto a = submit(timeline, job(Priority::MEDIUM, 0, {3, 2}));
  const auto b = submit(timeline, job(Priority::MEDIUM, 1, {4}));
  const auto c = submit(timeline, job(Priority::MEDIUM, 20, {1}));
  EXPECT_EQ(timeline.placement(a).start, at(0));
  EXPECT_EQ(timeline.placement(a).end, at(5));
  EXPECT_EQ(timeline.placement(b).start, at(5));  // queued 4 ms behind a
  EXPECT_EQ(timeline.placement(b).end, at(9));
  EXPECT_EQ(timeline.placement(c).start, at(20));  // the device was idle
  EXPECT_EQ(timeline.placement(c).end, at(21));
  EXPECT_EQ(timeline.ownTime(a), milliseconds(5));
}

TEST(DeviceTimelineTest, WaitingJobsRunByPriorityThenArrival) {
  DeviceTimeline timeline({});
  const auto running = submit(timeline, job(Priority::LOW, 0, {10}));
  const auto low = submit(timeline, job(Priority::LOW, 1, {1}));
  const auto medium = submit(timeline, job(Priority::MEDIUM, 2, {1}));
  const auto high = submit(timeline, job(Priority::HIGH, 3, {1}));
  const auto high2 = submit(timeline, job(Priority::HIGH, 4, {1}));
  EXPECT_EQ(timeline.placement(running).end, at(10));  // one segment: nothing can preempt it
  EXPECT_EQ(timeline.placement(high).start, at(10));
  EXPECT_EQ(timeline.placement(high2).start, at(11));
  EXPECT_EQ(timeline.placement(medium).start, at(12));
  EXPECT_EQ(timeline.placement(low).start, at(13));
}

TEST(DeviceTimelineTest, AHigherPriorityArrivalPreemptsAtTheNextOperationBoundary) {
  DeviceTimeline timeline({});
  const auto low = submit(timeline, job(Priority::LOW, 0, {4, 4, 4}));
  EXPECT_EQ(timeline.placement(low).end, at(12));
  const auto high = submit(timeline, job(Priority::HIGH, 5, {2, 1}));
  // high arrives during low's second operation (4..8) and takes the device when it ends.
  const TimelinePlacement h = timeline.placement(high);
  EXPECT_EQ(h.start, at(8));
  EXPECT_EQ(h.end, at(11));
  const TimelinePlacement l = timeline.placement(low);
  ASSERT_EQ(l.runs.size(), 2u);
  EXPECT_EQ(l.runs[0].start, at(0));
  EXPECT_EQ(l.runs[0].end, at(8));
  EXPECT_EQ(l.runs[0].segmentCount, 2u);
  EXPECT_EQ(l.runs[1].start, at(11));  // resumed where it stopped
  EXPECT_EQ(l.runs[1].firstSegment, 2u);
  EXPECT_EQ(l.end, at(15));
  // An equal priority never preempts.
  const auto medium = submit(timeline, job(Priority::LOW, 16, {4, 4}));
  const auto other = submit(timeline, job(Priority::LOW, 17, {1}));
  EXPECT_EQ(timeline.placement(medium).end, at(24));
  EXPECT_EQ(timeline.placement(other).start, at(24));
}

TEST(DeviceTimelineTest, AgingBoundsHowLongLowPriorityWorkWaits) {
  TimelineOptions options;
  options.agingStep = milliseconds(10);
  DeviceTimeline timeline(options);
  // A stream of HIGH jobs, back to back, each arriving as the previous one starts.
  const auto low = submit(timeline, job(Priority::LOW, 0, {1}));
  submit(timeline, job(Priority::HIGH, 0, {5}));
  for (int64_t t = 5; t < 100; t += 5) submit(timeline, job(Priority::HIGH, t, {5}));
  // low (rank 0) passes every HIGH job that arrived more than two aging steps (20 ms) after it.
  const TimelinePlacement l = timeline.placement(low);
  EXPECT_LE(l.start, at(25));
  EXPECT_GE(l.start, at(20));
}

TEST(DeviceTimelineTest, EnginesRunJobsSideBySide) {
  TimelineOptions options;
  options.engines = 2;
  DeviceTimeline timeline(options);
  const auto a = submit(timeline, job(Priority::MEDIUM, 0, {10}));
  const auto b = submit(timeline, job(Priority::MEDIUM, 0, {10}));
  const auto c = submit(timeline, job(Priority::MEDIUM, 0, {10}));
  EXPECT_EQ(timeline.placement(a).end, at(10));
  EXPECT_EQ(timeline.placement(b).end, at(10));
  EXPECT_NE(timeline.placement(a).runs[0].engine, timeline.placement(b).runs[0].engine);
  EXPECT_EQ(timeline.placement(c).start, at(10));
}


// Free engines take work lowest first, at every operation boundary: a job whose engine frees at
// its boundary moves to a lower one that stood idle. (The timeline runs a job's segments back
// to back without visiting each boundary only when nothing there could change.)
TEST(DeviceTimelineTest, AJobContinuesOnTheLowestFreeEngine) {
  TimelineOptions options;
  options.engines = 2;
  DeviceTimeline timeline(options);
  const auto shortJob = submit(timeline, job(Priority::MEDIUM, 0, {1}));
  const auto longJob = submit(timeline, job(Priority::MEDIUM, 0, {2, 2, 2}));
  EXPECT_EQ(timeline.placement(shortJob).runs[0].engine, 0u);
  const TimelinePlacement placed = timeline.placement(longJob);
  ASSERT_EQ(placed.runs.size(), 2u);
  EXPECT_EQ(placed.runs[0].engine, 1u);
  EXPECT_EQ(placed.runs[0].end, at(2));
  EXPECT_EQ(placed.runs[1].engine, 0u);  // engine 0 was idle from 1 on
  EXPECT_EQ(placed.runs[1].start, at(2));
  EXPECT_EQ(placed.runs[1].segmentCount, 2u);
  EXPECT_EQ(placed.end, at(6));
  // Arrivals that outrank it: one takes idle engine 1 at once; the other takes engine 0 at the
  // long job's next boundary, and the long job goes on on engine 1, free again by then.
  const auto urgent = submit(timeline, job(Priority::HIGH, 3, {1}));
  const auto urgent2 = submit(timeline, job(Priority::HIGH, 3, {1}));
  EXPECT_EQ(timeline.placement(urgent).runs[0].engine, 1u);
  EXPECT_EQ(timeline.placement(urgent).start, at(3));
  EXPECT_EQ(timeline.placement(urgent2).runs[0].engine, 0u);
  EXPECT_EQ(timeline.placement(urgent2).start, at(4));
  const TimelinePlacement moved = timeline.placement(longJob);
  ASSERT_EQ(moved.runs.size(), 3u);
  EXPECT_EQ(moved.runs[2].engine, 1u);
  EXPECT_EQ(moved.runs[2].start, at(4));
  EXPECT_EQ(moved.end, at(6));
}
TEST(DeviceTimelineTest, AJobThatCanNoLongerMeetItsDeadlineStopsAtABoundary) {
  DeviceTimeline timeline({});
  const auto first = submit(timeline, job(Priority::MEDIUM, 0, {6, 6}));
  // 3 ms of work, due at 10: it would fit on an idle device, but first holds it until 12.
  const auto late = submit(timeline, job(Priority::MEDIUM, 0, {1, 1, 1}, 10));
  EXPECT_EQ(timeline.placement(first).end, at(12));  // an equal priority does not preempt it
  const TimelinePlacement l = timeline.placement(late);
  EXPECT_TRUE(l.stopped);
  EXPECT_TRUE(l.runs.empty());
  EXPECT_EQ(l.end, at(7));  // at 7 its 3 ms could no longer start in time (first holds the device until 12)
  // One that fits runs.
  const auto fits = submit(timeline, job(Priority::MEDIUM, 0, {1}, 14));
  EXPECT_FALSE(timeline.placement(fits).stopped);
  EXPECT_EQ(timeline.placement(fits).end, at(13));
}

TEST(DeviceTimelineTest, PreemptionStopsAnUncommittedJobButOnlyDelaysACommittedOne) {
  DeviceTimeline timeline({});
  const auto committed = submit(timeline, job(Priority::LOW, 0, {2, 2, 2}, 7));
  timeline.commit(committed);
  const auto open = submit(timeline, job(Priority::LOW, 0, {2, 2}, 11));
  EXPECT_EQ(timeline.placement(open).end, at(10));
  submit(timeline, job(Priority::HIGH, 1, {3}));  // at 2 it takes the device for 3 ms
  EXPECT_FALSE(timeline.placement(committed).stopped);
  EXPECT_EQ(timeline.placement(committed).end, at(9));  // history is kept, only moved later
  const TimelinePlacement o = timeline.placement(open);
  EXPECT_TRUE(o.stopped);  // it could start no later than 7, but the device is busy until 9
  EXPECT_EQ(o.end, at(7));
}

TEST(DeviceTimelineTest, AFullQueueRefusesWithResourceExhaustedTransient) {
  TimelineOptions options;
  options.queueDepth = 2;
  DeviceTimeline timeline(options);
  const auto first = submit(timeline, job(Priority::MEDIUM, 0, {5}));
  const auto second = submit(timeline, job(Priority::MEDIUM, 0, {5}));
  auto refused = timeline.submit(job(Priority::HIGH, 1, {1}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, hal::ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT);
  EXPECT_NE(refused.error().message.find("queue_depth = 2"), std::string::npos) << refused.error().message;
  // Once the first has left, there is room again.
  auto third = timeline.submit(job(Priority::MEDIUM, 6, {1}));
  EXPECT_TRUE(third.ok());
  // Committed jobs that are over are forgotten; one its owner has not committed yet stays.
  timeline.commit(first);
  timeline.commit(second);
  timeline.forgetBefore(at(100));
  ASSERT_EQ(timeline.snapshot().size(), 1u);
  EXPECT_EQ(timeline.snapshot()[0].id, *third);
}

TEST(DeviceTimelineTest, AJobPlacedBeforeItsCostWasKnownIsCorrectedOrTakenBack) {
  DeviceTimeline timeline({});
  const auto estimated = submit(timeline, job(Priority::MEDIUM, 0, {2, 2}));
  const auto next = submit(timeline, job(Priority::MEDIUM, 1, {1}));
  EXPECT_EQ(timeline.placement(next).start, at(4));
  timeline.updateSegments(estimated, {milliseconds(3), milliseconds(3)});
  EXPECT_EQ(timeline.placement(estimated).end, at(6));
  EXPECT_EQ(timeline.placement(next).start, at(6));
  timeline.remove(estimated);
  EXPECT_EQ(timeline.placement(next).start, at(1));
}

TEST(DeviceTimelineTest, AJobAwaitsTheCostOfUnknownWorkStartingBeforeItEnds) {
  DeviceTimeline timeline({});
  const auto low = submit(timeline, job(Priority::LOW, 0, {300, 300, 300}));
  TimelineJobSpec behindSpec = job(Priority::LOW, 50, {});
  behindSpec.costUnknown = true;
  const auto behind = submit(timeline, behindSpec);
  EXPECT_FALSE(timeline.awaitsUnknownCosts(low)) << "work queued behind it cannot move it";
  TimelineJobSpec knownSpec = job(Priority::HIGH, 100, {10});  // its cost as last time
  const auto known = submit(timeline, knownSpec);
  EXPECT_FALSE(timeline.awaitsUnknownCosts(low)) << "a cost known from before is taken as it is";
  TimelineJobSpec highSpec = job(Priority::HIGH, 100, {});
  highSpec.costUnknown = true;
  const auto high = submit(timeline, highSpec);
  EXPECT_EQ(timeline.placement(high).start, at(310));
  EXPECT_TRUE(timeline.awaitsUnknownCosts(low)) << "the HIGH job preempts it at 300 ms, for as long as it takes";
  EXPECT_FALSE(timeline.awaitsUnknownCosts(known)) << "it ends before the unknown one starts";
  timeline.updateSegments(high, {milliseconds(286)});
  EXPECT_EQ(timeline.placement(low).end, at(1196));
  EXPECT_FALSE(timeline.awaitsUnknownCosts(low));
  EXPECT_EQ(timeline.placement(behind).start, at(1196));
  EXPECT_FALSE(timeline.awaitsUnknownCosts(high)) << "the LOW job queued behind it starts after it";
}

// What must hold of every schedule, whatever the workload: each job's operations run in order,
// after its arrival, one engine at a time; no engine runs two at once; a job that has not run
// everything ran out of time (its deadline); and no engine stands idle while a job waits.
void expectScheduleHolds(const DeviceTimeline& timeline, const std::string& where) {
  struct Busy {
    TimePoint start, end;
  };
  std::map<uint32_t, std::vector<Busy>> engines;
  const auto entries = timeline.snapshot();
  for (const auto& entry : entries) {
    const TimelinePlacement& placed = entry.placement;
    size_t ran = 0;
    hal::Duration work{0};
    TimePoint previousEnd = entry.spec.arrival;
    for (const TimelineRun& run : placed.runs) {
      ASSERT_GE(run.start, previousEnd) << where << ": job " << entry.id << " ran out of order or before it arrived";
      ASSERT_EQ(run.firstSegment, ran) << where;
      ran += run.segmentCount;
      work += run.end - run.start;
      previousEnd = run.end;
      // A run of zero-length operations takes no time: it may sit at a boundary inside another
      // job's run (between two of its operations) on the same engine.
      if (run.end > run.start) engines[run.engine].push_back({run.start, run.end});
    }
    hal::Duration workFor{0};
    for (size_t i = 0; i < ran; ++i) workFor += entry.spec.segments[i];
    ASSERT_EQ(work, workFor) << where << ": job " << entry.id << "'s runs are not its operations back to back";
    if (placed.stopped) {
      ASSERT_LT(ran, entry.spec.segments.size()) << where;
      ASSERT_TRUE(entry.spec.deadline.has_value()) << where << ": job " << entry.id << " stopped without a deadline";
    } else {
      ASSERT_EQ(ran, entry.spec.segments.size()) << where << ": job " << entry.id << " neither finished nor stopped";
      ASSERT_EQ(placed.end, previousEnd) << where;
    }
  }
  for (auto& [engine, busy] : engines) {
    std::sort(busy.begin(), busy.end(), [](const Busy& a, const Busy& b) {
      return a.start != b.start ? a.start < b.start : a.end < b.end;
    });
    for (size_t i = 1; i < busy.size(); ++i) {
      ASSERT_GE(busy[i].start, busy[i - 1].end) << where << ": engine " << engine << " runs two operations at once";
    }
  }
  // Work conservation, checked inside each stretch a job waits (its edges are operation
  // boundaries, where engines change hands).
  auto allEnginesBusyAt = [&](TimePoint t) {
    for (uint32_t e = 0; e < timeline.options().engines; ++e) {
      const auto& busy = engines[e];
      if (std::none_of(busy.begin(), busy.end(), [t](const Busy& b) { return b.start <= t && t < b.end; })) return false;
    }
    return true;
  };
  for (const auto& entry : entries) {
    const TimelinePlacement& placed = entry.placement;
    TimePoint waitingSince = entry.spec.arrival;
    auto checkWait = [&](TimePoint until) {
      if (until - waitingSince >= hal::Duration(2)) {
        const TimePoint middle = waitingSince + (until - waitingSince) / 2;
        EXPECT_TRUE(allEnginesBusyAt(middle))
            << where << ": job " << entry.id << " waits at " << middle.time_since_epoch().count() << " ns by an idle engine";
      }
    };
    for (const TimelineRun& run : placed.runs) {
      checkWait(run.start);
      waitingSince = run.end;
    }
    if (placed.stopped) checkWait(placed.end);
  }
  // Priority with aging: whenever a job starts an operation, no job that waits from before that
  // moment to after it ranks better (arrival minus a credit per priority level, then first
  // submitted). Strictly before and after: history before an arrival was planned without it.
  auto rank = [&](const DeviceTimeline::Entry& entry) {
    return entry.spec.arrival - static_cast<int>(entry.spec.priority) * timeline.options().agingStep;
  };
  auto outranks = [&](const DeviceTimeline::Entry& a, const DeviceTimeline::Entry& b) {
    return rank(a) != rank(b) ? rank(a) < rank(b) : a.id < b.id;
  };
  for (const auto& waiting : entries) {
    std::vector<std::pair<TimePoint, TimePoint>> waits;  // open intervals
    TimePoint since = waiting.spec.arrival;
    for (const TimelineRun& run : waiting.placement.runs) {
      waits.emplace_back(since, run.start);
      since = run.end;
    }
    if (waiting.placement.stopped) waits.emplace_back(since, waiting.placement.end);
    for (const auto& starting : entries) {
      if (starting.id == waiting.id || outranks(starting, waiting)) continue;
      for (const TimelineRun& run : starting.placement.runs) {
        TimePoint start = run.start;
        for (size_t i = run.firstSegment; i < run.firstSegment + run.segmentCount; ++i) {
          for (const auto& [from, until] : waits) {
            EXPECT_FALSE(from < start && start < until)
                << where << ": job " << starting.id << " starts an operation at " << start.time_since_epoch().count()
                << " ns while job " << waiting.id << ", which outranks it, waits";
          }
          start += starting.spec.segments[i];
        }
      }
    }
  }
}

TEST(DeviceTimelineTest, EveryScheduleHoldsUnderRandomWorkloads) {
  std::mt19937_64 random(20261128);  // fixed: a failure names a workload that can be replayed
  auto below = [&](uint64_t n) { return static_cast<int64_t>(random() % n); };
  for (int workload = 0; workload < 400; ++workload) {
    TimelineOptions options;
    options.engines = 1 + static_cast<uint32_t>(below(3));
    options.agingStep = milliseconds(below(3) == 0 ? 0 : 1 + below(20));
    options.queueDepth = 8 + static_cast<uint32_t>(below(24));
    DeviceTimeline timeline(options);
    std::vector<DeviceTimeline::JobId> ids;
    int64_t now = 0;
    for (int step = 0; step < 60; ++step) {
      const std::string where = "workload " + std::to_string(workload) + " step " + std::to_string(step);
      const int64_t what = below(10);
      if (what < 6 || ids.empty()) {
        // Arrivals at the clock, or ahead of it as a chained client's are.
        std::vector<int64_t> segments(1 + below(6));
        for (int64_t& ms : segments) ms = below(5) == 0 ? 0 : below(10);
        std::optional<int64_t> deadline;
        const int64_t arrival = now + (below(3) == 0 ? below(30) : 0);
        if (below(3) == 0) deadline = arrival + below(40);
        auto id = timeline.submit(job(static_cast<Priority>(below(3)), arrival, segments, deadline));
        if (id.ok()) ids.push_back(*id);
      } else if (what == 6) {
        std::vector<hal::Duration> segments(1 + below(6));
        for (hal::Duration& d : segments) d = milliseconds(below(10));
        timeline.updateSegments(ids[below(ids.size())], segments);
      } else if (what == 7) {
        timeline.remove(ids[below(ids.size())]);
      } else if (what == 8) {
        timeline.commit(ids[below(ids.size())]);
      } else {
        now += below(10);
      }
      expectScheduleHolds(timeline, where);
      if (::testing::Test::HasFailure()) return;
      // whenFewerThan: from then on fewer than `count` jobs are still to end, and not before.
      const size_t count = 1 + below(6);
      const TimePoint room = timeline.whenFewerThan(count, at(now));
      auto stillToEnd = [&](TimePoint t) {
        size_t left = 0;
        for (const auto& entry : timeline.snapshot()) left += entry.placement.end > t ? 1 : 0;
        return left;
      };
      ASSERT_LT(stillToEnd(room), count) << where;
      if (room > at(now)) {
        ASSERT_GE(stillToEnd(room - hal::Duration(1)), count) << where;
      }
    }
  }
}

}  // namespace
}  // namespace nnremote::middleware
