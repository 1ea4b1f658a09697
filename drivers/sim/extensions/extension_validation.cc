#include "drivers/sim/extensions/extension_validation.h"

#include <algorithm>

#include "drivers/sim/extensions/extension_registry.h"
#include "hal/operand_types.h"

namespace nnremote::sim {
namespace {

using hal::makeError;
using LifeTime = hal::Operand::LifeTime;

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string nameOfPrefix(const hal::Model& model, int32_t code) {
  const uint32_t prefix = static_cast<uint32_t>(code) >> hal::kExtensionTypeBits;
  for (const auto& entry : model.extensionNameToPrefix) {
    if (entry.prefix == prefix) return entry.name;
  }
  return {};
}

hal::Status validateSubgraph(const hal::Model& model, const hal::Model::Subgraph& subgraph, const std::string& name) {
  for (size_t i = 0; i < subgraph.operands.size(); ++i) {
    const hal::Operand& operand = subgraph.operands[i];
    if (!hal::isExtension(operand.type)) continue;
    const ExtensionDefinition* extension = extensionOf(model, static_cast<int32_t>(operand.type));
    if (extension == nullptr) continue;  // not ours: refused by checkExtensionsSupported
    const std::string where = name + ".operands[" + std::to_string(i) + "]";
    const auto* info = findExtensionOperandType(model, operand.type);
    if (info == nullptr) {
      return hal::invalidArgument() << where << ".type = " << static_cast<int32_t>(operand.type) << " is type "
                                    << (static_cast<uint32_t>(operand.type) & 0xFFFFu) << " of "
                                    << extension->description.name << ", which declares no such operand type";
    }
    if (!info->isTensor && !operand.dimensions.empty()) {
      return hal::invalidArgument() << where << ".dimensions = " << hal::toString(operand.dimensions) << " but "
                                    << extensionOperandTypeName(model, operand.type)
                                    << " is a scalar type";
    }
    if (operand.lifetime != LifeTime::CONSTANT_COPY && operand.lifetime != LifeTime::CONSTANT_REFERENCE &&
        operand.lifetime != LifeTime::POINTER) {
      continue;
    }
    uint64_t elements = 1;
    for (uint32_t d : operand.dimensions) {
      if (d == 0) {
        return hal::invalidArgument() << where << " is a constant but its dimensions "
                                      << hal::toString(operand.dimensions) << " are not fully specified";
      }
      elements *= d;
    }
    if (info->isTensor && operand.dimensions.empty()) {
      return hal::invalidArgument() << where << " is a constant tensor of unknown rank";
    }
    if (elements * info->byteSize != operand.location.length) {
      return hal::invalidArgument() << where << ".location.length = " << operand.location.length << " but "
                                    << extensionOperandTypeName(model, operand.type)
                                    << " of dimensions " << hal::toString(operand.dimensions) << " needs "
                                    << elements * info->byteSize << " bytes";
    }
  }
  return {};
}

}  // namespace

hal::Status checkExtensionsSupported(const hal::Model& model, const std::vector<std::string>& supported,
                                     const std::string& deviceName) {
  for (size_t i = 0; i < model.extensionNameToPrefix.size(); ++i) {
    const std::string& name = model.extensionNameToPrefix[i].name;
    if (!contains(supported, name)) {
      return hal::invalidArgument() << "extensionNameToPrefix[" << i << "] names extension '" << name << "', which "
                                    << deviceName << " does not support";
    }
  }
  return {};
}

hal::Status validateExtensionOperands(const hal::Model& model) {
  NN_RETURN_IF_ERROR(validateSubgraph(model, model.main, "main"));
  for (size_t s = 0; s < model.referenced.size(); ++s) {
    NN_RETURN_IF_ERROR(validateSubgraph(model, model.referenced[s], "referenced[" + std::to_string(s) + "]"));
  }
  return {};
}

bool isUnsupportedExtensionOperation(const hal::Model& model, const hal::Operation& operation,
                                     const std::vector<std::string>& supported) {
  if (!hal::isExtension(operation.type)) return false;
  const std::string name = nameOfPrefix(model, static_cast<int32_t>(operation.type));
  return name.empty() || !contains(supported, name);
}

}  // namespace nnremote::sim
