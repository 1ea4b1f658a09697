// What a vendor extension the simulator implements is: its description and its operations, each
// with the kernel that validates, prepares, executes and costs it. Each extension defines one;
// extension_registry.h finds them.
#ifndef NNREMOTE_DRIVERS_SIM_EXTENSIONS_EXTENSION_DEFINITION_H_
#define NNREMOTE_DRIVERS_SIM_EXTENSIONS_EXTENSION_DEFINITION_H_

#include <cstdint>
#include <vector>

#include "drivers/sim/operation_registry.h"
#include "hal/types.h"

namespace nnremote::sim {

struct ExtensionOperation {
  uint16_t type = 0;  // within the extension
  const char* name = "";
  const OperationKernel* kernel = nullptr;
};

struct ExtensionDefinition {
  hal::Extension description;  // name and operand types, as getSupportedExtensions reports them
  std::vector<const char*> operandTypeNames;  // by type within the extension
  std::vector<ExtensionOperation> operations;
};

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_EXTENSIONS_EXTENSION_DEFINITION_H_
