// The scheduler's rules on a manual clock: where a job arrives when the clock has moved between
// its caller reading it and the job being placed, and when a paced job's end is final.
#include "middleware/device_scheduler.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

namespace nnremote::middleware {
namespace {

using std::chrono::milliseconds;
using hal::TimePoint;

TimePoint at(int64_t ms) { return TimePoint(milliseconds(ms)); }
// Milliseconds on the manual clock, which gtest prints readably (a TimePoint it prints as bytes).
int64_t ms(TimePoint t) { return std::chrono::duration_cast<milliseconds>(t.time_since_epoch()).count(); }

TimelineJobSpec job(TimePoint arrival, int64_t segmentMs, std::optional<TimePoint> deadline = std::nullopt) {
  TimelineJobSpec spec;
  spec.arrival = arrival;
  spec.segments = {milliseconds(segmentMs)};
  spec.deadline = deadline;
  return spec;
}

// Placed before anything is known of its cost, as an execution's first run is.
TimelineJobSpec ofUnknownCost(hal::Priority priority, TimePoint arrival) {
  TimelineJobSpec spec;
  spec.priority = priority;
  spec.arrival = arrival;
  spec.costUnknown = true;
  return spec;
}

struct Scheduler {
  explicit Scheduler(bool paced = false) : paced(paced) {}
  bool paced;
  std::shared_ptr<ManualTimeSource> clock = std::make_shared<ManualTimeSource>(at(0));
  DeviceScheduler scheduler{[this] {
    SchedulerOptions options;
    options.time = clock;
    options.paceRealtime = paced;
    return options;
  }()};
};

TEST(DeviceSchedulerTest, AJobWhoseArrivalTheClockPassedBeforeItWasPlacedArrivesNow) {
  // A client's next execution follows its previous one, which ends at 10 ms: that is the arrival
  // its caller reads. Before it is placed the clock jumps to 100 ms, and the previous job, ended,
  // is forgotten. Placed at 10 ms it would run in the past; it arrives at 100 ms, and its
  // deadline moves with it.
  Scheduler s;
  auto first = s.scheduler.run(job(at(0), 10));
  ASSERT_TRUE(first.ok()) << first.error().message;
  const TimePoint readArrival = s.scheduler.endOf(first->id, at(0));
  ASSERT_EQ(ms(readArrival), 10);
  s.clock->set(at(100));
  auto next = s.scheduler.run(job(readArrival, 5, readArrival + milliseconds(20)));
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_EQ(ms(next->placement.arrival), 100);
  EXPECT_EQ(ms(next->placement.start), 100);
  EXPECT_EQ(ms(next->placement.end), 105);
  EXPECT_FALSE(next->placement.stopped) << "its 20 ms to the deadline moved with its arrival";
}

TEST(DeviceSchedulerTest, AJobArrivingAheadOfTheClockKeepsItsArrival) {
  Scheduler s;
  auto first = s.scheduler.run(job(at(0), 10));
  ASSERT_TRUE(first.ok()) << first.error().message;
  auto next = s.scheduler.run(job(at(10), 5));
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_EQ(ms(next->placement.arrival), 10);
  EXPECT_EQ(ms(next->placement.end), 15);
}

TEST(DeviceSchedulerTest, APacedJobWaitsForTheCostOfWorkThatMayPreemptIt) {
  // A LOW execution and, 100 ms later, a HIGH one are placed before either is computed (cost
  // unknown). The clock is long past both when LOW's cost is known: 900 ms, so its end on the
  // estimates is 900 ms. But HIGH, still computing, preempts it at its first operation boundary;
  // LOW's result must wait for HIGH's cost and report the end that includes it.
  Scheduler s(/*paced=*/true);
  auto low = s.scheduler.place(ofUnknownCost(hal::Priority::LOW, at(0)));
  ASSERT_TRUE(low.ok()) << low.error().message;
  s.clock->set(at(100));
  auto high = s.scheduler.place(ofUnknownCost(hal::Priority::HIGH, at(100)));
  ASSERT_TRUE(high.ok()) << high.error().message;
  s.clock->set(at(10'000));
  // HIGH's computation ends once LOW's cost is on the timeline (bounded wait).
  auto highDone = std::async(std::launch::async, [&] {
    for (int i = 0; i < 5000; ++i) {
      const auto entries = s.scheduler.snapshot();
      if (entries.front().spec.segments.size() == 3) break;
      std::this_thread::sleep_for(milliseconds(1));
    }
    const std::vector<hal::Duration> highCost = {milliseconds(296)};
    return s.scheduler.finish(*high, &highCost);
  });
  const std::vector<hal::Duration> lowCost = {milliseconds(300), milliseconds(300), milliseconds(300)};
  const JobResult lowResult = s.scheduler.finish(*low, &lowCost);
  EXPECT_EQ(ms(lowResult.placement.end), 1196) << "LOW's result was returned before HIGH's cost was known";
  const JobResult highResult = highDone.get();
  EXPECT_EQ(ms(highResult.placement.start), 300);
  EXPECT_EQ(ms(highResult.placement.end), 596);
}

}  // namespace
}  // namespace nnremote::middleware
