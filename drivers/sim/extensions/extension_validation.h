// What the driver checks of a model's extensions itself, as the NNAPI extensions document asks:
// the HAL's validation cannot know an extension's operand types or sizes.
#ifndef NNREMOTE_DRIVERS_SIM_EXTENSIONS_EXTENSION_VALIDATION_H_
#define NNREMOTE_DRIVERS_SIM_EXTENSIONS_EXTENSION_VALIDATION_H_

#include <string>
#include <vector>

#include "hal/result.h"
#include "hal/types.h"

namespace nnremote::sim {

// INVALID_ARGUMENT, naming it, for an extension in the model's extensionNameToPrefix that is not
// among `supported` (the device's, or what a client may use).
hal::Status checkExtensionsSupported(const hal::Model& model, const std::vector<std::string>& supported,
                                     const std::string& deviceName);

// Every operand of an extension type that the simulator implements: a type the extension
// declares, a scalar without dimensions, a constant whose data has the size its dimensions and
// the type's byteSize give. Operands of extensions the simulator does not implement are left to
// checkExtensionsSupported.
hal::Status validateExtensionOperands(const hal::Model& model);

// Whether an operation belongs to an extension that is not among `supported`.
bool isUnsupportedExtensionOperation(const hal::Model& model, const hal::Operation& operation,
                                     const std::vector<std::string>& supported);

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_EXTENSIONS_EXTENSION_VALIDATION_H_
