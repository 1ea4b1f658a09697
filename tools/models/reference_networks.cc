#include "tools/models/reference_networks.h"

#include "tools/models/network_builder.h"

namespace nnremote::tools {
namespace {

// MobileNet v2's inverted residual: expand 1x1 (ReLU6), depthwise 3x3 (ReLU6), project 1x1
// (linear), plus the input when the shape is kept.
Tensor invertedResidual(NetworkBuilder& b, const Tensor& in, uint32_t expansion, uint32_t channels, uint32_t stride) {
  Tensor x = in;
  if (expansion != 1) x = b.conv(x, in.channels * expansion, 1, 1, Activation::RELU6);
  x = b.depthwise(x, 3, stride, Activation::RELU6);
  x = b.conv(x, channels, 1, 1, Activation::NONE);
  return stride == 1 && in.channels == channels ? b.add(in, x, Activation::NONE) : x;
}

struct InceptionModule {
  uint32_t branch0, branch1Reduce, branch1, branch2Reduce, branch2, poolProjection;
};

Tensor inception(NetworkBuilder& b, const Tensor& in, const InceptionModule& m) {
  const Tensor branch0 = b.conv(in, m.branch0, 1, 1, Activation::RELU);
  const Tensor branch1 = b.conv(b.conv(in, m.branch1Reduce, 1, 1, Activation::RELU), m.branch1, 3, 1, Activation::RELU);
  const Tensor branch2 = b.conv(b.conv(in, m.branch2Reduce, 1, 1, Activation::RELU), m.branch2, 3, 1, Activation::RELU);
  const Tensor branch3 = b.conv(b.maxPool(in, 3, 1, Padding::SAME), m.poolProjection, 1, 1, Activation::RELU);
  return b.concatChannels({branch0, branch1, branch2, branch3});
}

// SqueezeNet's fire module: squeeze 1x1, then 1x1 and 3x3 expansions side by side.
Tensor fire(NetworkBuilder& b, const Tensor& in, uint32_t squeeze, uint32_t expand) {
  const Tensor squeezed = b.conv(in, squeeze, 1, 1, Activation::RELU);
  return b.concatChannels(
      {b.conv(squeezed, expand, 1, 1, Activation::RELU), b.conv(squeezed, expand, 3, 1, Activation::RELU)});
}

// ResNet v1's bottleneck: 1x1 (stride here, as v1 does), 3x3, 1x1 to 4x the width; the shortcut
// is projected where the shape changes.
Tensor bottleneck(NetworkBuilder& b, const Tensor& in, uint32_t width, uint32_t stride) {
  const uint32_t channels = 4 * width;
  const Tensor shortcut =
      stride == 1 && in.channels == channels ? in : b.conv(in, channels, 1, stride, Activation::NONE);
  Tensor x = b.conv(in, width, 1, stride, Activation::RELU);
  x = b.conv(x, width, 3, 1, Activation::RELU);
  x = b.conv(x, channels, 1, 1, Activation::NONE);
  return b.add(x, shortcut, Activation::RELU);
}

}  // namespace

BuiltModel buildMobileNetV2(Precision precision) {
  NetworkBuilder b(precision);
  Tensor x = b.conv(b.input(224, 224, 3), 32, 3, 2, Activation::RELU6);
  struct Stage {
    uint32_t expansion, channels, repeats, stride;
  };
  const Stage stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                          {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  for (const Stage& stage : stages) {
    for (uint32_t i = 0; i < stage.repeats; ++i) {
      x = invertedResidual(b, x, stage.expansion, stage.channels, i == 0 ? stage.stride : 1);
    }
  }
  x = b.conv(x, 1280, 1, 1, Activation::RELU6);
  return b.finishWithSoftmax(b.classifier(b.averagePool(x, 7, 1, Padding::VALID), 1001));
}

BuiltModel buildInceptionV1(Precision precision) {
  NetworkBuilder b(precision);
  Tensor x = b.conv(b.input(224, 224, 3), 64, 7, 2, Activation::RELU);  // 112
  x = b.maxPool(x, 3, 2, Padding::SAME);                                 // 56
  x = b.conv(x, 64, 1, 1, Activation::RELU);
  x = b.conv(x, 192, 3, 1, Activation::RELU);
  x = b.maxPool(x, 3, 2, Padding::SAME);  // 28
  x = inception(b, x, {64, 96, 128, 16, 32, 32});     // 3a
  x = inception(b, x, {128, 128, 192, 32, 96, 64});   // 3b
  x = b.maxPool(x, 3, 2, Padding::SAME);              // 14
  x = inception(b, x, {192, 96, 208, 16, 48, 64});    // 4a
  x = inception(b, x, {160, 112, 224, 24, 64, 64});   // 4b
  x = inception(b, x, {128, 128, 256, 24, 64, 64});   // 4c
  x = inception(b, x, {112, 144, 288, 32, 64, 64});   // 4d
  x = inception(b, x, {256, 160, 320, 32, 128, 128}); // 4e
  x = b.maxPool(x, 2, 2, Padding::SAME);              // 7
  x = inception(b, x, {256, 160, 320, 32, 128, 128}); // 5a
  x = inception(b, x, {384, 192, 384, 48, 128, 128}); // 5b
  return b.finishWithSoftmax(b.classifier(b.averagePool(x, 7, 1, Padding::VALID), 1001));
}

BuiltModel buildSqueezeNet(Precision precision) {
  NetworkBuilder b(precision);
  Tensor x = b.conv(b.input(224, 224, 3), 96, 7, 2, Activation::RELU, Padding::VALID);  // 109
  x = b.maxPool(x, 3, 2, Padding::VALID);                                              // 54
  x = fire(b, x, 16, 64);
  x = fire(b, x, 16, 64);
  x = fire(b, x, 32, 128);
  x = b.maxPool(x, 3, 2, Padding::VALID);  // 26
  x = fire(b, x, 32, 128);
  x = fire(b, x, 48, 192);
  x = fire(b, x, 48, 192);
  x = fire(b, x, 64, 256);
  x = b.maxPool(x, 3, 2, Padding::VALID);  // 12
  x = fire(b, x, 64, 256);
  // conv10 is the classifier: 1x1 to the classes, ReLU, then the global average.
  x = b.conv(x, 1000, 1, 1, Activation::RELU);
  x = b.averagePool(x, x.height, 1, Padding::VALID);
  return b.finishWithSoftmax(x);
}

BuiltModel buildResNet50V1(Precision precision) {
  NetworkBuilder b(precision);
  Tensor x = b.conv(b.input(299, 299, 3), 64, 7, 2, Activation::RELU);  // 150
  x = b.maxPool(x, 3, 2, Padding::SAME);                                // 75
  struct Stage {
    uint32_t width, blocks, stride;
  };
  for (const Stage& stage : {Stage{64, 3, 1}, Stage{128, 4, 2}, Stage{256, 6, 2}, Stage{512, 3, 2}}) {
    for (uint32_t i = 0; i < stage.blocks; ++i) x = bottleneck(b, x, stage.width, i == 0 ? stage.stride : 1);
  }
  return b.finishWithSoftmax(b.classifier(b.averagePool(x, x.height, 1, Padding::VALID), 1001));  // 10 x 10
}

}  // namespace nnremote::tools
