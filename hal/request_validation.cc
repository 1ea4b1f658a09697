#include <string>

#include "hal/i_buffer.h"
#include "hal/operand_types.h"
#include "hal/validation.h"

namespace nnremote::hal {
namespace {

using ArgLifeTime = Request::Argument::LifeTime;

// The size of a memory pool, or std::nullopt for device buffers (checked by the device).
std::optional<uint64_t> poolSize(const Request::MemoryPool& pool) {
  if (const auto* memory = std::get_if<SharedMemory>(&pool)) return (*memory)->size();
  return std::nullopt;
}

Status validatePools(const Request& request) {
  for (size_t i = 0; i < request.pools.size(); ++i) {
    const auto& pool = request.pools[i];
    if (const auto* memory = std::get_if<SharedMemory>(&pool); memory && *memory == nullptr) {
      return invalidArgument() << "request.pools[" << i << "] is a null memory";
    }
    if (const auto* token = std::get_if<Request::MemoryDomainToken>(&pool);
        token && static_cast<uint32_t>(*token) == 0) {
      return invalidArgument() << "request.pools[" << i << "] is memory-domain token 0, which is "
                               << "never valid";
    }
    if (const auto* buffer = std::get_if<SharedBuffer>(&pool); buffer && *buffer == nullptr) {
      return invalidArgument() << "request.pools[" << i << "] is a null device buffer";
    }
  }
  return {};
}

Status validateArgument(const Request& request, const Request::Argument& argument,
                        const Operand& operand, const std::string& where, bool isInput,
                        bool allowPointers) {
  bool deviceBuffer = false;
  switch (argument.lifetime) {
    case ArgLifeTime::NO_VALUE:
      if (argument.location.poolIndex != 0 || argument.location.offset != 0 ||
          argument.location.length != 0 || argument.location.pointer != nullptr ||
          !argument.dimensions.empty()) {
        return invalidArgument() << where << " has no value but sets a location or dimensions";
      }
      return {};
    case ArgLifeTime::POINTER:
      if (!allowPointers) {
        return invalidArgument() << where << ".lifetime POINTER cannot cross a process boundary";
      }
      if (argument.location.pointer == nullptr) {
        return invalidArgument() << where << ".location.pointer is null";
      }
      break;
    case ArgLifeTime::POOL: {
      const DataLocation& location = argument.location;
      if (location.poolIndex >= request.pools.size()) {
        return invalidArgument() << where << ".location.poolIndex = " << location.poolIndex
                                 << " is out of range (request has " << request.pools.size()
                                 << " pools)";
      }
      const auto size = poolSize(request.pools[location.poolIndex]);
      if (!size.has_value()) {
        // A device buffer is used whole: its location names only the pool.
        if (location.offset != 0 || location.length != 0) {
          return invalidArgument() << where << ".location must have offset 0 and length 0 for "
                                   << "device buffer pools[" << location.poolIndex << "]";
        }
        deviceBuffer = true;
        break;
      }
      const uint64_t end = uint64_t{location.offset} + location.length;
      if (size.has_value() && end > *size) {
        return invalidArgument() << where << ".location [offset " << location.offset
                                 << ", length " << location.length << "] is outside pools["
                                 << location.poolIndex << "] (" << *size << " bytes)";
      }
      break;
    }
    default:
      return invalidArgument() << where << ".lifetime = " << static_cast<int32_t>(argument.lifetime)
                               << " is not a valid argument lifetime";
  }

  // The argument's dimensions refine the operand's: same rank, and any dimension the model
  // fixed must be repeated exactly.
  std::vector<uint32_t> dimensions = operand.dimensions;
  if (!argument.dimensions.empty()) {
    if (!isTensor(operand.type)) {
      return invalidArgument() << where << ".dimensions = " << toString(argument.dimensions)
                               << " given for scalar operand of type " << toString(operand.type);
    }
    if (!operand.dimensions.empty() && argument.dimensions.size() != operand.dimensions.size()) {
      return invalidArgument() << where << ".dimensions = " << toString(argument.dimensions)
                               << " has rank " << argument.dimensions.size()
                               << " but the model operand has dimensions "
                               << toString(operand.dimensions);
    }
    for (size_t d = 0; d < operand.dimensions.size(); ++d) {
      if (operand.dimensions[d] != 0 && operand.dimensions[d] != argument.dimensions[d]) {
        return invalidArgument() << where << ".dimensions[" << d << "] = " << argument.dimensions[d]
                                 << " disagrees with the model operand's "
                                 << toString(operand.dimensions);
      }
    }
    dimensions = argument.dimensions;
  }
  // A short output is OUTPUT_INSUFFICIENT_SIZE at execution; a device buffer's size is the
  // device's to check, and so is an extension type's, whose element size only the device knows.
  if (!isInput || deviceBuffer || isExtension(operand.type)) return {};

  if (hasUnspecifiedDimensions(operand.type, dimensions)) {
    return invalidArgument() << where << " has unspecified dimensions " << toString(dimensions)
                             << "; inputs must be fully specified";
  }
  const auto needed = sizeOfData(operand.type, dimensions);
  if (!needed.has_value()) {
    return invalidArgument() << where << ".dimensions " << toString(dimensions) << " are too large";
  }
  if (argument.location.length != *needed) {
    return invalidArgument() << where << ".location.length = " << argument.location.length
                             << " but a " << toString(operand.type) << " of dimensions "
                             << toString(dimensions) << " needs " << *needed << " bytes";
  }
  return {};
}

}  // namespace

Status validateRequestForModel(const Request& request, const Model& model, bool allowPointers) {
  const auto& subgraph = model.main;
  if (request.inputs.size() != subgraph.inputIndexes.size()) {
    return invalidArgument() << "request.inputs has " << request.inputs.size()
                             << " entries but the model has " << subgraph.inputIndexes.size()
                             << " inputs";
  }
  if (request.outputs.size() != subgraph.outputIndexes.size()) {
    return invalidArgument() << "request.outputs has " << request.outputs.size()
                             << " entries but the model has " << subgraph.outputIndexes.size()
                             << " outputs";
  }
  NN_RETURN_IF_ERROR(validatePools(request));
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    const Operand& operand = subgraph.operands[subgraph.inputIndexes[i]];
    NN_RETURN_IF_ERROR(validateArgument(request, request.inputs[i], operand,
                                        "request.inputs[" + std::to_string(i) + "]", true,
                                        allowPointers));
  }
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    const Operand& operand = subgraph.operands[subgraph.outputIndexes[i]];
    if (request.outputs[i].lifetime == ArgLifeTime::NO_VALUE) {
      return invalidArgument() << "request.outputs[" << i << "] has no value; every output needs "
                               << "a location";
    }
    NN_RETURN_IF_ERROR(validateArgument(request, request.outputs[i], operand,
                                        "request.outputs[" + std::to_string(i) + "]", false,
                                        allowPointers));
  }
  return {};
}

}  // namespace nnremote::hal
