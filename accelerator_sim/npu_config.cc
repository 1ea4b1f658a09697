#include "accelerator_sim/npu_config.h"

namespace nnremote::sim {

NpuConfig edgeNpuConfig() {
  NpuConfig config;
  config.deviceName = "edge16";
  config.arrayRows = 16;
  config.arrayColumns = 16;
  config.clockHz = 800e6;
  config.vectorLanes = 16;
  return config;
}

NpuConfig largeNpuConfig() {
  NpuConfig config;
  config.deviceName = "large128";
  config.arrayRows = 128;
  config.arrayColumns = 128;
  config.clockHz = 1e9;
  config.vectorLanes = 256;
  return config;
}

std::vector<NpuConfig> defaultNpuConfigs() { return {edgeNpuConfig(), largeNpuConfig()}; }

}  // namespace nnremote::sim
