// The extensions the simulator ships; extension_registry.cc lists them.
#ifndef NNREMOTE_DRIVERS_SIM_EXTENSIONS_EXTENSIONS_H_
#define NNREMOTE_DRIVERS_SIM_EXTENSIONS_EXTENSIONS_H_

#include "drivers/sim/extensions/extension_definition.h"

namespace nnremote::sim {

// AOSP's example extension, exactly as its FibonacciExtension.h documents it (fibonacci.h).
extern const ExtensionDefinition kFibonacciExtension;
// nnremote's own: operations a transformer NPU fuses into one pass of the array (transformer.h).
extern const ExtensionDefinition kTransformerExtension;

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_EXTENSIONS_EXTENSIONS_H_
