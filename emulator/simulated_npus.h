// The simulated NPUs npu_emulator serves: each accelerator_sim device behind its own scheduler
// (scheduler::ScheduledDevice), so every client of the emulator shares one busy NPU per device.
// Also what `nnremote` without --target and the tests serve.
#ifndef NNREMOTE_EMULATOR_SIMULATED_NPUS_H_
#define NNREMOTE_EMULATOR_SIMULATED_NPUS_H_

#include <memory>
#include <vector>

#include "accelerator_sim/npu_config.h"
#include "emulator/server_config.h"
#include "hal/compilation_cache.h"
#include "hal/i_device.h"
#include "scheduler/time_source.h"

namespace nnremote::emulator {

struct SimulatedNpuOptions {
  bool paceRealtime = false;
  SchedulingLimits scheduling;
  std::shared_ptr<const scheduler::TimeSource> time = scheduler::hostClock();
  // Seals the devices' compilation caches (npu_emulator --state-dir keeps it across restarts).
  hal::CacheSecret cacheSecret = hal::randomCacheSecret();
};

hal::SharedDevice createSimulatedNpu(const sim::NpuConfig& npu, const SimulatedNpuOptions& options = {});
std::vector<hal::SharedDevice> createSimulatedNpus(const std::vector<sim::NpuConfig>& npus,
                                                   const SimulatedNpuOptions& options = {});

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_SIMULATED_NPUS_H_
