#include "tools/models/mobilenet_v1.h"

#include <algorithm>

#include "tools/models/network_builder.h"

namespace nnremote::tools {

namespace {

// The network at width `multiplier`: each layer's channels scaled, rounded down, at least 8.
BuiltModel buildMobileNetV1AtWidth(Precision precision, double multiplier) {
  auto width = [multiplier](uint32_t channels) {
    return std::max<uint32_t>(8, static_cast<uint32_t>(channels * multiplier));
  };
  NetworkBuilder b(precision);
  Tensor x = b.input(224, 224, 3);
  x = b.conv(x, width(32), 3, 2, Activation::RELU6);
  const std::pair<uint32_t, uint32_t> blocks[] = {{64, 1},  {128, 2}, {128, 1}, {256, 2}, {256, 1},
                                                  {512, 2}, {512, 1}, {512, 1}, {512, 1}, {512, 1},
                                                  {512, 1}, {1024, 2}, {1024, 1}};  // output channels, stride
  for (const auto& [channels, stride] : blocks) {
    x = b.depthwise(x, 3, stride, Activation::RELU6);
    x = b.conv(x, width(channels), 1, 1, Activation::RELU6);
  }
  return b.finishWithSoftmax(b.classifier(b.averagePool(x, 7, 1, Padding::VALID), 1001));
}

}  // namespace

BuiltModel buildMobileNetV1(Precision precision) { return buildMobileNetV1AtWidth(precision, 1.0); }

BuiltModel buildMobileNetV1Quarter(Precision precision) { return buildMobileNetV1AtWidth(precision, 0.25); }

}  // namespace nnremote::tools
