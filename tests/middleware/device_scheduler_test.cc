// The scheduler's admission rules on a manual clock: where a job arrives when the clock has
// moved between its caller reading it and the job being placed.
#include "middleware/device_scheduler.h"

#include <gtest/gtest.h>

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

struct Scheduler {
  std::shared_ptr<ManualTimeSource> clock = std::make_shared<ManualTimeSource>(at(0));
  DeviceScheduler scheduler{[this] {
    SchedulerOptions options;
    options.time = clock;
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

}  // namespace
}  // namespace nnremote::middleware
