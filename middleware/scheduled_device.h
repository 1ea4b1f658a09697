// A decorator that makes any hal::IDevice one busy NPU shared by all its clients, the way
// AOSP's Resilient* wrappers add recovery to any device: every preparation and execution goes
// through the device's DeviceScheduler, which orders them by priority and arrival on a
// simulated timeline, preempts at operation boundaries and judges deadlines on it.
//
// Deadlines (NN HAL 1.3):
// - already passed on arrival                        -> MISSED_DEADLINE_PERSISTENT, nothing runs;
// - the work alone is longer than the time left      -> MISSED_DEADLINE_PERSISTENT, not placed;
// - it would fit, but queueing or preemption make it  -> MISSED_DEADLINE_TRANSIENT, stopped at an
//   miss                                                 operation boundary.
// Either way the caller's outputs are untouched (StagedOutputs).
//
// Timing: timeOnDevice is the execution's own device time; timeInDriver adds its time in the
// queue and preempted, plus the host's driver work.
#ifndef NNREMOTE_MIDDLEWARE_SCHEDULED_DEVICE_H_
#define NNREMOTE_MIDDLEWARE_SCHEDULED_DEVICE_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hal/forwarding_device.h"
#include "middleware/device_scheduler.h"

namespace nnremote::middleware {

class ScheduledDevice final : public hal::ForwardingDevice {
 public:
  ScheduledDevice(hal::SharedDevice inner, std::shared_ptr<DeviceScheduler> scheduler);
  static hal::SharedDevice create(hal::SharedDevice inner, SchedulerOptions options);

  const DeviceScheduler& scheduler() const { return *scheduler_; }

  hal::Result<hal::SharedPreparedModel> prepareModel(
      const hal::Model& model, hal::ExecutionPreference preference, hal::Priority priority,
      const hal::OptionalTimePoint& deadline, const std::vector<hal::CacheFile>& modelCache,
      const std::vector<hal::CacheFile>& dataCache, const hal::CacheToken& token) const override;
  hal::Result<hal::SharedPreparedModel> prepareModelFromCache(
      const hal::OptionalTimePoint& deadline, const std::vector<hal::CacheFile>& modelCache,
      const std::vector<hal::CacheFile>& dataCache, const hal::CacheToken& token) const override;
  hal::Result<hal::SharedBuffer> allocate(
      const hal::BufferDesc& desc, const std::vector<hal::SharedPreparedModel>& preparedModels,
      const std::vector<hal::BufferRole>& inputRoles,
      const std::vector<hal::BufferRole>& outputRoles) const override;

 private:
  // Runs a preparation on the host, then places it on the timeline.
  template <typename Prepare>
  hal::Result<hal::SharedPreparedModel> schedulePreparation(hal::Priority priority,
                                                            const hal::OptionalTimePoint& deadline,
                                                            const hal::Model* model,
                                                            Prepare prepare) const;

  std::shared_ptr<DeviceScheduler> scheduler_;
};

// The prepared model a ScheduledDevice hands out; wraps the inner device's.
class ScheduledPreparedModel;
// The inner device's prepared model behind one of ours (allocate() passes those on), or
// `preparedModel` itself.
hal::SharedPreparedModel unwrapScheduled(const hal::SharedPreparedModel& preparedModel);

// The scheduler behind `device`, found through the decorators around it (hal::ForwardingDevice:
// recording, faults, graph dumps); null for a device without one (e.g. another emulator's).
const DeviceScheduler* findScheduler(const hal::SharedDevice& device);

}  // namespace nnremote::middleware

#endif  // NNREMOTE_MIDDLEWARE_SCHEDULED_DEVICE_H_
