#include "emulator/simulated_npus.h"

#include "drivers/sim/sim_device.h"

namespace nnremote::emulator {

hal::SharedDevice createSimulatedNpu(const sim::NpuConfig& npu, const SimulatedNpuOptions& options) {
  return scheduleDevice(sim::simBackendDevice(npu, options.cacheSecret), options);
}

std::vector<hal::SharedDevice> createSimulatedNpus(const std::vector<sim::NpuConfig>& npus,
                                                   const SimulatedNpuOptions& options) {
  std::vector<hal::SharedDevice> devices;
  for (const auto& npu : npus) devices.push_back(createSimulatedNpu(npu, options));
  return devices;
}

}  // namespace nnremote::emulator
