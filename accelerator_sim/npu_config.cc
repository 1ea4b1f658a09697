#include "accelerator_sim/npu_config.h"

#include <algorithm>

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

hal::Result<std::vector<NpuConfig>> npuConfigsFromList(const std::string& list) {
  if (list.empty() || list == "default") return defaultNpuConfigs();
  std::vector<NpuConfig> configs;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t end = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, end - start);
    if (name == "edge16") {
      configs.push_back(edgeNpuConfig());
    } else if (name == "large128") {
      configs.push_back(largeNpuConfig());
    } else {
      return hal::makeError(hal::ErrorStatus::INVALID_ARGUMENT)
             << "unknown NPU preset '" << name << "' (known: edge16, large128, default)";
    }
    start = end + 1;
  }
  return configs;
}

}  // namespace nnremote::sim
