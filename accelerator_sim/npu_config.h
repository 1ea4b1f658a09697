// The simulated NPU's description. This first-order model has a systolic array for
// multiply-accumulate work and a vector unit for everything else.
#ifndef NNREMOTE_ACCELERATOR_SIM_NPU_CONFIG_H_
#define NNREMOTE_ACCELERATOR_SIM_NPU_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hal/result.h"
#include "hal/types.h"

namespace nnremote::sim {

struct NpuConfig {
  std::string vendor = "nnremote";
  std::string deviceName = "npu";  // the device is named "{vendor}-{deviceName}"
  hal::DeviceType deviceType = hal::DeviceType::ACCELERATOR;
  uint32_t arrayRows = 16;
  uint32_t arrayColumns = 16;
  double clockHz = 800e6;
  uint32_t vectorLanes = 16;

  std::string fullName() const { return vendor + "-" + deviceName; }
  double macsPerSecond() const { return double(arrayRows) * arrayColumns * clockHz; }
};

// A small edge NPU: 16x16 array at 800 MHz, 16 vector lanes.
NpuConfig edgeNpuConfig();
// A large datacenter NPU: 128x128 array at 1 GHz, 256 vector lanes.
NpuConfig largeNpuConfig();
// The devices the emulator serves when not told otherwise: both of the above.
std::vector<NpuConfig> defaultNpuConfigs();

// Devices from a comma-separated list of preset names ("edge16", "large128"), or "default".
hal::Result<std::vector<NpuConfig>> npuConfigsFromList(const std::string& list);

}  // namespace nnremote::sim

#endif  // NNREMOTE_ACCELERATOR_SIM_NPU_CONFIG_H_
