#include "drivers/sim/extensions/extension_registry.h"

#include "drivers/sim/extensions/extensions.h"

namespace nnremote::sim {

const std::vector<const ExtensionDefinition*>& builtInExtensions() {
  static const auto* const kExtensions = new std::vector<const ExtensionDefinition*>{
      &kFibonacciExtension,
      &kTransformerExtension,
  };
  return *kExtensions;
}

const ExtensionDefinition* findExtension(const std::string& name) {
  for (const ExtensionDefinition* extension : builtInExtensions()) {
    if (extension->description.name == name) return extension;
  }
  return nullptr;
}

const ExtensionDefinition* extensionOf(const hal::Model& model, int32_t code) {
  const uint32_t prefix = static_cast<uint32_t>(code) >> hal::kExtensionTypeBits;
  if (prefix == 0) return nullptr;
  for (const auto& entry : model.extensionNameToPrefix) {
    if (entry.prefix == prefix) return findExtension(entry.name);
  }
  return nullptr;
}

const OperationKernel* findExtensionKernel(const hal::Model& model, OperationType type) {
  const ExtensionDefinition* extension = extensionOf(model, static_cast<int32_t>(type));
  if (extension == nullptr) return nullptr;
  const uint16_t within = static_cast<uint16_t>(static_cast<uint32_t>(type) & 0xFFFFu);
  for (const ExtensionOperation& operation : extension->operations) {
    if (operation.type == within) return operation.kernel;
  }
  return nullptr;
}

const hal::Extension::OperandTypeInformation* findExtensionOperandType(const hal::Model& model, OperandType type) {
  const ExtensionDefinition* extension = extensionOf(model, static_cast<int32_t>(type));
  if (extension == nullptr) return nullptr;
  const uint16_t within = static_cast<uint16_t>(static_cast<uint32_t>(type) & 0xFFFFu);
  for (const auto& info : extension->description.operandTypes) {
    if (info.type == within) return &info;
  }
  return nullptr;
}

std::string extensionOperationName(const hal::Model& model, OperationType type) {
  const ExtensionDefinition* extension = extensionOf(model, static_cast<int32_t>(type));
  const uint16_t within = static_cast<uint16_t>(static_cast<uint32_t>(type) & 0xFFFFu);
  if (extension != nullptr) {
    for (const ExtensionOperation& operation : extension->operations) {
      if (operation.type == within) return extension->description.name + ":" + operation.name;
    }
  }
  return hal::toString(type);
}

std::string extensionOperandTypeName(const hal::Model& model, OperandType type) {
  const ExtensionDefinition* extension = extensionOf(model, static_cast<int32_t>(type));
  const uint16_t within = static_cast<uint16_t>(static_cast<uint32_t>(type) & 0xFFFFu);
  if (extension != nullptr && within < extension->operandTypeNames.size()) {
    return extension->description.name + ":" + extension->operandTypeNames[within];
  }
  return hal::toString(type);
}

}  // namespace nnremote::sim
