#include "tools/models/mobilenet_v1.h"

#include "tools/models/network_builder.h"

namespace nnremote::tools {

BuiltModel buildMobileNetV1(Precision precision) {
  NetworkBuilder b(precision);
  Tensor x = b.input(224, 224, 3);
  x = b.conv(x, 32, 3, 2, Activation::RELU6);
  const std::pair<uint32_t, uint32_t> blocks[] = {{64, 1},  {128, 2}, {128, 1}, {256, 2}, {256, 1},
                                                  {512, 2}, {512, 1}, {512, 1}, {512, 1}, {512, 1},
                                                  {512, 1}, {1024, 2}, {1024, 1}};  // output channels, stride
  for (const auto& [channels, stride] : blocks) {
    x = b.depthwise(x, 3, stride, Activation::RELU6);
    x = b.conv(x, channels, 1, 1, Activation::RELU6);
  }
  return b.finishWithSoftmax(b.classifier(b.averagePool(x, 7, 1, Padding::VALID), 1001));
}

}  // namespace nnremote::tools
