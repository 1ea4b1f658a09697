// ScheduledDevice over a device that times its work on the host (a backend library, served in
// process or isolated: no preparation-time function, no device time of its own): on a clock the
// test moves by hand, a preparation or execution that took 300 ms occupies the device for those
// 300 ms from its arrival, not for 300 ms more after it returned.
#include "middleware/scheduled_device.h"

#include <gtest/gtest.h>

#include <future>

#include "drivers/sim/npu_config.h"
#include "drivers/sim/sim_device.h"
#include "hal/forwarding_device.h"
#include "hal/forwarding_prepared_model.h"
#include "hal/memory.h"
#include "testing/add_model.h"

namespace nnremote::middleware {
namespace {

using std::chrono::milliseconds;

constexpr hal::Duration kTakes = milliseconds(300);

// An execution that takes kTakes on `clock` and reports no timing: the scheduler has only the
// host time it took.
class HostTimedPreparedModel final : public hal::ForwardingPreparedModel {
 public:
  HostTimedPreparedModel(hal::SharedPreparedModel inner, std::shared_ptr<ManualTimeSource> clock)
      : ForwardingPreparedModel(std::move(inner)), clock_(std::move(clock)) {}

  hal::Result<hal::ExecutionOutcome> execute(const hal::Request& request, hal::MeasureTiming,
                                             const hal::OptionalTimePoint& deadline,
                                             const hal::OptionalDuration& loopTimeoutDuration) const override {
    clock_->advance(kTakes);
    auto outcome = inner()->execute(request, hal::MeasureTiming::NO, deadline, loopTimeoutDuration);
    if (outcome.ok()) outcome->profile.reset();
    return outcome;
  }

 private:
  const std::shared_ptr<ManualTimeSource> clock_;
};

// The simulator, whose preparations and executions take kTakes on `clock`, as a slow library's
// (or a restarting backend host's) take host time.
class HostTimedDevice final : public hal::ForwardingDevice {
 public:
  explicit HostTimedDevice(std::shared_ptr<ManualTimeSource> clock)
      : ForwardingDevice(sim::SimDevice::create(sim::edgeNpuConfig())), clock_(std::move(clock)) {}

  hal::Result<hal::SharedPreparedModel> prepareModel(const hal::Model& model, hal::ExecutionPreference preference,
                                                     hal::Priority priority, const hal::OptionalTimePoint& deadline,
                                                     const std::vector<hal::CacheFile>& modelCache,
                                                     const std::vector<hal::CacheFile>& dataCache,
                                                     const hal::CacheToken& token) const override {
    clock_->advance(kTakes);
    NN_ASSIGN_OR_RETURN(hal::SharedPreparedModel prepared,
                        inner()->prepareModel(model, preference, priority, deadline, modelCache, dataCache, token));
    return hal::SharedPreparedModel(std::make_shared<HostTimedPreparedModel>(std::move(prepared), clock_));
  }

