// The simulated NPU's description: the NpuConfig message of npu_config.proto, its presets
// (configs/*.textproto, built into the binary), and loading from textproto files.
#ifndef NNREMOTE_DRIVERS_SIM_NPU_CONFIG_H_
#define NNREMOTE_DRIVERS_SIM_NPU_CONFIG_H_

#include <string>
#include <vector>

#include "drivers/sim/npu_config.pb.h"
#include "hal/result.h"
#include "hal/types.h"

namespace nnremote::sim {

// "{vendor}-{device_name}".
std::string deviceName(const NpuConfig& npu);
hal::DeviceType halDeviceType(const NpuConfig& npu);
inline double clockHz(const NpuConfig& npu) { return npu.clock_mhz() * 1e6; }
Dataflow dataflowOf(const NpuConfig& npu);
// Whether host_cpu runs operations of `type` instead of the NPU.
bool runsOnHostCpu(const NpuConfig& npu, hal::OperationType type);
// dram.capacity_mib in bytes (4 GiB when unset).
uint64_t deviceMemoryBytes(const NpuConfig& npu);
// engines, at least 1.
inline uint32_t engineCount(const NpuConfig& npu) { return npu.engines() == 0 ? 1 : npu.engines(); }

// Parses and checks a textproto NpuConfig; `origin` names it in error messages.
hal::Result<NpuConfig> parseNpuConfig(const std::string& textproto, const std::string& origin);

// The presets built from configs/*.textproto, by file name without extension.
std::vector<std::string> npuPresetNames();
hal::Result<NpuConfig> npuPreset(const std::string& name);

// A small edge NPU (preset "edge16") and a large one ("large128").
NpuConfig edgeNpuConfig();
NpuConfig largeNpuConfig();
// What the emulator serves when not told otherwise: edge16 and large128.
std::vector<NpuConfig> defaultNpuConfigs();

// Devices from a comma-separated list whose entries are preset names or paths to textproto
// files (anything containing '/' or ending in .textproto), or "default".
hal::Result<std::vector<NpuConfig>> npuConfigsFromList(const std::string& list);

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_NPU_CONFIG_H_
