#include "drivers/sim/npu_config.h"

#include "drivers/sim/extensions/extension_registry.h"
#include "hal/file_contents.h"
#include "hal/operand_types.h"
#include "hal/textproto.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

namespace nnremote::sim {

// Generated from configs/*.textproto by the npu_presets genrule.
const std::vector<std::pair<std::string, std::string>>& embeddedNpuPresets();

namespace {

using hal::invalidArgument;

constexpr double kSlowestClockMhz = 0.001;
constexpr double kFastestClockMhz = 1e6;

// Finite and above 0 (NaN and infinity are not; a textproto may spell both).
bool positiveNumber(double value) { return value > 0 && !std::isinf(value); }

hal::Status checkConfig(const NpuConfig& npu, const std::string& origin) {
  auto bad = [&](const std::string& what) -> hal::Status {
    return invalidArgument() << origin << ": " << what;
  };
  if (npu.vendor().empty() || npu.device_name().empty()) return bad("vendor and device_name are required");
  if (npu.vendor().find('-') != std::string::npos) return bad("vendor must not contain '-'");
  // From 1 kHz to 1 THz: a clock outside them is a typo, and timing then leaves every range.
  auto clockOk = [](double mhz) { return mhz >= kSlowestClockMhz && mhz <= kFastestClockMhz; };
  if (!clockOk(npu.clock_mhz())) return bad("clock_mhz must be a number from 0.001 to 1000000 (1 kHz to 1 THz)");
  if (npu.systolic_array().rows() == 0 || npu.systolic_array().columns() == 0) {
    return bad("systolic_array.rows and columns must be positive");
  }
  if (npu.vector_unit().lanes() == 0) return bad("vector_unit.lanes must be positive");
  if (npu.sram().ifmap_kib() == 0 || npu.sram().filter_kib() == 0 || npu.sram().ofmap_kib() == 0) {
    return bad("every sram size must be positive");
  }
  if (!(npu.dram().bytes_per_cycle() >= 0) || std::isinf(npu.dram().bytes_per_cycle())) {
    return bad("dram.bytes_per_cycle must be a number, 0 or more (0: unlimited)");
  }
  if (npu.has_host_link() && !positiveNumber(npu.host_link().bytes_per_cycle())) {
    return bad("host_link.bytes_per_cycle must be a positive number");
  }
  if (!(npu.vector_unit().default_cycles_per_element() >= 0) ||
      std::isinf(npu.vector_unit().default_cycles_per_element())) {
    return bad("vector_unit.default_cycles_per_element must be a number, 0 or more");
  }
  for (const auto& [name, cycles] : npu.vector_unit().cycles_per_element()) {
    if (!(cycles >= 0) || std::isinf(cycles)) {
      return bad("vector_unit.cycles_per_element[\"" + name + "\"] must be a number, 0 or more");
    }
  }
  if (npu.has_parameter_cache() && !npu.has_host_link()) {
    // Constants that do not fit must come from somewhere, at some speed.
    return bad("parameter_cache needs host_link, over which the constants that do not fit stream");
  }
  if (npu.has_host_cpu()) {
    const HostCpu& host = npu.host_cpu();
    if (!clockOk(host.clock_mhz())) {
      return bad("host_cpu.clock_mhz must be a number from 0.001 to 1000000 (1 kHz to 1 THz)");
    }
    if (!positiveNumber(host.cycles_per_element())) return bad("host_cpu.cycles_per_element must be a positive number");
    for (int i = 0; i < host.operations_size(); ++i) {
      if (!hal::operationTypeFromName(host.operations(i)).has_value()) {
        return bad("host_cpu.operations[" + std::to_string(i) + "]: '" + host.operations(i) +
                   "' is not an NNAPI operation name");
      }
    }
  }
  for (const std::string& extension : npu.extensions()) {
    if (findExtension(extension) == nullptr) {
      std::string known;
      for (const auto* definition : builtInExtensions()) known += " " + definition->description.name;
      return bad("extensions: '" + extension + "' is not an extension the simulator implements (it has:" + known +
                 ")");
    }
  }
  return {};
}

}  // namespace

std::string deviceName(const NpuConfig& npu) { return npu.vendor() + "-" + npu.device_name(); }

hal::DeviceType halDeviceType(const NpuConfig& npu) {
  return npu.device_type() == DEVICE_TYPE_UNSPECIFIED
             ? hal::DeviceType::ACCELERATOR
             : static_cast<hal::DeviceType>(npu.device_type());
}

Dataflow dataflowOf(const NpuConfig& npu) {
  const Dataflow dataflow = npu.systolic_array().dataflow();
  return dataflow == DATAFLOW_UNSPECIFIED ? OUTPUT_STATIONARY : dataflow;
}

bool runsOnHostCpu(const NpuConfig& npu, hal::OperationType type) {
  if (!npu.has_host_cpu()) return false;
  const auto& names = npu.host_cpu().operations();
  return std::find(names.begin(), names.end(), hal::toString(type)) != names.end();
}

uint64_t deviceMemoryBytes(const NpuConfig& npu) {
  const uint64_t mib = npu.dram().capacity_mib() == 0 ? 4096 : npu.dram().capacity_mib();
  return mib << 20;
}

hal::Result<NpuConfig> parseNpuConfig(const std::string& textproto, const std::string& origin) {
  NpuConfig npu;
  NN_RETURN_IF_ERROR(hal::parseTextProto(textproto, origin, &npu));
  if (npu.cores() == 0) npu.set_cores(1);
  if (npu.vector_unit().default_cycles_per_element() == 0) {
    npu.mutable_vector_unit()->set_default_cycles_per_element(1);
  }
  NN_RETURN_IF_ERROR(checkConfig(npu, origin));
  return npu;
}

std::vector<std::string> npuPresetNames() {
  std::vector<std::string> names;
  for (const auto& [name, text] : embeddedNpuPresets()) names.push_back(name);
  return names;
}

hal::Result<NpuConfig> npuPreset(const std::string& name) {
  for (const auto& [presetName, text] : embeddedNpuPresets()) {
    if (presetName == name) return parseNpuConfig(text, "preset " + name);
  }
  auto error = invalidArgument();
  error << "unknown NPU preset '" << name << "' (presets:";
  for (const auto& known : npuPresetNames()) error << " " << known;
  return error << "; or give a path to a .textproto file)";
}

NpuConfig edgeNpuConfig() { return npuPreset("edge16").value(); }
NpuConfig largeNpuConfig() { return npuPreset("large128").value(); }
std::vector<NpuConfig> defaultNpuConfigs() { return {edgeNpuConfig(), largeNpuConfig()}; }

hal::Result<std::vector<NpuConfig>> npuConfigsFromList(const std::string& list) {
  if (list.empty() || list == "default") return defaultNpuConfigs();
  std::vector<NpuConfig> configs;
  std::stringstream entries(list);
  std::string entry;
  while (std::getline(entries, entry, ',')) {
    const bool isFile = entry.find('/') != std::string::npos ||
                        (entry.size() > 10 && entry.substr(entry.size() - 10) == ".textproto");
    if (!isFile) {
      NN_ASSIGN_OR_RETURN(NpuConfig npu, npuPreset(entry));
      configs.push_back(std::move(npu));
      continue;
    }
    auto text = hal::readFileContents(entry);
    if (!text.ok()) return hal::withContext(text.error(), "NPU config");
    NN_ASSIGN_OR_RETURN(NpuConfig npu, parseNpuConfig(*text, entry));
    configs.push_back(std::move(npu));
  }
  for (size_t i = 0; i < configs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (deviceName(configs[i]) == deviceName(configs[j])) {
        return invalidArgument() << "two devices are named " << deviceName(configs[i]);
      }
    }
  }
  return configs;
}

}  // namespace nnremote::sim
