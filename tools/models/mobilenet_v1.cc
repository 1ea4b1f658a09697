#include "tools/models/mobilenet_v1.h"

#include <cmath>

#include "hal/model_builder.h"

namespace nnremote::tools {
namespace {

using hal::OperandType;
using hal::OperationType;

// A fixed linear congruential generator, so every build is identical on every machine.
class Lcg {
 public:
  float uniform() {  // in [-1, 1)
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>((state_ >> 40) & 0xffffff) / float(1 << 23) - 1.0f;
  }

 private:
  uint64_t state_ = 20261121;
};

// Quantized activations after ReLU6: [0, 6] in uint8.
constexpr float kActivationScale = 6.0f / 255.0f;

class Builder {
 public:
  explicit Builder(Precision precision) : precision_(precision) {}

  bool quantized() const { return precision_ == Precision::QUANT8; }
  OperandType tensorType() const {
    return quantized() ? OperandType::TENSOR_QUANT8_ASYMM : OperandType::TENSOR_FLOAT32;
  }

  uint32_t input() {
    return b_.addInput(tensorType(), {1, 224, 224, 3}, quantized() ? 1.0f / 128 : 0.0f,
                       quantized() ? 128 : 0);
  }

  // Weights with variance 2 / fan_in (He), so activations stay in range through 28 layers.
  uint32_t weights(std::vector<uint32_t> dims, uint32_t fanIn) {
    size_t count = 1;
    for (uint32_t d : dims) count *= d;
    const float range = std::sqrt(6.0f / float(fanIn));
    if (!quantized()) {
      std::vector<float> values(count);
      for (float& v : values) v = range * rng_.uniform();
      return b_.addConstant(OperandType::TENSOR_FLOAT32, dims, values);
    }
    std::vector<uint8_t> values(count);
    for (uint8_t& v : values) v = static_cast<uint8_t>(128 + std::lround(127 * rng_.uniform()));
    return b_.addConstant(OperandType::TENSOR_QUANT8_ASYMM, dims, values, range / 127.0f, 128);
  }

  uint32_t bias(uint32_t channels, float inputScale, float weightScale) {
    if (!quantized()) {
      std::vector<float> values(channels);
      for (float& v : values) v = 0.01f * rng_.uniform();
      return b_.addConstant(OperandType::TENSOR_FLOAT32, {channels}, values);
    }
    return b_.addConstant(OperandType::TENSOR_INT32, {channels}, std::vector<int32_t>(channels, 0),
                          inputScale * weightScale);
  }

  float scaleOf(uint32_t operand) { return b_.model().main.operands[operand].scale; }

  uint32_t activation(std::vector<uint32_t> dims, bool isOutput = false) {
    const float scale = quantized() ? kActivationScale : 0.0f;
    return isOutput ? b_.addOutput(tensorType(), dims, scale, 0) : b_.addTemporary(tensorType(), dims, scale, 0);
  }

  uint32_t conv(uint32_t in, uint32_t inC, uint32_t outC, uint32_t k, uint32_t stride, uint32_t size) {
    const uint32_t w = weights({outC, k, k, inC}, k * k * inC);
    const uint32_t bias = this->bias(outC, scaleOf(in), scaleOf(w));
    const uint32_t out = activation({1, size, size, outC});
    b_.addOperation(OperationType::CONV_2D,
                    {in, w, bias, b_.addInt32(1), b_.addInt32(stride), b_.addInt32(stride), b_.addInt32(3)},
                    {out});
    return out;
  }

  uint32_t depthwise(uint32_t in, uint32_t channels, uint32_t stride, uint32_t size) {
    const uint32_t w = weights({1, 3, 3, channels}, 9);
    const uint32_t bias = this->bias(channels, scaleOf(in), scaleOf(w));
    const uint32_t out = activation({1, size, size, channels});
    b_.addOperation(OperationType::DEPTHWISE_CONV_2D,
                    {in, w, bias, b_.addInt32(1), b_.addInt32(stride), b_.addInt32(stride),
                     b_.addInt32(1), b_.addInt32(3)},
                    {out});
    return out;
  }

  hal::ModelBuilder& raw() { return b_; }

 private:
  Precision precision_;
  hal::ModelBuilder b_;
  Lcg rng_;
};

}  // namespace

BuiltModel buildMobileNetV1(Precision precision) {
  Builder b(precision);
  uint32_t x = b.input();
  x = b.conv(x, 3, 32, 3, 2, 112);
  struct Block {
    uint32_t out, stride, size;
  };
  const Block blocks[] = {{64, 1, 112},  {128, 2, 56}, {128, 1, 56}, {256, 2, 28}, {256, 1, 28},
                          {512, 2, 14},  {512, 1, 14}, {512, 1, 14}, {512, 1, 14}, {512, 1, 14},
                          {512, 1, 14},  {1024, 2, 7}, {1024, 1, 7}};
  uint32_t channels = 32;
  for (const Block& block : blocks) {
    x = b.depthwise(x, channels, block.stride, block.size);
    x = b.conv(x, channels, block.out, 1, 1, block.size);
    channels = block.out;
  }
  const OperandType type = b.tensorType();
  const float scale = b.quantized() ? kActivationScale : 0.0f;
  hal::ModelBuilder& raw = b.raw();
  const uint32_t pooled = raw.addTemporary(type, {1, 1, 1, 1024}, scale, 0);
  raw.addOperation(OperationType::AVERAGE_POOL_2D,
                   {x, raw.addInt32(2), raw.addInt32(1), raw.addInt32(1), raw.addInt32(7),
                    raw.addInt32(7), raw.addInt32(0)},
                   {pooled});
  // The classifier is a 1x1 convolution to 1001 classes (no activation), as in the TFLite model.
  const uint32_t w = b.weights({1001, 1, 1, 1024}, 1024);
  const uint32_t bias = b.bias(1001, scale, b.scaleOf(w));
  const float logitScale = b.quantized() ? 0.2f : 0.0f;
  const uint32_t logits = raw.addTemporary(type, {1, 1, 1, 1001}, logitScale, b.quantized() ? 128 : 0);
  raw.addOperation(OperationType::CONV_2D,
                   {pooled, w, bias, raw.addInt32(1), raw.addInt32(1), raw.addInt32(1), raw.addInt32(0)},
                   {logits});
  const uint32_t flat = raw.addTemporary(type, {1, 1001}, logitScale, b.quantized() ? 128 : 0);
  raw.addOperation(OperationType::RESHAPE,
                   {logits, raw.addConstant(OperandType::TENSOR_INT32, {2}, std::vector<int32_t>{1, 1001})},
                   {flat});
  const uint32_t probabilities = raw.addOutput(type, {1, 1001}, b.quantized() ? 1.0f / 256 : 0.0f, 0);
  raw.addOperation(OperationType::SOFTMAX, {flat, raw.addFloat32(1.0f)}, {probabilities});

  BuiltModel built;
  built.model = raw.build();
  Lcg pixels;
  const size_t count = 224 * 224 * 3;
  if (b.quantized()) {
    built.input.resize(count);
    for (uint8_t& v : built.input) v = static_cast<uint8_t>(128 + std::lround(127 * pixels.uniform()));
    built.outputBytes = 1001;
  } else {
    std::vector<float> values(count);
    for (float& v : values) v = pixels.uniform();
    built.input = hal::toBytes(values);
    built.outputBytes = 1001 * sizeof(float);
  }
  return built;
}

}  // namespace nnremote::tools
