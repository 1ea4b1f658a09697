// The ANeuralNetworksModel_* calls that build a model's draft operand by operand, each checked
// as it comes; finish() and the flattening into one hal::Model are in model_builder_finish.cc.
#include "runtime/model_builder.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "hal/control_flow_validation.h"
#include "hal/operand_types.h"
#include "hal/operation_signatures.h"
#include "hal/validation.h"
#include "hal/vlog.h"
#include "runtime/constant_values.h"
#include "runtime/extension_prefixes.h"

namespace nnremote::runtime {
namespace {

using hal::Operand;
using hal::OperandType;
using LifeTime = hal::Operand::LifeTime;

#define RETURN_IF_REFUSED(expr)                                  \
  do {                                                           \
    const int nn_code_ = (expr);                                 \
    if (nn_code_ != ANEURALNETWORKS_NO_ERROR) return nn_code_;   \
  } while (0)

// AOSP's limits on the number of operands and operations of one model.
constexpr size_t kMaxOperands = 0xFFFFFFFE;
constexpr size_t kMaxOperations = 0xFFFFFFFE;

const char* codeName(int code) {
  switch (code) {
    case ANEURALNETWORKS_BAD_DATA: return "ANEURALNETWORKS_BAD_DATA";
    case ANEURALNETWORKS_BAD_STATE: return "ANEURALNETWORKS_BAD_STATE";
    case ANEURALNETWORKS_UNEXPECTED_NULL: return "ANEURALNETWORKS_UNEXPECTED_NULL";
    case ANEURALNETWORKS_OUT_OF_MEMORY: return "ANEURALNETWORKS_OUT_OF_MEMORY";
    default: return "an error";
  }
}

bool hasKnownPrefix(int32_t code) { return ExtensionPrefixes::get().nameOf(prefixOf(code)).has_value(); }

// hal validates whole models, so one operand goes through hal's operand rules as the only input
// of a model whose one operation is an OEM_OPERATION (which hal leaves unchecked): any error is
// then the operand's. Messages name it "operand <index>" rather than main.operands[0].
hal::Status checkOperandAlone(Operand operand, uint32_t index) {
  hal::Model probe;
  operand.location = {};
  if (operand.type == OperandType::SUBGRAPH) {
    // hal pairs the SUBGRAPH type with the SUBGRAPH lifetime, naming a referenced subgraph.
    operand.lifetime = LifeTime::SUBGRAPH;
    probe.referenced.emplace_back();
  } else {
    operand.lifetime = LifeTime::SUBGRAPH_INPUT;
    probe.main.inputIndexes = {0};
  }
  // Per-channel scales come later (setOperandSymmPerChannelQuantParams; finish() checks they came).
  // Until then hal's other rules for the type are those of any unquantized tensor of bytes.
  if (operand.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL &&
      std::holds_alternative<Operand::NoParams>(operand.extraParams)) {
    if (operand.scale != 0.0f || operand.zeroPoint != 0) {
      return hal::invalidArgument() << "operand " << index << " is a TENSOR_QUANT8_SYMM_PER_CHANNEL, which takes "
                                    << "scale 0 and zero point 0 (got " << operand.scale << " and " << operand.zeroPoint
                                    << "); its scales come from setOperandSymmPerChannelQuantParams";
    }
    operand.type = OperandType::TENSOR_BOOL8;
  }
  probe.main.operands = {std::move(operand)};
  probe.main.operations = {{hal::OperationType::OEM_OPERATION, {}, {}}};
  hal::Status status = hal::validateModel(probe, /*allowPointers=*/false);
  if (status.ok()) return status;
  const std::string probeName = "main.operands[0]";
  std::string& message = status.error().message;
  if (message.compare(0, probeName.size(), probeName) == 0) {
    message.replace(0, probeName.size(), "operand " + std::to_string(index));
  }
  return status;
}

std::string describe(const Operand& operand) {
  return hal::toString(operand.type) + " " + hal::toString(operand.dimensions);
}

}  // namespace

int ModelBuilder::refuse(const char* function, int code, const std::string& why) {
  lastError_ = why;
  NN_VLOG(RUNTIME) << "ANeuralNetworksModel_" << function << ": " << codeName(code) << ": " << why;
  return code;
}

int ModelBuilder::checkMutable(const char* function) {
  if (finished_) return refuse(function, ANEURALNETWORKS_BAD_STATE, "the model is finished and can no longer change");
  if (invalid_) {
    return refuse(function, ANEURALNETWORKS_BAD_STATE, "finish() found the model invalid; it can no longer change");
  }
  return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::checkIndex(const char* function, int32_t index) {
  if (index < 0 || static_cast<size_t>(index) >= draft_.main.operands.size()) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA,
                  "operand index " + std::to_string(index) + " is out of range (the model has " +
                      std::to_string(draft_.main.operands.size()) + " operands)");
  }
  return ANEURALNETWORKS_NO_ERROR;
}

