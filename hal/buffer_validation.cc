#include <set>
#include <tuple>

#include "hal/operand_types.h"
#include "hal/validation.h"

namespace nnremote::hal {

Result<std::vector<uint32_t>> combineDimensions(const std::vector<uint32_t>& a,
                                                const std::vector<uint32_t>& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  if (a.size() != b.size()) {
    return invalidArgument() << "conflicting rank: " << toString(a) << " and " << toString(b);
  }
  std::vector<uint32_t> combined(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != 0 && b[i] != 0 && a[i] != b[i]) {
      return invalidArgument() << "conflicting dimensions: " << toString(a) << " and " << toString(b);
    }
    combined[i] = a[i] != 0 ? a[i] : b[i];
  }
  return combined;
}

Result<BufferOperand> validateBufferRoles(const BufferDesc& desc, const std::vector<const Model*>& models,
                                          const std::vector<BufferRole>& inputRoles,
                                          const std::vector<BufferRole>& outputRoles) {
  if (inputRoles.empty() && outputRoles.empty()) {
    return invalidArgument() << "a buffer needs at least one input or output role";
  }
  std::optional<BufferOperand> result;
  std::set<std::tuple<uint32_t, uint32_t, bool>> seen;
  auto check = [&](const BufferRole& role, bool isInput, size_t index) -> Status {
    const std::string where = std::string(isInput ? "inputRoles[" : "outputRoles[") + std::to_string(index) + "]";
    if (role.modelIndex >= models.size() || models[role.modelIndex] == nullptr) {
      return invalidArgument() << where << ".modelIndex = " << role.modelIndex
                               << " does not name a valid prepared model of this device";
    }
    const Model& model = *models[role.modelIndex];
    const auto& ios = isInput ? model.main.inputIndexes : model.main.outputIndexes;
    if (role.ioIndex >= ios.size()) {
      return invalidArgument() << where << ".ioIndex = " << role.ioIndex << " is out of range (the model has "
                               << ios.size() << (isInput ? " inputs)" : " outputs)");
    }
    if (!(role.probability > 0.0f && role.probability <= 1.0f)) {
      return invalidArgument() << where << ".probability = " << role.probability << " is not in (0, 1]";
    }
    if (!seen.insert({role.modelIndex, role.ioIndex, isInput}).second) {
      return invalidArgument() << where << " repeats the role of model " << role.modelIndex << " "
                               << (isInput ? "input " : "output ") << role.ioIndex;
    }
    const Operand& operand = model.main.operands[ios[role.ioIndex]];
    if (!result) {
      result = BufferOperand{operand.type, operand.scale, operand.zeroPoint, operand.extraParams, desc.dimensions};
    } else if (operand.type != result->type || operand.scale != result->scale ||
               operand.zeroPoint != result->zeroPoint || !(operand.extraParams == result->extraParams)) {
      return invalidArgument() << where << " has an operand of type " << toString(operand.type) << ", scale "
                               << operand.scale << ", zero point " << operand.zeroPoint
                               << ", conflicting with the buffer's other roles";
    }
    auto combined = combineDimensions(result->dimensions, operand.dimensions);
    if (!combined.ok()) return withContext(combined.error(), where);
    result->dimensions = std::move(combined).value();
    return {};
  };
  for (size_t i = 0; i < inputRoles.size(); ++i) NN_RETURN_IF_ERROR(check(inputRoles[i], true, i));
  for (size_t i = 0; i < outputRoles.size(); ++i) NN_RETURN_IF_ERROR(check(outputRoles[i], false, i));
  if (!isTensor(result->type)) return invalidArgument() << "buffers hold tensors, not " << toString(result->type);
  if (!sizeOfData(result->type, result->dimensions)) return invalidArgument() << "the buffer is too large";
  return *result;
}

}  // namespace nnremote::hal
