// Every device npu_emulator serves, whatever its backend, goes behind a scheduler of its own
// (middleware::ScheduledDevice): one busy device shared by all clients, with priorities,
// deadlines, queue limits and optional real-time pacing.
#ifndef NNREMOTE_EMULATOR_DEVICE_SCHEDULING_H_
#define NNREMOTE_EMULATOR_DEVICE_SCHEDULING_H_

#include <memory>

#include "emulator/server_config.h"
#include "hal/backend_abi.h"
#include "hal/compilation_cache.h"
#include "middleware/time_source.h"

namespace nnremote::emulator {

struct DeviceServingOptions {
  bool paceRealtime = false;
  SchedulingLimits scheduling;
  std::shared_ptr<const middleware::TimeSource> time = middleware::hostClock();
  // Seals the devices' compilation caches (npu_emulator --state-dir keeps it across restarts).
  hal::CacheSecret cacheSecret = hal::randomCacheSecret();
};

hal::SharedDevice scheduleDevice(hal::BackendDevice device, const DeviceServingOptions& options);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_DEVICE_SCHEDULING_H_
