// Vendor extensions the simulator implements (docs/extensions.md). An extension declares its
// name, its operand types (scalar or tensor, bytes per element) and its operations, each an
// OperationKernel like a built-in one: validate, prepare, execute and its work for the timing
// model. A model refers to them with codes (prefix << 16) | typeWithinExtension, the prefix
// chosen per model in its extensionNameToPrefix.
//
// Adding an extension: one file defining an ExtensionDefinition (extension_definition.h), and
// one line in extension_registry.cc.
#ifndef NNREMOTE_DRIVERS_SIM_EXTENSIONS_EXTENSION_REGISTRY_H_
#define NNREMOTE_DRIVERS_SIM_EXTENSIONS_EXTENSION_REGISTRY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "drivers/sim/extensions/extension_definition.h"
#include "drivers/sim/operation_registry.h"
#include "hal/operand_types.h"
#include "hal/types.h"

namespace nnremote::sim {

// Every extension the simulator implements.
const std::vector<const ExtensionDefinition*>& builtInExtensions();
const ExtensionDefinition* findExtension(const std::string& name);

// The extension a model's code belongs to, through the model's extensionNameToPrefix; null for a
// built-in code or a prefix the model does not name.
const ExtensionDefinition* extensionOf(const hal::Model& model, int32_t code);

// The kernel of an extension operation code in `model`, or null.
const OperationKernel* findExtensionKernel(const hal::Model& model, OperationType type);

// The kernel for any operation code in `model`: built-in, or an extension's; null if none.
inline const OperationKernel* findKernel(const hal::Model& model, OperationType type) {
  return hal::isExtension(type) ? findExtensionKernel(model, type) : findKernel(type);
}

// An extension operand type's declaration in `model`, or null.
const hal::Extension::OperandTypeInformation* findExtensionOperandType(const hal::Model& model, OperandType type);

// Readable names for extension codes in `model` ("com.example.fibonacci:EXAMPLE_FIBONACCI"),
// or hal::toString's when they name nothing known.
std::string extensionOperationName(const hal::Model& model, OperationType type);
std::string extensionOperandTypeName(const hal::Model& model, OperandType type);

// The code of `typeWithinExtension` in the extension `sameExtension` belongs to: how a kernel
// names its extension's own operand types.
inline int32_t sameExtensionCode(int32_t sameExtension, uint16_t typeWithinExtension) {
  return static_cast<int32_t>((static_cast<uint32_t>(sameExtension) & 0xFFFF0000u) | typeWithinExtension);
}

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_EXTENSIONS_EXTENSION_REGISTRY_H_
