// The models nnremote commands can drive by name: "sample", "mobilenet" (MobileNet v1 1.0-224
// float32) and "mobilenet-quant8", each with one deterministic input.
#ifndef NNREMOTE_TOOLS_MODELS_BUILT_IN_H_
#define NNREMOTE_TOOLS_MODELS_BUILT_IN_H_

#include <string>

#include "hal/result.h"
#include "tools/models/mobilenet_v1.h"

namespace nnremote::tools {

hal::Result<BuiltModel> builtInModel(const std::string& name);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_MODELS_BUILT_IN_H_
