#include "runtime/memory_desc.h"

#include <android/NeuralNetworks.h>

#include <algorithm>

#include "hal/operand_types.h"
#include "hal/validation.h"
#include "runtime/result_codes.h"

namespace nnremote::runtime {

int MemoryDesc::addRole(const Compilation& compilation, bool isInput, uint32_t index, float frequency) {
  const char* function = isInput ? "ANeuralNetworksMemoryDesc_addInputRole" : "ANeuralNetworksMemoryDesc_addOutputRole";
  if (finished_) return refuse(function, ANEURALNETWORKS_BAD_STATE, "the descriptor is finished");
  if (!compilation.usable()) return refuse(function, ANEURALNETWORKS_BAD_DATA, "the compilation is not finished");
  const MemoryRole role{&compilation, isInput, index};
  if (roles_.count(role)) return refuse(function, ANEURALNETWORKS_BAD_DATA, "the same role is given twice");
  const hal::Model::Subgraph& main = compilation.model().main;
  const std::vector<uint32_t>& ends = isInput ? main.inputIndexes : main.outputIndexes;
  if (index >= ends.size()) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA,
                  "index " + std::to_string(index) + " is not below the model's " + std::to_string(ends.size()) +
                      (isInput ? " inputs" : " outputs"));
  }
  const hal::Operand& operand = main.operands[ends[index]];
  if (operand_.has_value() && (operand.type != operand_->type || operand.scale != operand_->scale ||
                               operand.zeroPoint != operand_->zeroPoint ||
                               !(operand.extraParams == operand_->extraParams))) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA, "the operand's type differs from the other roles'");
  }
  if (!hal::isTensor(operand.type) && !dimensions_.empty()) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA, "a scalar operand, but the descriptor has dimensions");
  }
  auto combined = hal::combineDimensions(dimensions_, operand.dimensions);
  if (!combined.ok()) return refuse(function, ANEURALNETWORKS_BAD_DATA, "the operand's dimensions disagree");
  if (!(frequency > 0.0f && frequency <= 1.0f)) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA, "frequency " + std::to_string(frequency) + " is not in (0, 1]");
  }
  roles_.insert(role);
  for (const Compilation::StepRole& step : compilation.stepRoles(isInput, index)) {
    auto known = std::find(preparedModels_.begin(), preparedModels_.end(), step.prepared);
    const auto modelIndex = static_cast<uint32_t>(known - preparedModels_.begin());
    if (known == preparedModels_.end()) {
      preparedModels_.push_back(step.prepared);
      devices_.push_back(step.device);
    }
    (step.isInput ? inputRoles_ : outputRoles_).push_back({modelIndex, step.ioIndex, frequency});
  }
  anyExplicitDevices_ = anyExplicitDevices_ || compilation.explicitDevices();
  hal::Operand kept = operand;
  kept.dimensions = {};
  operand_ = std::move(kept);
  dimensions_ = std::move(combined).value();
  return ANEURALNETWORKS_NO_ERROR;
}

int MemoryDesc::setDimensions(const std::vector<uint32_t>& dimensions) {
  const char* function = "ANeuralNetworksMemoryDesc_setDimensions";
  if (finished_) return refuse(function, ANEURALNETWORKS_BAD_STATE, "the descriptor is finished");
  if (operand_.has_value() && !hal::isTensor(operand_->type) && !dimensions.empty()) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA, "dimensions for a scalar operand");
  }
  auto combined = hal::combineDimensions(dimensions_, dimensions);
  if (!combined.ok()) return refuse(function, ANEURALNETWORKS_BAD_DATA, "the dimensions disagree with the roles'");
  dimensions_ = std::move(combined).value();
  return ANEURALNETWORKS_NO_ERROR;
}

int MemoryDesc::finish() {
  const char* function = "ANeuralNetworksMemoryDesc_finish";
  if (finished_) return refuse(function, ANEURALNETWORKS_BAD_STATE, "the descriptor is finished");
  if (roles_.empty()) return refuse(function, ANEURALNETWORKS_BAD_DATA, "no role was given");
  finished_ = true;
  return ANEURALNETWORKS_NO_ERROR;
}

int MemoryDesc::allocate(Memory** memory) const {
  const char* function = "ANeuralNetworksMemory_createFromDesc";
  if (!finished_) return refuse(function, ANEURALNETWORKS_BAD_STATE, "the descriptor is not finished");
  auto use = std::make_shared<DescribedUse>(roles_, *operand_, dimensions_);
  // A device's own buffer, when one device runs every role.
  const bool oneDevice = !devices_.empty() && std::all_of(devices_.begin(), devices_.end(),
                                                          [&](const RuntimeDevice* d) { return d == devices_.front(); });
  hal::Error why = hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "the roles run on more than one device";
  if (oneDevice) {
    auto buffer = devices_.front()->device->allocate({dimensions_}, preparedModels_, inputRoles_, outputRoles_);
    if (buffer.ok()) {
      *memory = Memory::described(std::move(buffer).value(), std::move(use));
      return ANEURALNETWORKS_NO_ERROR;
    }
    why = buffer.error();
  }
  const size_t size = hal::sizeOfData(operand_->type, dimensions_).value_or(0);
  if (anyExplicitDevices_ || size == 0 || hal::isExtension(operand_->type)) {
    return refuse(function, ANEURALNETWORKS_OP_FAILED,
                  "no device memory (" + why.message + ") and no fallback: " +
                      (anyExplicitDevices_ ? "a role's compilation was made for chosen devices"
                                           : "the memory's size is not known"));
  }
  auto shared = hal::createSharedMemory(size);
  if (!shared.ok()) return refuse(function, ANEURALNETWORKS_OUT_OF_MEMORY, shared.error().message);
  *memory = Memory::described(std::move(shared).value(), std::move(use));
  return ANEURALNETWORKS_NO_ERROR;
}

}  // namespace nnremote::runtime
