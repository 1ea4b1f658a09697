#include "tools/models/built_in.h"

#include <functional>
#include <utility>

#include "hal/model_builder.h"
#include "tools/models/reference_networks.h"
#include "tools/sample_model.h"

namespace nnremote::tools {
namespace {

// Each network as float32 ("NAME") and quant8 ("NAME-quant8").
const std::pair<const char*, BuiltModel (*)(Precision)> kNetworks[] = {
    {"mobilenet", buildMobileNetV1},     {"mobilenet-0.25", buildMobileNetV1Quarter},
    {"mobilenet-v2", buildMobileNetV2},  {"inception-v1", buildInceptionV1},
    {"inception-v4", buildInceptionV4},  {"squeezenet", buildSqueezeNet},
    {"resnet50", buildResNet50V1},       {"mobilenet-ssd", buildMobileNetV1Ssd},
    {"mobilenet-v2-ssd", buildMobileNetV2Ssd},
};

}  // namespace

std::vector<std::string> builtInModelNames() {
  std::vector<std::string> names = {"sample"};
  for (const auto& [name, build] : kNetworks) {
    names.push_back(name);
    names.push_back(std::string(name) + "-quant8");
  }
  return names;
}

hal::Result<BuiltModel> builtInModel(const std::string& name) {
  if (name == "sample") {
    const SampleModel sample = buildSampleModel();
    BuiltModel built;
    built.model = sample.model;
    built.input = hal::toBytes(sample.input);
    built.outputSizes = {4 * sizeof(float)};
    return built;
  }
  for (const auto& [network, build] : kNetworks) {
    if (name == network) return build(Precision::FLOAT32);
    if (name == std::string(network) + "-quant8") return build(Precision::QUANT8);
  }
  auto error = hal::invalidArgument();
  error << "--model must be one of";
  for (const auto& known : builtInModelNames()) error << " " << known;
  return error << ", not '" << name << "'";
}

}  // namespace nnremote::tools
