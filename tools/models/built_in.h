// The models nnremote commands can drive by name, each with one deterministic input: "sample",
// and the image networks as float32 and quant8: "mobilenet" (v1 1.0-224), "mobilenet-0.25",
// "mobilenet-v2", "inception-v1", "inception-v4", "squeezenet", "resnet50" (v1 at 299),
// "mobilenet-ssd" (v1 SSD 300), "mobilenet-v2-ssd", each also as "NAME-quant8".
#ifndef NNREMOTE_TOOLS_MODELS_BUILT_IN_H_
#define NNREMOTE_TOOLS_MODELS_BUILT_IN_H_

#include <string>
#include <vector>

#include "hal/result.h"
#include "tools/models/mobilenet_v1.h"

namespace nnremote::tools {

hal::Result<BuiltModel> builtInModel(const std::string& name);
std::vector<std::string> builtInModelNames();

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_MODELS_BUILT_IN_H_
