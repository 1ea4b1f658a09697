#include "tools/models/built_in.h"

#include "hal/model_builder.h"
#include "tools/sample_model.h"

namespace nnremote::tools {

hal::Result<BuiltModel> builtInModel(const std::string& name) {
  if (name == "mobilenet") return buildMobileNetV1(Precision::FLOAT32);
  if (name == "mobilenet-quant8") return buildMobileNetV1(Precision::QUANT8);
  if (name == "sample") {
    const SampleModel sample = buildSampleModel();
    BuiltModel built;
    built.model = sample.model;
    built.input = hal::toBytes(sample.input);
    built.outputBytes = 4 * sizeof(float);
    return built;
  }
  return hal::invalidArgument() << "--model must be sample, mobilenet or mobilenet-quant8, not '" << name << "'";
}

}  // namespace nnremote::tools
