#include <cmath>
#include <set>
#include <sstream>
#include <string>

#include "hal/control_flow_validation.h"
#include "hal/operand_types.h"
#include "hal/operation_signatures.h"
#include "hal/operations/signature_checks.h"
#include "hal/validation.h"

namespace nnremote::hal {
namespace {

using LifeTime = Operand::LifeTime;

std::string subgraphName(int subgraphIndex) {
  return subgraphIndex < 0 ? "main" : "referenced[" + std::to_string(subgraphIndex) + "]";
}

bool isKnownLifetime(LifeTime lifetime) {
  const int32_t code = static_cast<int32_t>(lifetime);
  return code >= 0 && code <= static_cast<int32_t>(LifeTime::POINTER);
}

bool isKnownOperationType(OperationType type) {
  // OEM_OPERATION is part of NN HAL 1.3 (deprecated); whether a device runs it is its own affair.
  if (type == OperationType::OEM_OPERATION) return true;
  const int32_t code = static_cast<int32_t>(type);
  return code >= 0 && code <= kLastOperationType;
}

bool hasExtensionPrefix(const Model& model, int32_t code) {
  const uint32_t prefix = static_cast<uint32_t>(code) >> kExtensionTypeBits;
  for (const auto& entry : model.extensionNameToPrefix) {
    if (entry.prefix == prefix) return true;
  }
  return false;
}

Status validateQuantization(const Operand& operand, const std::string& where) {
  const auto& channelQuant = std::get_if<Operand::SymmPerChannelQuantParams>(&operand.extraParams);
  auto requireScaleAndZero = [&](bool scalePositive, int32_t zpMin, int32_t zpMax) -> Status {
    if (scalePositive ? !(operand.scale > 0.0f) : operand.scale != 0.0f) {
      return invalidArgument() << where << ".scale = " << operand.scale << " must be "
                               << (scalePositive ? "> 0" : "0") << " for " << toString(operand.type);
    }
    if (operand.zeroPoint < zpMin || operand.zeroPoint > zpMax) {
      return invalidArgument() << where << ".zeroPoint = " << operand.zeroPoint
                               << " is outside [" << zpMin << ", " << zpMax << "] for "
                               << toString(operand.type);
    }
    return {};
  };
  switch (operand.type) {
    case OperandType::TENSOR_QUANT8_ASYMM:
      return requireScaleAndZero(true, 0, 255);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return requireScaleAndZero(true, -128, 127);
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT16_SYMM:
      return requireScaleAndZero(true, 0, 0);
    case OperandType::TENSOR_QUANT16_ASYMM:
      return requireScaleAndZero(true, 0, 65535);
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL: {
      NN_RETURN_IF_ERROR(requireScaleAndZero(false, 0, 0));
      if (channelQuant == nullptr) {
        return invalidArgument() << where << ".extraParams must hold per-channel quantization "
                                 << "for TENSOR_QUANT8_SYMM_PER_CHANNEL";
      }
      if (channelQuant->channelDim >= operand.dimensions.size()) {
        return invalidArgument() << where << ".extraParams.channelDim = " << channelQuant->channelDim
                                 << " is out of range (operand has rank "
                                 << operand.dimensions.size() << ")";
      }
      const uint32_t channels = operand.dimensions[channelQuant->channelDim];
      if (channels != 0 && channelQuant->scales.size() != channels) {
        return invalidArgument() << where << ".extraParams.scales has " << channelQuant->scales.size()
                                 << " entries but dimension " << channelQuant->channelDim << " is "
                                 << channels;
      }
      for (size_t i = 0; i < channelQuant->scales.size(); ++i) {
        if (!(channelQuant->scales[i] > 0.0f)) {
          return invalidArgument() << where << ".extraParams.scales[" << i
                                   << "] = " << channelQuant->scales[i] << " must be > 0";
        }
      }
      return {};
    }
    case OperandType::TENSOR_INT32:
      // Biases of quantized operations are TENSOR_INT32 with scale = input x filter scale; the
      // zero point is always 0.
      if (!(operand.scale >= 0.0f) || std::isinf(operand.scale)) {
        return invalidArgument() << where << ".scale = " << operand.scale << " must be finite and not negative";
      }
      return requireScaleAndZero(operand.scale > 0.0f, 0, 0);
    default:
      // Float, scalar, boolean and subgraph operands carry no quantization.
      return requireScaleAndZero(false, 0, 0);
  }
}

Status validateOperand(const Model& model, const Operand& operand, int subgraphIndex,
                       size_t operandIndex, bool allowPointers) {
  const std::string where = subgraphName(subgraphIndex) + ".operands[" +
                            std::to_string(operandIndex) + "]";
  // Extension and (deprecated) OEM types are opaque here: only the device knows their layout,
  // so it checks their sizes and quantization itself, as AOSP's validation leaves it to do.
  const bool oem = operand.type == OperandType::OEM || operand.type == OperandType::TENSOR_OEM_BYTE;
  const bool extension = isExtension(operand.type) || oem;
  if (isExtension(operand.type)) {
    if (!hasExtensionPrefix(model, static_cast<int32_t>(operand.type))) {
      return invalidArgument() << where << ".type = " << static_cast<int32_t>(operand.type)
                               << " uses an extension prefix missing from extensionNameToPrefix";
    }
  } else if (!oem && !isKnownOperandType(operand.type)) {
    return invalidArgument() << where << ".type = " << static_cast<int32_t>(operand.type)
                             << " is not a valid operand type";
  }
  if (!isKnownLifetime(operand.lifetime)) {
    return invalidArgument() << where << ".lifetime = " << static_cast<int32_t>(operand.lifetime)
                             << " is not a valid lifetime";
  }

  if (!extension) {
    if (!isTensor(operand.type) && !operand.dimensions.empty()) {
      return invalidArgument() << where << ".dimensions = " << toString(operand.dimensions)
                               << " must be empty for scalar type " << toString(operand.type);
    }
    if (!sizeOfData(operand).has_value()) {
      return invalidArgument() << where << ".dimensions = " << toString(operand.dimensions)
                               << " is too large (the data would exceed 4 GiB)";
    }
    NN_RETURN_IF_ERROR(validateQuantization(operand, where));
    const bool isChannelQuant =
        std::holds_alternative<Operand::SymmPerChannelQuantParams>(operand.extraParams);
    if (std::holds_alternative<Operand::ExtensionParams>(operand.extraParams) ||
        (isChannelQuant && operand.type != OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL)) {
      return invalidArgument() << where << ".extraParams are not allowed for "
                               << toString(operand.type);
    }
    if ((operand.type == OperandType::SUBGRAPH) != (operand.lifetime == LifeTime::SUBGRAPH)) {
      return invalidArgument() << where << " has type " << toString(operand.type)
                               << " and lifetime " << toString(operand.lifetime)
                               << "; SUBGRAPH type and lifetime go together";
    }
  }

  const DataLocation& location = operand.location;
  auto requireNoLocation = [&]() -> Status {
    if (location.pointer != nullptr || location.poolIndex != 0 || location.offset != 0 ||
        location.length != 0) {
      return invalidArgument() << where << ".location must be empty for lifetime "
                               << toString(operand.lifetime) << " (got poolIndex "
                               << location.poolIndex << ", offset " << location.offset
                               << ", length " << location.length << ")";
    }
    return {};
  };
  auto requireExactLength = [&]() -> Status {
    if (extension) return {};
    if (hasUnspecifiedDimensions(operand)) {
      return invalidArgument() << where << " is a constant but its dimensions "
                               << toString(operand.dimensions) << " are not fully specified";
    }
    const uint32_t expected = *sizeOfData(operand);
    if (location.length != expected) {
      return invalidArgument() << where << ".location.length = " << location.length
                               << " but a " << toString(operand.type) << " of dimensions "
                               << toString(operand.dimensions) << " needs " << expected << " bytes";
    }
    return {};
  };

  switch (operand.lifetime) {
    case LifeTime::TEMPORARY_VARIABLE:
    case LifeTime::SUBGRAPH_INPUT:
    case LifeTime::SUBGRAPH_OUTPUT:
    case LifeTime::NO_VALUE:
      return requireNoLocation();
    case LifeTime::CONSTANT_COPY: {
      if (location.poolIndex != 0) {
        return invalidArgument() << where << ".location.poolIndex = " << location.poolIndex
                                 << " must be 0 for CONSTANT_COPY";
      }
      const uint64_t end = uint64_t{location.offset} + location.length;
      if (end > model.operandValues.size()) {
        return invalidArgument() << where << ".location [offset " << location.offset
                                 << ", length " << location.length << "] is outside operandValues ("
                                 << model.operandValues.size() << " bytes)";
      }
      return requireExactLength();
    }
    case LifeTime::CONSTANT_REFERENCE: {
      if (location.poolIndex >= model.pools.size()) {
        return invalidArgument() << where << ".location.poolIndex = " << location.poolIndex
                                 << " is out of range (model has " << model.pools.size()
                                 << " pools)";
      }
      const SharedMemory& pool = model.pools[location.poolIndex];
      const uint64_t end = uint64_t{location.offset} + location.length;
      if (pool == nullptr || end > pool->size()) {
        return invalidArgument() << where << ".location [offset " << location.offset
                                 << ", length " << location.length << "] is outside pools["
                                 << location.poolIndex << "] ("
                                 << (pool == nullptr ? 0 : pool->size()) << " bytes)";
      }
      return requireExactLength();
    }
    case LifeTime::SUBGRAPH:
      if (location.poolIndex != 0 || location.length != 0 || location.pointer != nullptr) {
        return invalidArgument() << where << ".location of a SUBGRAPH operand may only set offset";
      }
      if (location.offset >= model.referenced.size()) {
        return invalidArgument() << where << ".location.offset = " << location.offset
                                 << " is out of range (model has " << model.referenced.size()
                                 << " referenced subgraphs)";
      }
      return {};
    case LifeTime::POINTER:
      if (!allowPointers) {
        return invalidArgument() << where << ".lifetime POINTER cannot cross a process boundary";
      }
      if (location.pointer == nullptr) {
        return invalidArgument() << where << ".location.pointer is null for lifetime POINTER";
      }
      return requireExactLength();
  }
  return {};
}

Status validateIoIndexes(const Model::Subgraph& subgraph, int subgraphIndex, bool inputs) {
  const std::string where = subgraphName(subgraphIndex) + (inputs ? ".inputIndexes" : ".outputIndexes");
  const LifeTime expected = inputs ? LifeTime::SUBGRAPH_INPUT : LifeTime::SUBGRAPH_OUTPUT;
  const auto& indexes = inputs ? subgraph.inputIndexes : subgraph.outputIndexes;
  std::set<uint32_t> seen;
  for (size_t i = 0; i < indexes.size(); ++i) {
    const uint32_t index = indexes[i];
    if (index >= subgraph.operands.size()) {
      return invalidArgument() << where << "[" << i << "] = " << index
                               << " is out of range (model has " << subgraph.operands.size()
                               << " operands)";
    }
    if (subgraph.operands[index].lifetime != expected) {
      return invalidArgument() << where << "[" << i << "] = " << index << " names an operand with lifetime "
                               << toString(subgraph.operands[index].lifetime) << ", expected "
                               << toString(expected);
    }
    if (!seen.insert(index).second) {
      return invalidArgument() << where << "[" << i << "] = " << index << " is listed twice";
    }
  }
  for (size_t i = 0; i < subgraph.operands.size(); ++i) {
    if (subgraph.operands[i].lifetime == expected && seen.count(i) == 0) {
      return invalidArgument() << subgraphName(subgraphIndex) << ".operands[" << i
                               << "] has lifetime " << toString(expected) << " but is not listed in "
                               << where;
    }
  }
  return {};
}

// Operations must be in an order where every operand is written before it is read and written
// exactly once; this also rules out cycles within a subgraph.
Status validateOperations(const Model& model, const Model::Subgraph& subgraph, int subgraphIndex) {
  const std::string name = subgraphName(subgraphIndex);
  const size_t operandCount = subgraph.operands.size();
  std::vector<bool> written(operandCount, false);
  for (size_t i = 0; i < operandCount; ++i) {
    const LifeTime lifetime = subgraph.operands[i].lifetime;
    written[i] = lifetime != LifeTime::TEMPORARY_VARIABLE && lifetime != LifeTime::SUBGRAPH_OUTPUT;
  }
  for (size_t op = 0; op < subgraph.operations.size(); ++op) {
    const Operation& operation = subgraph.operations[op];
    const std::string where = name + ".operations[" + std::to_string(op) + "]";
    const int32_t code = static_cast<int32_t>(operation.type);
    if (isExtension(code)) {
      if (!hasExtensionPrefix(model, code)) {
        return invalidArgument() << where << ".type = " << code
                                 << " uses an extension prefix missing from extensionNameToPrefix";
      }
    } else if (!isKnownOperationType(operation.type)) {
      return invalidArgument() << where << ".type = " << code << " is not a valid operation type";
    }
    for (size_t j = 0; j < operation.inputs.size(); ++j) {
      const uint32_t index = operation.inputs[j];
      if (index >= operandCount) {
        return invalidArgument() << where << ".inputs[" << j << "] = " << index
                                 << " is out of range (model has " << operandCount << " operands)";
      }
      if (!written[index]) {
        return invalidArgument() << where << ".inputs[" << j << "] = " << index
                                 << " is read before any operation writes it (operations out of "
                                    "order, or a cycle)";
      }
    }
    for (size_t j = 0; j < operation.outputs.size(); ++j) {
      const uint32_t index = operation.outputs[j];
      if (index >= operandCount) {
        return invalidArgument() << where << ".outputs[" << j << "] = " << index
                                 << " is out of range (model has " << operandCount << " operands)";
      }
      const LifeTime lifetime = subgraph.operands[index].lifetime;
      if (lifetime != LifeTime::TEMPORARY_VARIABLE && lifetime != LifeTime::SUBGRAPH_OUTPUT) {
        return invalidArgument() << where << ".outputs[" << j << "] = " << index
                                 << " has lifetime " << toString(lifetime)
                                 << "; outputs must be TEMPORARY_VARIABLE or SUBGRAPH_OUTPUT";
      }
      if (written[index]) {
        return invalidArgument() << where << ".outputs[" << j << "] = " << index
                                 << " is written twice";
      }
      written[index] = true;
    }
    NN_RETURN_IF_ERROR(validateOperationSignature(model, subgraph, operation, where).status());
    NN_RETURN_IF_ERROR(validateControlFlowOperation(model, subgraph, operation, where));
  }
  for (size_t i = 0; i < operandCount; ++i) {
    if (!written[i]) {
      return invalidArgument() << name << ".operands[" << i << "] ("
                               << toString(subgraph.operands[i].lifetime)
                               << ") is never written by any operation";
    }
  }
  return {};
}

// Depth-first walk over SUBGRAPH operands; a subgraph met again on the current path is a cycle.
Status checkNoReferenceCycles(const Model& model, int subgraphIndex, std::vector<int>& path,
                              std::vector<bool>& visited) {
  const Model::Subgraph& subgraph =
      subgraphIndex < 0 ? model.main : model.referenced[subgraphIndex];
  for (size_t i = 0; i < subgraph.operands.size(); ++i) {
    const Operand& operand = subgraph.operands[i];
    if (operand.lifetime != LifeTime::SUBGRAPH) continue;
    const int target = static_cast<int>(operand.location.offset);
    for (int onPath : path) {
      if (onPath == target) {
        std::ostringstream chain;
        for (int step : path) chain << subgraphName(step) << " -> ";
        chain << subgraphName(target);
        return invalidArgument() << subgraphName(subgraphIndex) << ".operands[" << i
                                 << "] refers to referenced[" << target
                                 << "], which forms a cycle: " << chain.str();
      }
    }
    if (visited[target]) continue;
    visited[target] = true;
    path.push_back(target);
    NN_RETURN_IF_ERROR(checkNoReferenceCycles(model, target, path, visited));
    path.pop_back();
  }
  return {};
}

// A subgraph's operands and its input and output indexes. Every subgraph's are checked before
// any operation is: an IF or WHILE looks into the subgraphs it names.
Status validateSubgraphOperands(const Model& model, const Model::Subgraph& subgraph, int subgraphIndex,
                                bool allowPointers) {
  for (size_t i = 0; i < subgraph.operands.size(); ++i) {
    NN_RETURN_IF_ERROR(validateOperand(model, subgraph.operands[i], subgraphIndex, i, allowPointers));
  }
  NN_RETURN_IF_ERROR(validateIoIndexes(subgraph, subgraphIndex, /*inputs=*/true));
  return validateIoIndexes(subgraph, subgraphIndex, /*inputs=*/false);
}

}  // namespace

Status validateModel(const Model& model, bool allowPointers) {
  if (model.referenced.size() > kMaxSubgraphs) {
    return invalidArgument() << "model.referenced has " << model.referenced.size()
                             << " subgraphs (at most " << kMaxSubgraphs << ")";
  }
  if (model.main.operations.empty()) {
    return invalidArgument() << "main.operations is empty; a model needs at least one operation";
  }
  for (size_t i = 0; i < model.pools.size(); ++i) {
    if (model.pools[i] == nullptr) return invalidArgument() << "model.pools[" << i << "] is null";
  }
  std::set<std::string> extensionNames;
  std::set<uint16_t> extensionPrefixes;
  for (size_t i = 0; i < model.extensionNameToPrefix.size(); ++i) {
    const auto& entry = model.extensionNameToPrefix[i];
    if (entry.prefix == 0 || !extensionNames.insert(entry.name).second ||
        !extensionPrefixes.insert(entry.prefix).second) {
      return invalidArgument() << "extensionNameToPrefix[" << i << "] (" << entry.name << ", "
                               << entry.prefix << ") repeats a name or prefix, or uses prefix 0";
    }
  }
  NN_RETURN_IF_ERROR(validateSubgraphOperands(model, model.main, -1, allowPointers));
  for (size_t i = 0; i < model.referenced.size(); ++i) {
    NN_RETURN_IF_ERROR(validateSubgraphOperands(model, model.referenced[i], static_cast<int>(i), allowPointers));
  }
  NN_RETURN_IF_ERROR(validateOperations(model, model.main, -1));
  for (size_t i = 0; i < model.referenced.size(); ++i) {
    NN_RETURN_IF_ERROR(validateOperations(model, model.referenced[i], static_cast<int>(i)));
  }
  std::vector<int> path;
  std::vector<bool> visited(model.referenced.size(), false);
  NN_RETURN_IF_ERROR(checkNoReferenceCycles(model, -1, path, visited));
  for (size_t i = 0; i < visited.size(); ++i) {
    if (!visited[i]) {
      return invalidArgument() << "referenced[" << i << "] is not reachable from main";
    }
  }
  return {};
}

namespace {

// The feature level an operand needs beyond its operation's form: its type, and extension types
// (feature level 3).
Version operandFeatureLevel(const Operand& operand) {
  if (isExtension(operand.type)) return Version::FEATURE_LEVEL_3;
  return signatures::versionOfType(operand.type);
}

Version subgraphFeatureLevel(const Model& model, const Model::Subgraph& subgraph, std::vector<Version>* perOperation) {
  Version level = Version::FEATURE_LEVEL_1;
  for (const Operand& operand : subgraph.operands) level = signatures::later(level, operandFeatureLevel(operand));
  for (const Operation& operation : subgraph.operations) {
    auto version = validateOperationSignature(model, subgraph, operation, "");
    Version needed = version.ok() ? *version : Version::FEATURE_LEVEL_8;
    if (isExtension(operation.type)) needed = Version::FEATURE_LEVEL_3;
    if (perOperation != nullptr) perOperation->push_back(needed);
    level = signatures::later(level, needed);
  }
  return level;
}

}  // namespace

Version minimumFeatureLevel(const Model& model) {
  Version level = subgraphFeatureLevel(model, model.main, nullptr);
  for (const Model::Subgraph& subgraph : model.referenced) {
    level = signatures::later(level, subgraphFeatureLevel(model, subgraph, nullptr));
  }
  if (model.relaxComputationFloat32toFloat16) level = signatures::later(level, Version::FEATURE_LEVEL_2);
  return level;
}

Status validateModelForFeatureLevel(const Model& model, Version deviceLevel, const std::string& deviceName) {
  const Version needed = minimumFeatureLevel(model);
  if (static_cast<int32_t>(needed) <= static_cast<int32_t>(deviceLevel)) return {};
  const std::vector<Version> levels = operationFeatureLevels(model);
  for (size_t i = 0; i < levels.size(); ++i) {
    if (static_cast<int32_t>(levels[i]) > static_cast<int32_t>(deviceLevel)) {
      return invalidArgument() << "main.operations[" << i << "] " << toString(model.main.operations[i].type)
                               << " in this form needs " << toString(levels[i]) << "; " << deviceName << " is "
                               << toString(deviceLevel);
    }
  }
  return invalidArgument() << "the model needs " << toString(needed) << "; " << deviceName << " is "
                           << toString(deviceLevel);
}

std::vector<Version> operationFeatureLevels(const Model& model) {
  std::vector<Version> levels;
  const Version shared = model.relaxComputationFloat32toFloat16 ? Version::FEATURE_LEVEL_2 : Version::FEATURE_LEVEL_1;
  (void)subgraphFeatureLevel(model, model.main, &levels);
  // A main operation that calls referenced subgraphs needs what they need; IF and WHILE are
  // feature level 4 themselves, so only a subgraph needing more raises them.
  Version referenced = Version::FEATURE_LEVEL_1;
  for (const Model::Subgraph& subgraph : model.referenced) {
    referenced = signatures::later(referenced, subgraphFeatureLevel(model, subgraph, nullptr));
  }
  for (size_t i = 0; i < levels.size(); ++i) {
    levels[i] = signatures::later(levels[i], shared);
    const OperationType type = model.main.operations[i].type;
    if (type == OperationType::IF || type == OperationType::WHILE) levels[i] = signatures::later(levels[i], referenced);
  }
  return levels;
}

}  // namespace nnremote::hal