// The length of a constant value must be the operand's size, which needs every dimension.
int ModelBuilder::checkValueLength(const char* function, uint32_t index, size_t length) {
  const Operand& operand = draft_.main.operands[index];
  const std::string name = "operand " + std::to_string(index) + " (" + describe(operand) + ")";
  if (length > kMaxValueLength) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA, name + ": a value of " + std::to_string(length) +
                                                          " bytes exceeds the 4 GiB limit of an operand");
  }
  // Only the extension's device knows an extension type's size; an OEM scalar's is vendor-defined.
  if (hal::isExtension(operand.type) || operand.type == OperandType::OEM) return ANEURALNETWORKS_NO_ERROR;
  if (hal::hasUnspecifiedDimensions(operand)) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA, name + " has unspecified dimensions; a constant needs them all");
  }
  const uint32_t needed = *hal::sizeOfData(operand);  // addOperand checked it fits
  if (length != needed) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA,
                  name + " needs " + std::to_string(needed) + " bytes, got " + std::to_string(length));
  }
  return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::addOperand(const ANeuralNetworksOperandType* type) {
  const char* const function = "addOperand";
  if (type == nullptr) return refuse(function, ANEURALNETWORKS_UNEXPECTED_NULL, "type is NULL");
  RETURN_IF_REFUSED(checkMutable(function));
  // An unknown rank is dimensionCount 0 with dimensions NULL; anything else is a contradiction.
  if ((type->dimensionCount == 0) != (type->dimensions == nullptr)) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA,
                  "dimensionCount is " + std::to_string(type->dimensionCount) + " but dimensions is " +
                      (type->dimensions == nullptr ? "NULL" : "not NULL"));
  }
  const auto index = static_cast<uint32_t>(draft_.main.operands.size());
  if (index >= kMaxOperands) return refuse(function, ANEURALNETWORKS_BAD_DATA, "the model has too many operands");
  Operand operand;
  operand.type = static_cast<OperandType>(type->type);
  operand.dimensions.assign(type->dimensions, type->dimensions + type->dimensionCount);
  operand.scale = type->scale;
  operand.zeroPoint = type->zeroPoint;
  if (hal::isExtension(type->type)) {
    // hal leaves extension operands to the device; the NDK still wants a known type without
    // quantization (extension parameters go through setOperandExtensionData).
    if (!hasKnownPrefix(type->type)) {
      return refuse(function, ANEURALNETWORKS_BAD_DATA,
                    hal::toString(operand.type) + " has an extension prefix no getExtensionOperandType call returned");
    }
    if (type->scale != 0.0f || type->zeroPoint != 0) {
      return refuse(function, ANEURALNETWORKS_BAD_DATA, "an extension operand takes no scale or zero point");
    }
  } else if (hal::Status status = checkOperandAlone(operand, index); !status.ok()) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA, status.error().message);
  }
  draft_.main.operands.push_back(std::move(operand));
  return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::setOperandValue(int32_t index, const void* buffer, size_t length) {
  const char* const function = "setOperandValue";
  RETURN_IF_REFUSED(checkMutable(function));
  RETURN_IF_REFUSED(checkIndex(function, index));
  Operand& operand = draft_.main.operands[index];
  if (buffer == nullptr) {
    if (length != 0) {
      return refuse(function, ANEURALNETWORKS_BAD_DATA,
                    "buffer is NULL but length is " + std::to_string(length) + " (NULL and 0 omit an operand)");
    }
    operand.lifetime = LifeTime::NO_VALUE;
    operand.location = {};
    return ANEURALNETWORKS_NO_ERROR;
  }
  RETURN_IF_REFUSED(checkValueLength(function, index, length));
  const auto valueLength = static_cast<uint32_t>(length);
  if (length <= ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES) {
    operand.lifetime = LifeTime::CONSTANT_COPY;
    operand.location = {nullptr, 0, appendAligned(draft_.operandValues, buffer, length), valueLength, 0};
  } else {
    // Referenced, as the NDK allows: the application keeps the buffer alive and unchanged from
    // finish() on, so finish() copies it once into a pool (after AOSP), and the hal::Model holds
    // no pointer into the application. Until then hal's checks read it where it is.
    operand.lifetime = LifeTime::POINTER;
    operand.location = {buffer, 0, 0, valueLength, 0};
  }
  return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::setOperandValueFromMemory(int32_t index, const hal::SharedMemory& memory, size_t offset,
                                            size_t length) {
  const char* const function = "setOperandValueFromMemory";
  if (memory == nullptr) return refuse(function, ANEURALNETWORKS_UNEXPECTED_NULL, "memory is NULL");
  RETURN_IF_REFUSED(checkMutable(function));
  RETURN_IF_REFUSED(checkIndex(function, index));
  RETURN_IF_REFUSED(checkValueLength(function, index, length));
  if (offset > kMaxValueLength || uint64_t{offset} + length > memory->size()) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA,
                  "[" + std::to_string(offset) + ", " + std::to_string(uint64_t{offset} + length) +
                      ") is outside the memory (" + std::to_string(memory->size()) + " bytes)");
  }
  auto& pools = draft_.pools;
  const auto found = std::find_if(pools.begin(), pools.end(),
                                  [&](const hal::SharedMemory& pool) { return pool.get() == memory.get(); });
  const auto poolIndex = static_cast<uint32_t>(found - pools.begin());
  if (found == pools.end()) pools.push_back(memory);
  Operand& operand = draft_.main.operands[index];
  operand.lifetime = LifeTime::CONSTANT_REFERENCE;
  operand.location = {nullptr, poolIndex, static_cast<uint32_t>(offset), static_cast<uint32_t>(length), 0};
  return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::setOperandValueFromModel(int32_t index, const ModelBuilder* value) {
  const char* const function = "setOperandValueFromModel";
  if (value == nullptr) return refuse(function, ANEURALNETWORKS_UNEXPECTED_NULL, "value is NULL");
  RETURN_IF_REFUSED(checkMutable(function));
  if (!value->isFinished()) {
    return refuse(function, ANEURALNETWORKS_BAD_STATE, "the referenced model is not finished (or is invalid)");
  }
  RETURN_IF_REFUSED(checkIndex(function, index));
  const auto found = std::find(referencedModels_.begin(), referencedModels_.end(), value);
  const auto referenceIndex = static_cast<uint32_t>(found - referencedModels_.begin());
  if (found == referencedModels_.end()) {
    referencedModels_.push_back(value);
    draft_.referenced.push_back(value->draft_.main);  // what IF and WHILE are checked against
  }
  Operand& operand = draft_.main.operands[index];
  operand.lifetime = LifeTime::SUBGRAPH;
  operand.location = {};
  operand.location.offset = referenceIndex;
  return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::setOperandSymmPerChannelQuantParams(int32_t index,
                                                      const ANeuralNetworksSymmPerChannelQuantParams* channelQuant) {
  const char* const function = "setOperandSymmPerChannelQuantParams";
  if (channelQuant == nullptr) return refuse(function, ANEURALNETWORKS_UNEXPECTED_NULL, "channelQuant is NULL");
  RETURN_IF_REFUSED(checkMutable(function));
  RETURN_IF_REFUSED(checkIndex(function, index));
  Operand& operand = draft_.main.operands[index];
  const std::string name = "operand " + std::to_string(index) + " (" + describe(operand) + ")";
  if (operand.type != OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA, name + " is not a TENSOR_QUANT8_SYMM_PER_CHANNEL");
  }
  // Checked before scales[] is read, so a wrong count never reads past the application's array.
  const uint32_t channelDim = channelQuant->channelDim;
  if (channelDim >= operand.dimensions.size()) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA,
                  name + ": channelDim " + std::to_string(channelDim) + " is not one of its dimensions");
  }
  const uint32_t channels = operand.dimensions[channelDim];
  if (channels == 0 || channelQuant->scaleCount != channels || channelQuant->scales == nullptr) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA,
                  name + ": needs one scale per channel of a known channel dimension; got scaleCount " +
                      std::to_string(channelQuant->scaleCount) + (channelQuant->scales ? "" : " and scales NULL"));
  }
  Operand candidate = operand;
  candidate.extraParams = Operand::SymmPerChannelQuantParams{
      std::vector<float>(channelQuant->scales, channelQuant->scales + channels), channelDim};
  if (hal::Status status = checkOperandAlone(candidate, static_cast<uint32_t>(index)); !status.ok()) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA, status.error().message);
  }
  operand.extraParams = std::move(candidate.extraParams);
  return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::setOperandExtensionData(int32_t index, const void* data, size_t length) {
  const char* const function = "setOperandExtensionData";
  RETURN_IF_REFUSED(checkMutable(function));
  RETURN_IF_REFUSED(checkIndex(function, index));
  if ((data == nullptr) != (length == 0)) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA,
                  std::string("data is ") + (data ? "not NULL" : "NULL") + " but length is " + std::to_string(length) +
                      " (NULL and 0 clear the data)");
  }
  Operand& operand = draft_.main.operands[index];
  if (!hal::isExtension(operand.type)) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA,
                  "operand " + std::to_string(index) + " is a " + hal::toString(operand.type) +
                      ", not an extension type");
  }
  if (data == nullptr) {
    operand.extraParams = Operand::NoParams{};
  } else {
    const auto* bytes = static_cast<const uint8_t*>(data);
    operand.extraParams = Operand::ExtensionParams(bytes, bytes + length);
  }
  return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::addOperation(ANeuralNetworksOperationType type, uint32_t inputCount, const uint32_t* inputs,
                               uint32_t outputCount, const uint32_t* outputs) {
  const char* const function = "addOperation";
  if ((inputCount > 0 && inputs == nullptr) || (outputCount > 0 && outputs == nullptr)) {
    return refuse(function, ANEURALNETWORKS_UNEXPECTED_NULL, "inputs or outputs is NULL with a count above 0");
  }
  RETURN_IF_REFUSED(checkMutable(function));
  const std::string where = "operations[" + std::to_string(draft_.main.operations.size()) + "]";
  if (draft_.main.operations.size() >= kMaxOperations) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA, "the model has too many operations");
  }
  if (hal::isExtension(type) && !hasKnownPrefix(type)) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA,
                  where + ".type = " + hal::toString(static_cast<hal::OperationType>(type)) +
                      " has an extension prefix no getExtensionOperationType call returned");
  }
  hal::Operation operation{static_cast<hal::OperationType>(type), std::vector<uint32_t>(inputs, inputs + inputCount),
                           std::vector<uint32_t>(outputs, outputs + outputCount)};
  const size_t operandCount = draft_.main.operands.size();
  for (const auto* list : {&operation.inputs, &operation.outputs}) {
    for (size_t i = 0; i < list->size(); ++i) {
      if ((*list)[i] >= operandCount) {
        return refuse(function, ANEURALNETWORKS_BAD_DATA,
                      where + (list == &operation.inputs ? ".inputs[" : ".outputs[") + std::to_string(i) +
                          "] = " + std::to_string((*list)[i]) + " is out of range (the model has " +
                          std::to_string(operandCount) + " operands)");
      }
    }
  }
  // The draft is a hal::Model already, so hal's checks read it in place, without a copy.
  hal::Status status = hal::validateOperationSignature(draft_, draft_.main, operation, where).status();
  if (status.ok()) status = hal::validateControlFlowOperation(draft_, draft_.main, operation, where);
  if (!status.ok()) return refuse(function, ANEURALNETWORKS_BAD_DATA, status.error().message);
  draft_.main.operations.push_back(std::move(operation));
  return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::identifyInputsAndOutputs(uint32_t inputCount, const uint32_t* inputs, uint32_t outputCount,
                                           const uint32_t* outputs) {
  const char* const function = "identifyInputsAndOutputs";
  if ((inputCount > 0 && inputs == nullptr) || (outputCount > 0 && outputs == nullptr)) {
    return refuse(function, ANEURALNETWORKS_UNEXPECTED_NULL, "inputs or outputs is NULL with a count above 0");
  }
  RETURN_IF_REFUSED(checkMutable(function));
  std::vector<Operand>& operands = draft_.main.operands;
  std::vector<bool> listed(operands.size(), false);
  // All checked before any changes, so a refused call leaves the model as it was.
  for (const bool isInput : {true, false}) {
    const uint32_t count = isInput ? inputCount : outputCount;
    const uint32_t* list = isInput ? inputs : outputs;
    for (uint32_t i = 0; i < count; ++i) {
      const std::string name = std::string(isInput ? "inputs[" : "outputs[") + std::to_string(i) + "] = " +
                               std::to_string(list[i]);
      if (list[i] >= operands.size()) {
        return refuse(function, ANEURALNETWORKS_BAD_DATA,
                      name + " is out of range (the model has " + std::to_string(operands.size()) + " operands)");
      }
      if (listed[list[i]]) {
        return refuse(function, ANEURALNETWORKS_BAD_DATA, name + " is listed twice; an operand is one input or output");
      }
      if (operands[list[i]].lifetime != LifeTime::TEMPORARY_VARIABLE) {
        return refuse(function, ANEURALNETWORKS_BAD_DATA,
                      name + " has lifetime " + hal::toString(operands[list[i]].lifetime) +
                          "; an input or output is an operand without a value, not yet an input or output");
      }
      listed[list[i]] = true;
    }
  }
  draft_.main.inputIndexes.assign(inputs, inputs + inputCount);
  draft_.main.outputIndexes.assign(outputs, outputs + outputCount);
  for (uint32_t index : draft_.main.inputIndexes) operands[index].lifetime = LifeTime::SUBGRAPH_INPUT;
  for (uint32_t index : draft_.main.outputIndexes) operands[index].lifetime = LifeTime::SUBGRAPH_OUTPUT;
  return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::relaxComputationFloat32toFloat16(bool allow) {
  RETURN_IF_REFUSED(checkMutable("relaxComputationFloat32toFloat16"));
  draft_.relaxComputationFloat32toFloat16 = allow;
  return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::getExtensionType(const char* function, const char* extensionName, uint16_t code, int32_t* type) {
  if (extensionName == nullptr || type == nullptr) {
    return refuse(function, ANEURALNETWORKS_UNEXPECTED_NULL, "extensionName or type is NULL");
  }
  const std::optional<uint16_t> prefix = ExtensionPrefixes::get().prefixFor(extensionName);
  if (!prefix) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA,
                  std::string("no extension prefix is left for ") + extensionName + " (65535 are in use)");
  }
  *type = static_cast<int32_t>((uint32_t{*prefix} << hal::kExtensionTypeBits) | code);
  return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::getExtensionOperandType(const char* extensionName, uint16_t operandCodeWithinExtension,
                                          int32_t* type) {
  return getExtensionType("getExtensionOperandType", extensionName, operandCodeWithinExtension, type);
}

int ModelBuilder::getExtensionOperationType(const char* extensionName, uint16_t operationCodeWithinExtension,
                                            ANeuralNetworksOperationType* type) {
  return getExtensionType("getExtensionOperationType", extensionName, operationCodeWithinExtension, type);
}

}  // namespace nnremote::runtime
