// The timeline's rules, checked on simulated time alone: order, preemption at operation
// boundaries, aging, engines, deadlines and queue depth.
#include "middleware/device_timeline.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace nnremote::middleware