 private:
  const std::shared_ptr<ManualTimeSource> clock_;
};

struct Stack {
  explicit Stack(bool paced) {
    SchedulerOptions options;
    options.time = clock;
    options.paceRealtime = paced;  // no preparationTime: preparations are timed on the clock
    device = ScheduledDevice::create(std::make_shared<HostTimedDevice>(clock), options);
    scheduler = &dynamic_cast<const ScheduledDevice&>(*device).scheduler();
  }
  hal::Result<hal::SharedPreparedModel> prepare(const hal::Model& model = testing::twoInputAddModel()) const {
    return device->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                                std::nullopt, {}, {}, {});
  }
  static hal::Result<hal::ExecutionOutcome> execute(const hal::SharedPreparedModel& prepared) {
    auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
    if (!io.ok()) return io.error();
    auto outcome = prepared->execute(io->request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
    if (outcome.ok() && hal::fromMemory<float>(io->outputs[0], 2) != std::vector<float>{11, 22}) {
      return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "wrong sums";
    }
    return outcome;
  }
  // The last job on the timeline.
  DeviceTimeline::Entry last() const {
    auto timeline = scheduler->snapshot();
    return timeline.empty() ? DeviceTimeline::Entry{} : timeline.back();
  }

  std::shared_ptr<ManualTimeSource> clock = std::make_shared<ManualTimeSource>(hal::TimePoint(std::chrono::hours(1)));
  hal::SharedDevice device;
  const DeviceScheduler* scheduler = nullptr;
};

// Milliseconds after `from`, which gtest prints readably.
int64_t msAfter(hal::TimePoint from, hal::TimePoint t) {
  return std::chrono::duration_cast<milliseconds>(t - from).count();
}

TEST(ScheduledDeviceTest, HostTimedWorkOccupiesTheDeviceFromItsArrivalForAsLongAsItTook) {
  Stack stack(/*paced=*/false);
  const hal::TimePoint start = stack.clock->now();
  auto prepared = stack.prepare();
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  const auto preparation = stack.last();
  EXPECT_EQ(preparation.spec.label, "preparation");
  EXPECT_EQ(msAfter(start, preparation.placement.arrival), 0);
  EXPECT_EQ(msAfter(start, preparation.placement.end), 300) << "it ends when the preparation returned";

  // Its first execution (of a cost the scheduler does not know yet), and the next.
  for (int run = 1; run <= 2; ++run) {
    const hal::TimePoint called = stack.clock->now();
    auto outcome = Stack::execute(*prepared);
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    const auto execution = stack.last();
    EXPECT_EQ(execution.spec.label, "execution");
    EXPECT_EQ(msAfter(called, execution.placement.arrival), 0) << "run " << run;
    EXPECT_EQ(msAfter(called, execution.placement.start), 0) << "run " << run << " waited for nothing";
    EXPECT_EQ(msAfter(called, execution.placement.end), 300) << "run " << run;
    ASSERT_TRUE(outcome->timing.timeInDriver.has_value());
    EXPECT_EQ(std::chrono::duration_cast<milliseconds>(*outcome->timing.timeInDriver).count(), 300) << "run " << run;
  }
}

TEST(ScheduledDeviceTest, PacedHostTimedWorkReturnsWhenItIsDone) {
  // Paced, work returns at its end on the timeline. Timed by the clock, that end has passed when
  // the work returns: the client does not wait as long again (the clock does not move on its
  // own here, so a second wait would never end).
  Stack stack(/*paced=*/true);
  auto preparingAndRunning = std::async(std::launch::async, [&]() -> hal::Status {
    NN_ASSIGN_OR_RETURN(hal::SharedPreparedModel prepared, stack.prepare());
    return Stack::execute(prepared).status();
  });
  const bool returned = preparingAndRunning.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  if (!returned) stack.clock->advance(std::chrono::hours(1));  // lets it return, so the test ends
  ASSERT_TRUE(returned) << "paced, the work waits on the clock for time it has already taken";
  const hal::Status status = preparingAndRunning.get();
  EXPECT_TRUE(status.ok()) << status.error().message;
}

TEST(ScheduledDeviceTest, FailedWorkLeavesTheTimeline) {
  Stack stack(/*paced=*/false);
  hal::Model invalid = testing::twoInputAddModel();
  invalid.main.operations[0].type = hal::OperationType::CONV_2D;  // the simulator refuses it
  ASSERT_FALSE(stack.prepare(invalid).ok());
  EXPECT_TRUE(stack.scheduler->snapshot().empty());

  auto prepared = stack.prepare();
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {4});  // output too small
  ASSERT_TRUE(io.ok());
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
  ASSERT_FALSE(outcome.ok());
  for (const auto& job : stack.scheduler->snapshot()) EXPECT_NE(job.spec.label, "execution") << "the failed one left";
}

// A device whose work takes longer than durations can say (the simulator at its slowest clock,
// an element costing 10^15 cycles) holds the timeline for at most about 13 days per job, so job
// after job its times add up on the clock instead of wrapping around to negative ones.
TEST(ScheduledDeviceTest, WorkTooLongForTheClockHoldsTheDeviceForABoundedTime) {
  sim::NpuConfig npu = sim::edgeNpuConfig();
  npu.set_clock_mhz(0.001);
  npu.mutable_vector_unit()->set_default_cycles_per_element(1e15);
  SchedulerOptions options;
  options.time = std::make_shared<ManualTimeSource>(hal::TimePoint(std::chrono::hours(1)));
  options.preparationTime = [npu](const hal::Model& model) { return sim::preparationTime(model, npu); };
  const hal::SharedDevice device = ScheduledDevice::create(sim::SimDevice::create(npu), options);
  auto prepared = device->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                       hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  const hal::Duration longestJob{int64_t{1} << 50};
  const DeviceScheduler& scheduler = dynamic_cast<const ScheduledDevice&>(*device).scheduler();
  for (int run = 1; run <= 3; ++run) {
    auto outcome = Stack::execute(*prepared);
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    ASSERT_TRUE(outcome->timing.timeOnDevice.has_value() && outcome->timing.timeInDriver.has_value());
    EXPECT_EQ(*outcome->timing.timeOnDevice, longestJob) << "run " << run;
    EXPECT_GE(*outcome->timing.timeInDriver, longestJob) << "run " << run;
    EXPECT_LT(*outcome->timing.timeInDriver, 2 * longestJob) << "run " << run;
    // Unpaced, each run arrives as the last one ends on the timeline: they add up there.
    const auto last = scheduler.snapshot().back().placement;
    EXPECT_EQ(last.end - last.start, longestJob) << "run " << run;
    EXPECT_GE(last.end - hal::TimePoint(std::chrono::hours(1)), run * longestJob) << "run " << run;
  }
}

}  // namespace
}  // namespace nnremote::middleware
