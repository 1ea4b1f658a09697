// The simulated NPUs in process, each behind its own scheduler as npu_emulator serves them: what
// `nnremote` without --target and the tests serve. (npu_emulator itself loads the simulator as
// a backend library, drivers/sim/sim_backend.so.)
#ifndef NNREMOTE_EMULATOR_SIMULATED_NPUS_H_
#define NNREMOTE_EMULATOR_SIMULATED_NPUS_H_

#include <vector>

#include "drivers/sim/npu_config.h"
#include "emulator/device_scheduling.h"
#include "hal/i_device.h"

namespace nnremote::emulator {

using SimulatedNpuOptions = DeviceServingOptions;

hal::SharedDevice createSimulatedNpu(const sim::NpuConfig& npu, const SimulatedNpuOptions& options = {});
std::vector<hal::SharedDevice> createSimulatedNpus(const std::vector<sim::NpuConfig>& npus,
                                                   const SimulatedNpuOptions& options = {});

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_SIMULATED_NPUS_H_
