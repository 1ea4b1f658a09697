#include "tools/models/reference_networks.h"

#include <iterator>
#include <utility>
#include <vector>

#include "tools/models/network_builder.h"

namespace nnremote::tools {
namespace {

// MobileNet v2's inverted residual: expand 1x1 (ReLU6), depthwise 3x3 (ReLU6), project 1x1
// (linear), plus the input when the shape is kept. `expanded`, if given, receives the
// expansion's output (SSD takes a feature map from one).
Tensor invertedResidual(NetworkBuilder& b, const Tensor& in, uint32_t expansion, uint32_t channels, uint32_t stride,
                        Tensor* expanded = nullptr) {
  Tensor x = in;
  if (expansion != 1) x = b.conv(x, in.channels * expansion, 1, 1, Activation::RELU6);
  if (expanded != nullptr) *expanded = x;
  x = b.depthwise(x, 3, stride, Activation::RELU6);
  x = b.conv(x, channels, 1, 1, Activation::NONE);
  return stride == 1 && in.channels == channels ? b.add(in, x, Activation::NONE) : x;
}

// MobileNet v2's bottleneck stages (Sandler et al. 2018, table 2) after its first convolution.
struct MobileNetV2Stage {
  uint32_t expansion, channels, repeats, stride;
};
constexpr MobileNetV2Stage kMobileNetV2Stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                                   {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};

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

// Inception v4's blocks (Szegedy et al. 2016, figures 3-8, as TF-slim builds them); every
// convolution with ReLU, SAME unless VALID is named.
constexpr Activation kRelu = Activation::RELU;

Tensor averagePooledProjection(NetworkBuilder& b, const Tensor& in, uint32_t channels) {
  return b.conv(b.averagePool(in, 3, 1, Padding::SAME), channels, 1, 1, kRelu);
}

Tensor inceptionV4A(NetworkBuilder& b, const Tensor& in) {  // 35x35x384
  const Tensor branch1 = b.conv(b.conv(in, 64, 1, 1, kRelu), 96, 3, 1, kRelu);
  const Tensor branch2 = b.conv(b.conv(b.conv(in, 64, 1, 1, kRelu), 96, 3, 1, kRelu), 96, 3, 1, kRelu);
  return b.concatChannels({b.conv(in, 96, 1, 1, kRelu), branch1, branch2, averagePooledProjection(b, in, 96)});
}

Tensor inceptionV4B(NetworkBuilder& b, const Tensor& in) {  // 17x17x1024
  Tensor branch1 = b.conv(in, 192, 1, 1, kRelu);
  branch1 = b.factorizedConv(b.factorizedConv(branch1, 224, 1, 7, kRelu), 256, 7, 1, kRelu);
  Tensor branch2 = b.factorizedConv(b.conv(in, 192, 1, 1, kRelu), 192, 7, 1, kRelu);
  branch2 = b.factorizedConv(b.factorizedConv(branch2, 224, 1, 7, kRelu), 224, 7, 1, kRelu);
  branch2 = b.factorizedConv(branch2, 256, 1, 7, kRelu);
  return b.concatChannels({b.conv(in, 384, 1, 1, kRelu), branch1, branch2, averagePooledProjection(b, in, 128)});
}

Tensor inceptionV4C(NetworkBuilder& b, const Tensor& in) {  // 8x8x1536
  const Tensor reduced1 = b.conv(in, 384, 1, 1, kRelu);
  Tensor reduced2 = b.factorizedConv(b.conv(in, 384, 1, 1, kRelu), 448, 3, 1, kRelu);
  reduced2 = b.factorizedConv(reduced2, 512, 1, 3, kRelu);
  return b.concatChannels({b.conv(in, 256, 1, 1, kRelu), b.factorizedConv(reduced1, 256, 1, 3, kRelu),
                           b.factorizedConv(reduced1, 256, 3, 1, kRelu), b.factorizedConv(reduced2, 256, 1, 3, kRelu),
                           b.factorizedConv(reduced2, 256, 3, 1, kRelu), averagePooledProjection(b, in, 256)});
}

// SSD anchors: one [ycenter, xcenter, height, width] box per anchor, spread over the grid.
std::vector<float> ssdAnchors(const std::vector<std::pair<uint32_t, uint32_t>>& grids) {
  std::vector<float> anchors;
  for (const auto& [size, perPosition] : grids) {
    for (uint32_t y = 0; y < size; ++y) {
      for (uint32_t x = 0; x < size; ++x) {
        for (uint32_t a = 0; a < perPosition; ++a) {
          const float scale = 0.2f + 0.15f * float(a) / float(perPosition);
          anchors.insert(anchors.end(), {(y + 0.5f) / size, (x + 0.5f) / size, scale, scale});
        }
      }
    }
  }
  return anchors;
}

// The SSD head the TensorFlow object detection API puts on a MobileNet: from the backbone's two
// feature maps (19x19 and 10x10), four extra layers down to 1x1 (a 1x1 reduction, then a 3x3
// stride-2 convolution), 1x1 box predictors with 3 anchors per position on the first map and 6
// on the others (1,917 anchors), 91 classes with background, and DETECTION_POSTPROCESSING to 10
// detections, as the TFLite model ends.
BuiltModel finishSsd(NetworkBuilder& b, std::vector<Tensor> features) {
  Tensor x = features.back();
  for (const auto& [reduce, channels] : {std::pair<uint32_t, uint32_t>{256, 512}, {128, 256}, {128, 256}, {64, 128}}) {
    x = b.conv(b.conv(x, reduce, 1, 1, Activation::RELU6), channels, 3, 2, Activation::RELU6);  // 5, 3, 2, 1
    features.push_back(x);
  }

  // Box predictors: per position, 4 box offsets and 91 class logits for each anchor.
  constexpr uint32_t kClasses = 91, kDetections = 10;
  hal::ModelBuilder& raw = b.raw();
  const hal::OperandType type = b.tensorType();
  std::vector<uint32_t> boxParts, classParts;
  std::vector<std::pair<uint32_t, uint32_t>> grids;
  uint32_t anchors = 0;
  for (size_t i = 0; i < features.size(); ++i) {
    const Tensor& feature = features[i];
    const uint32_t perPosition = i == 0 ? 3 : 6;
    const uint32_t count = feature.height * feature.width * perPosition;
    grids.emplace_back(feature.height, perPosition);
    anchors += count;
    for (const auto& [width, parts] : {std::make_pair(4u, &boxParts), std::make_pair(kClasses, &classParts)}) {
      const Tensor logits = b.classifier(feature, width * perPosition);
      const auto& operand = raw.model().main.operands[logits.operand];
      const uint32_t reshaped = raw.addTemporary(type, {1, count, width}, operand.scale, operand.zeroPoint);
      raw.addOperation(hal::OperationType::RESHAPE,
                       {logits.operand, raw.addConstant(hal::OperandType::TENSOR_INT32, {3},
                                                        std::vector<int32_t>{1, int32_t(count), int32_t(width)})},
                       {reshaped});
      parts->push_back(reshaped);
    }
  }
  // All anchors together. Class logits become scores through LOGISTIC, quantized in a quant8
  // model as in the TFLite model (NNAPI fixes its output scale at 1/256); DETECTION_POSTPROCESSING
  // takes floats, so quantized boxes and scores are then dequantized, which the TFLite model's
  // postprocessing does inside its custom operation.
  auto concatenated = [&](std::vector<uint32_t> parts, uint32_t width) {
    const auto& first = raw.model().main.operands[parts.front()];
    const uint32_t all = raw.addTemporary(type, {1, anchors, width}, first.scale, first.zeroPoint);
    parts.push_back(raw.addInt32(1));
    raw.addOperation(hal::OperationType::CONCATENATION, parts, {all});
    return all;
  };
  auto asFloat = [&](uint32_t operand, uint32_t width) {
    if (!b.quantized()) return operand;
    const uint32_t real = raw.addTemporary(hal::OperandType::TENSOR_FLOAT32, {1, anchors, width});
    raw.addOperation(hal::OperationType::DEQUANTIZE, {operand}, {real});
    return real;
  };
  const uint32_t boxes = asFloat(concatenated(boxParts, 4), 4);
  const uint32_t probabilities = b.quantized() ? raw.addTemporary(type, {1, anchors, kClasses}, 1.0f / 256, 0)
                                               : raw.addTemporary(type, {1, anchors, kClasses});
  raw.addOperation(hal::OperationType::LOGISTIC, {concatenated(classParts, kClasses)}, {probabilities});
  const uint32_t scores = asFloat(probabilities, kClasses);

  const uint32_t detectionScores = raw.addOutput(hal::OperandType::TENSOR_FLOAT32, {1, kDetections});
  const uint32_t detectionBoxes = raw.addOutput(hal::OperandType::TENSOR_FLOAT32, {1, kDetections, 4});
  const uint32_t detectionClasses = raw.addOutput(hal::OperandType::TENSOR_INT32, {1, kDetections});
  const uint32_t detections = raw.addOutput(hal::OperandType::TENSOR_INT32, {1});
  // The TFLite model's TFLite_Detection_PostProcess options: box scales 10, 10, 5, 5; fast NMS;
  // one class per detection; IoU 0.6; a score threshold just above 0; background excluded.
  raw.addOperation(
      hal::OperationType::DETECTION_POSTPROCESSING,
      {scores, boxes, raw.addConstant(hal::OperandType::TENSOR_FLOAT32, {anchors, 4}, ssdAnchors(grids)),
       raw.addFloat32(10.0f), raw.addFloat32(10.0f), raw.addFloat32(5.0f), raw.addFloat32(5.0f), raw.addBool(false),
       raw.addInt32(kDetections), raw.addInt32(1), raw.addInt32(100), raw.addFloat32(0.6f), raw.addFloat32(1e-8f),
       raw.addBool(false)},
      {detectionScores, detectionBoxes, detectionClasses, detections});
  return b.finish();
}

}  // namespace

BuiltModel buildMobileNetV1Ssd(Precision precision) {
  NetworkBuilder b(precision);
  Tensor x = b.conv(b.input(300, 300, 3), 32, 3, 2, Activation::RELU6);  // 150
  const std::pair<uint32_t, uint32_t> blocks[] = {{64, 1},  {128, 2}, {128, 1}, {256, 2}, {256, 1},
                                                  {512, 2}, {512, 1}, {512, 1}, {512, 1}, {512, 1},
                                                  {512, 1}, {1024, 2}, {1024, 1}};  // output channels, stride
  std::vector<Tensor> features;
  for (size_t i = 0; i < std::size(blocks); ++i) {
    x = b.depthwise(x, 3, blocks[i].second, Activation::RELU6);
    x = b.conv(x, blocks[i].first, 1, 1, Activation::RELU6);
    if (i == 10 || i == 12) features.push_back(x);  // conv11: 19x19x512, conv13: 10x10x1024
  }
  return finishSsd(b, std::move(features));
}

BuiltModel buildMobileNetV2Ssd(Precision precision) {
  NetworkBuilder b(precision);
  Tensor x = b.conv(b.input(300, 300, 3), 32, 3, 2, Activation::RELU6);  // 150
  std::vector<Tensor> features;
  for (const MobileNetV2Stage& stage : kMobileNetV2Stages) {
    for (uint32_t i = 0; i < stage.repeats; ++i) {
      Tensor expansion{};
      x = invertedResidual(b, x, stage.expansion, stage.channels, i == 0 ? stage.stride : 1, &expansion);
      // layer_15/expansion_output: the first 160-channel block's expansion, 19x19x576.
      if (stage.channels == 160 && i == 0) features.push_back(expansion);
    }
  }
  features.push_back(b.conv(x, 1280, 1, 1, Activation::RELU6));  // layer_19: 10x10x1280
  return finishSsd(b, std::move(features));
}

BuiltModel buildMobileNetV2(Precision precision) {
  NetworkBuilder b(precision);
  Tensor x = b.conv(b.input(224, 224, 3), 32, 3, 2, Activation::RELU6);
  for (const MobileNetV2Stage& stage : kMobileNetV2Stages) {
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

BuiltModel buildInceptionV4(Precision precision) {
  NetworkBuilder b(precision);
  // Stem (figure 3).
  Tensor x = b.conv(b.input(299, 299, 3), 32, 3, 2, kRelu, Padding::VALID);  // 149
  x = b.conv(x, 32, 3, 1, kRelu, Padding::VALID);                             // 147
  x = b.conv(x, 64, 3, 1, kRelu);
  x = b.concatChannels({b.maxPool(x, 3, 2, Padding::VALID), b.conv(x, 96, 3, 2, kRelu, Padding::VALID)});  // 73
  const Tensor left = b.conv(b.conv(x, 64, 1, 1, kRelu), 96, 3, 1, kRelu, Padding::VALID);                // 71
  Tensor right = b.factorizedConv(b.conv(x, 64, 1, 1, kRelu), 64, 1, 7, kRelu);
  right = b.conv(b.factorizedConv(right, 64, 7, 1, kRelu), 96, 3, 1, kRelu, Padding::VALID);
  x = b.concatChannels({left, right});
  x = b.concatChannels({b.conv(x, 192, 3, 2, kRelu, Padding::VALID), b.maxPool(x, 3, 2, Padding::VALID)});  // 35
  for (int i = 0; i < 4; ++i) x = inceptionV4A(b, x);
  // Reduction-A (figure 7, k=192, l=224, m=256, n=384): to 17x17x1024.
  Tensor reduced = b.conv(b.conv(b.conv(x, 192, 1, 1, kRelu), 224, 3, 1, kRelu), 256, 3, 2, kRelu, Padding::VALID);
  x = b.concatChannels({b.conv(x, 384, 3, 2, kRelu, Padding::VALID), reduced, b.maxPool(x, 3, 2, Padding::VALID)});
  for (int i = 0; i < 7; ++i) x = inceptionV4B(b, x);
  // Reduction-B (figure 8): to 8x8x1536.
  const Tensor narrow = b.conv(b.conv(x, 192, 1, 1, kRelu), 192, 3, 2, kRelu, Padding::VALID);
  reduced = b.factorizedConv(b.factorizedConv(b.conv(x, 256, 1, 1, kRelu), 256, 1, 7, kRelu), 320, 7, 1, kRelu);
  reduced = b.conv(reduced, 320, 3, 2, kRelu, Padding::VALID);
  x = b.concatChannels({narrow, reduced, b.maxPool(x, 3, 2, Padding::VALID)});
  for (int i = 0; i < 3; ++i) x = inceptionV4C(b, x);
  return b.finishWithSoftmax(b.classifier(b.averagePool(x, x.height, 1, Padding::VALID), 1001));
}

}  // namespace nnremote::tools
