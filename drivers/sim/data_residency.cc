// Where main's data lives on the simulated NPU (data_residency.h).
#include "drivers/sim/data_residency.h"

#include <utility>

#include "hal/operand_types.h"

namespace nnremote::sim {
namespace {

bool producedAtRunTime(hal::Operand::LifeTime lifetime) {
  return lifetime == hal::Operand::LifeTime::SUBGRAPH_INPUT ||
         lifetime == hal::Operand::LifeTime::SUBGRAPH_OUTPUT ||
         lifetime == hal::Operand::LifeTime::TEMPORARY_VARIABLE;
}

}  // namespace

std::vector<bool> placeConstantsInCache(const hal::Model& model, const NpuConfig& npu) {
  const uint64_t capacity = uint64_t{npu.parameter_cache().capacity_kib()} * 1024;
  std::vector<bool> placed(model.main.operands.size(), false);
  std::vector<bool> resident;
  uint64_t used = 0;
  bool full = false;
  for (const hal::Operation& operation : model.main.operations) {
    uint64_t bytes = 0;
    for (uint32_t input : operation.inputs) {
      const hal::Operand& operand = model.main.operands[input];
      const bool constant = operand.lifetime == hal::Operand::LifeTime::CONSTANT_COPY ||
                            operand.lifetime == hal::Operand::LifeTime::CONSTANT_REFERENCE ||
                            operand.lifetime == hal::Operand::LifeTime::POINTER;
      if (!constant || !hal::isTensor(operand.type) || placed[input]) continue;
      bytes += operand.location.length;
      placed[input] = true;
    }
    full = full || used + bytes > capacity;
    if (!full) used += bytes;
    resident.push_back(!full);
  }
  return resident;
}

HostTransfers findHostTransfers(const hal::Model& model, const NpuConfig& npu) {
  HostTransfers transfers;
  const auto& main = model.main;
  std::vector<bool> onHost(main.operands.size(), false), onDevice(main.operands.size(), false);
  for (uint32_t input : main.inputIndexes) onHost[input] = true;
  transfers.modelOutputs.insert(main.outputIndexes.begin(), main.outputIndexes.end());
  for (const hal::Operation& operation : main.operations) {
    const bool hostCpu = runsOnHostCpu(npu, operation.type);
    std::vector<bool>& here = hostCpu ? onHost : onDevice;
    std::vector<uint32_t> crossing;
    for (uint32_t input : operation.inputs) {
      if (!producedAtRunTime(main.operands[input].lifetime) || here[input]) continue;
      crossing.push_back(input);
      here[input] = true;
    }
    transfers.crossingInputsOf.push_back(std::move(crossing));
    for (uint32_t output : operation.outputs) {
      here[output] = true;
      // An NPU operation's model outputs cross back to the host as it writes them.
      if (!hostCpu && transfers.modelOutputs.count(output)) onHost[output] = true;
    }
    transfers.writesCrossingOutputs.push_back(!hostCpu);
  }
  return transfers;
}

}  // namespace nnremote::sim
