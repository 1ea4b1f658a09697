#include "tools/models/network_builder.h"

#include <cmath>

#include "hal/operand_types.h"

namespace nnremote::tools {
namespace {

using hal::OperandType;
using hal::OperationType;

// Quantized activations: [0, 6] in uint8, what ReLU6 produces.
constexpr float kActivationScale = 6.0f / 255.0f;

uint32_t outputSize(uint32_t in, uint32_t kernel, uint32_t stride, Padding padding) {
  return padding == Padding::SAME ? (in + stride - 1) / stride : (in - kernel) / stride + 1;
}

}  // namespace

OperandType NetworkBuilder::tensorType() const {
  return quantized() ? OperandType::TENSOR_QUANT8_ASYMM : OperandType::TENSOR_FLOAT32;
}

Tensor NetworkBuilder::input(uint32_t height, uint32_t width, uint32_t channels) {
  input_ = {b_.addInput(tensorType(), {1, height, width, channels}, quantized() ? 1.0f / 128 : 0.0f,
                        quantized() ? 128 : 0),
            height, width, channels};
  return input_;
}

uint32_t NetworkBuilder::weights(std::vector<uint32_t> dims, uint32_t fanIn) {
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

uint32_t NetworkBuilder::bias(uint32_t channels, float inputScale, float weightScale) {
  if (!quantized()) {
    std::vector<float> values(channels);
    for (float& v : values) v = 0.01f * rng_.uniform();
    return b_.addConstant(OperandType::TENSOR_FLOAT32, {channels}, values);
  }
  return b_.addConstant(OperandType::TENSOR_INT32, {channels}, std::vector<int32_t>(channels, 0),
                        inputScale * weightScale);
}

Tensor NetworkBuilder::activationTensor(uint32_t height, uint32_t width, uint32_t channels) {
  return {b_.addTemporary(tensorType(), {1, height, width, channels}, quantized() ? kActivationScale : 0.0f, 0),
          height, width, channels};
}

Tensor NetworkBuilder::conv(const Tensor& in, uint32_t outChannels, uint32_t kernel, uint32_t stride,
                            Activation activation, Padding padding) {
  return convolution(in, outChannels, kernel, kernel, stride, activation, padding);
}

Tensor NetworkBuilder::factorizedConv(const Tensor& in, uint32_t outChannels, uint32_t kernelHeight,
                                      uint32_t kernelWidth, Activation activation) {
  return convolution(in, outChannels, kernelHeight, kernelWidth, 1, activation, Padding::SAME);
}

Tensor NetworkBuilder::convolution(const Tensor& in, uint32_t outChannels, uint32_t kernelHeight,
                                   uint32_t kernelWidth, uint32_t stride, Activation activation, Padding padding) {
  const uint32_t w =
      weights({outChannels, kernelHeight, kernelWidth, in.channels}, kernelHeight * kernelWidth * in.channels);
  const uint32_t bias = this->bias(outChannels, scaleOf(in.operand), scaleOf(w));
  const Tensor out = activationTensor(outputSize(in.height, kernelHeight, stride, padding),
                                      outputSize(in.width, kernelWidth, stride, padding), outChannels);
  b_.addOperation(OperationType::CONV_2D,
                  {in.operand, w, bias, b_.addInt32(int32_t(padding)), b_.addInt32(stride), b_.addInt32(stride),
                   b_.addInt32(int32_t(activation))},
                  {out.operand});
  return out;
}

Tensor NetworkBuilder::depthwise(const Tensor& in, uint32_t kernel, uint32_t stride, Activation activation,
                                 Padding padding) {
  const uint32_t w = weights({1, kernel, kernel, in.channels}, kernel * kernel);
  const uint32_t bias = this->bias(in.channels, scaleOf(in.operand), scaleOf(w));
  const Tensor out = activationTensor(outputSize(in.height, kernel, stride, padding),
                                      outputSize(in.width, kernel, stride, padding), in.channels);
  b_.addOperation(OperationType::DEPTHWISE_CONV_2D,
                  {in.operand, w, bias, b_.addInt32(int32_t(padding)), b_.addInt32(stride), b_.addInt32(stride),
                   b_.addInt32(1), b_.addInt32(int32_t(activation))},
                  {out.operand});
  return out;
}

Tensor NetworkBuilder::pool(OperationType type, const Tensor& in, uint32_t kernel, uint32_t stride,
                            Padding padding) {
  const Tensor out = activationTensor(outputSize(in.height, kernel, stride, padding),
                                      outputSize(in.width, kernel, stride, padding), in.channels);
  b_.addOperation(type,
                  {in.operand, b_.addInt32(int32_t(padding)), b_.addInt32(stride), b_.addInt32(stride),
                   b_.addInt32(kernel), b_.addInt32(kernel), b_.addInt32(0)},
                  {out.operand});
  return out;
}

Tensor NetworkBuilder::maxPool(const Tensor& in, uint32_t kernel, uint32_t stride, Padding padding) {
  return pool(OperationType::MAX_POOL_2D, in, kernel, stride, padding);
}

Tensor NetworkBuilder::averagePool(const Tensor& in, uint32_t kernel, uint32_t stride, Padding padding) {
  return pool(OperationType::AVERAGE_POOL_2D, in, kernel, stride, padding);
}

Tensor NetworkBuilder::add(const Tensor& a, const Tensor& b, Activation activation) {
  const Tensor out = activationTensor(a.height, a.width, a.channels);
  b_.addOperation(OperationType::ADD, {a.operand, b.operand, b_.addInt32(int32_t(activation))}, {out.operand});
  return out;
}

Tensor NetworkBuilder::concatChannels(const std::vector<Tensor>& parts) {
  uint32_t channels = 0;
  std::vector<uint32_t> inputs;
  for (const Tensor& part : parts) {
    channels += part.channels;
    inputs.push_back(part.operand);
  }
  const Tensor out = activationTensor(parts.front().height, parts.front().width, channels);
  inputs.push_back(b_.addInt32(3));
  b_.addOperation(OperationType::CONCATENATION, inputs, {out.operand});
  return out;
}

Tensor NetworkBuilder::classifier(const Tensor& features, uint32_t classes) {
  const uint32_t w = weights({classes, 1, 1, features.channels}, features.channels);
  const uint32_t bias = this->bias(classes, scaleOf(features.operand), scaleOf(w));
  // Logits are signed: quant8 centres them on 128.
  const Tensor logits{b_.addTemporary(tensorType(), {1, features.height, features.width, classes},
                                      quantized() ? 0.2f : 0.0f, quantized() ? 128 : 0),
                      features.height, features.width, classes};
  b_.addOperation(OperationType::CONV_2D,
                  {features.operand, w, bias, b_.addInt32(1), b_.addInt32(1), b_.addInt32(1), b_.addInt32(0)},
                  {logits.operand});
  return logits;
}

BuiltModel NetworkBuilder::finishWithSoftmax(const Tensor& logits) {
  const OperandType type = tensorType();
  const uint32_t classes = logits.channels;
  const auto& logitOperand = b_.model().main.operands[logits.operand];
  const uint32_t flat = b_.addTemporary(type, {1, classes}, logitOperand.scale, logitOperand.zeroPoint);
  b_.addOperation(
      OperationType::RESHAPE,
      {logits.operand, b_.addConstant(OperandType::TENSOR_INT32, {2}, std::vector<int32_t>{1, int32_t(classes)})},
      {flat});
  const uint32_t probabilities = b_.addOutput(type, {1, classes}, quantized() ? 1.0f / 256 : 0.0f, 0);
  b_.addOperation(OperationType::SOFTMAX, {flat, b_.addFloat32(1.0f)}, {probabilities});

  return finish();
}

BuiltModel NetworkBuilder::finish() {
  BuiltModel built;
  built.model = b_.build();
  for (uint32_t output : built.model.main.outputIndexes) {
    const hal::Operand& operand = built.model.main.operands[output];
    built.outputSizes.push_back(hal::sizeOfData(operand.type, operand.dimensions).value_or(0));
  }
  Lcg pixels;
  const size_t count = size_t(input_.height) * input_.width * input_.channels;
  if (quantized()) {
    built.input.resize(count);
    for (uint8_t& v : built.input) v = static_cast<uint8_t>(128 + std::lround(127 * pixels.uniform()));
  } else {
    std::vector<float> values(count);
    for (float& v : values) v = pixels.uniform();
    built.input = hal::toBytes(values);
  }
  return built;
}

}  // namespace nnremote::tools
