// ScheduledDevice over a device with no preparation-time function (a backend library, served in
// process or isolated), whose preparations the timeline charges at the host time they took: on a
// clock the test moves by hand, a preparation that took 300 ms occupies the device for those
// 300 ms from its arrival, not for 300 ms more after it returned.
#include "middleware/scheduled_device.h"

#include <gtest/gtest.h>

#include <future>

#include "drivers/sim/npu_config.h"
#include "drivers/sim/sim_device.h"
#include "hal/forwarding_device.h"
#include "hal/memory.h"
#include "testing/add_model.h"

namespace nnremote::middleware {
namespace {

using std::chrono::milliseconds;

constexpr hal::Duration kPreparationTakes = milliseconds(300);

// The simulator, whose preparations take kPreparationTakes on `clock` (as a slow library's, or a
// restarting backend host's, take host time).
class SlowToPrepareDevice final : public hal::ForwardingDevice {
 public:
  explicit SlowToPrepareDevice(std::shared_ptr<ManualTimeSource> clock)
      : ForwardingDevice(sim::SimDevice::create(sim::edgeNpuConfig())), clock_(std::move(clock)) {}

  hal::Result<hal::SharedPreparedModel> prepareModel(const hal::Model& model, hal::ExecutionPreference preference,
                                                     hal::Priority priority, const hal::OptionalTimePoint& deadline,
                                                     const std::vector<hal::CacheFile>& modelCache,
                                                     const std::vector<hal::CacheFile>& dataCache,
                                                     const hal::CacheToken& token) const override {
    clock_->advance(kPreparationTakes);
    return inner()->prepareModel(model, preference, priority, deadline, modelCache, dataCache, token);
  }

 private:
  const std::shared_ptr<ManualTimeSource> clock_;
};

struct Stack {
  explicit Stack(bool paced) {
    SchedulerOptions options;
    options.time = clock;
    options.paceRealtime = paced;  // no preparationTime: preparations are timed on the clock
    device = ScheduledDevice::create(std::make_shared<SlowToPrepareDevice>(clock), options);
    scheduler = &dynamic_cast<const ScheduledDevice&>(*device).scheduler();
  }
  hal::Result<hal::SharedPreparedModel> prepare() const {
    return device->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  }
  std::shared_ptr<ManualTimeSource> clock = std::make_shared<ManualTimeSource>(hal::TimePoint(std::chrono::hours(1)));
  hal::SharedDevice device;
  const DeviceScheduler* scheduler = nullptr;
};

TEST(ScheduledDeviceTest, AHostTimedPreparationOccupiesTheDeviceFromItsArrival) {
  Stack stack(/*paced=*/false);
  const hal::TimePoint arrival = stack.clock->now();
  auto prepared = stack.prepare();
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  const auto timeline = stack.scheduler->snapshot();
  ASSERT_EQ(timeline.size(), 1u);
  EXPECT_EQ(timeline[0].spec.label, "preparation");
  EXPECT_TRUE(timeline[0].placement.arrival == arrival);
  EXPECT_TRUE(timeline[0].placement.end == arrival + kPreparationTakes) << "ends when the preparation returned";

  // So an execution right after it does not queue behind it.
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
  ASSERT_TRUE(io.ok());
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_TRUE(outcome->timing.timeInDriver.has_value());
  EXPECT_LT(*outcome->timing.timeInDriver, milliseconds(100)) << "no simulated wait behind the preparation";
  const auto after = stack.scheduler->snapshot();
  ASSERT_FALSE(after.empty());
  EXPECT_EQ(after.back().spec.label, "execution");
  EXPECT_TRUE(after.back().placement.start == after.back().placement.arrival) << "it started as it arrived";
}

TEST(ScheduledDeviceTest, APacedHostTimedPreparationReturnsWhenItIsDone) {
  // Paced, a preparation returns at its end on the timeline. Timed by the clock, that end has
  // passed when the preparation returns: the client does not wait as long again (the clock does
  // not move on its own here, so a second wait would never end).
  Stack stack(/*paced=*/true);
  auto preparing = std::async(std::launch::async, [&] { return stack.prepare(); });
  const bool returned = preparing.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  if (!returned) stack.clock->advance(std::chrono::hours(1));  // lets it return, so the test ends
  ASSERT_TRUE(returned) << "the preparation waits on the clock for time it has already taken";
  auto prepared = preparing.get();
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
}

TEST(ScheduledDeviceTest, AFailedPreparationLeavesTheTimelineEmpty) {
  Stack stack(/*paced=*/false);
  hal::Model invalid = testing::twoInputAddModel();
  invalid.main.operations[0].type = hal::OperationType::CONV_2D;  // the simulator refuses it
  auto prepared = stack.device->prepareModel(invalid, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                             hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  ASSERT_FALSE(prepared.ok());
  EXPECT_TRUE(stack.scheduler->snapshot().empty());
}

}  // namespace
}  // namespace nnremote::middleware
