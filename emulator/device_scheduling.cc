#include "emulator/device_scheduling.h"

#include "middleware/scheduled_device.h"

namespace nnremote::emulator {

hal::SharedDevice scheduleDevice(hal::BackendDevice device, const DeviceServingOptions& options) {
  middleware::SchedulerOptions scheduling;
  scheduling.timeline.engines = device.engines;
  scheduling.timeline.queueDepth = options.scheduling.queueDepth;
  scheduling.timeline.agingStep = options.scheduling.priorityAgingStep;
  scheduling.paceRealtime = options.paceRealtime;
  scheduling.time = options.time;
  scheduling.preparationTime = std::move(device.preparationTime);
  return middleware::ScheduledDevice::create(std::move(device.device), std::move(scheduling));
}

}  // namespace nnremote::emulator
