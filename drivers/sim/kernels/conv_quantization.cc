#include "drivers/sim/kernels/conv_quantization.h"

namespace nnremote::sim {

Status validateConvOperandTypes(const OperationContext& context, uint32_t channelDim) {
  const OperandType type = context.inputType(0);
  NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, type));
  if (context.output(0).type != type) {
    return unsupported(context) << "output must be " << hal::toString(type);
  }
  const Tensor& input = context.input(0);
  const Tensor& filter = context.input(1);
  const Tensor& bias = context.input(2);
  if (type == OperandType::TENSOR_FLOAT32) {
    return {};
  }
  if (filter.type == OperandType::TENSOR_QUANT8_ASYMM) {
    const float expected = input.scale * filter.scale;
    if (bias.zeroPoint != 0 || std::abs(bias.scale - expected) > 1e-6f * std::max(1.0f, expected)) {
      return unsupported(context) << "bias scale " << bias.scale << " must equal input scale x "
                                  << "filter scale (" << expected << ") with zero point 0";
    }
    return {};
  }
  if (filter.type != OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    return unsupported(context) << "filter type " << hal::toString(filter.type) << " is not implemented";
  }
  const auto* channel = std::get_if<hal::Operand::SymmPerChannelQuantParams>(filter.extraParams);
  if (channel == nullptr || channel->channelDim != channelDim) {
    return unsupported(context) << "per-channel filter scales must run along dimension " << channelDim;
  }
  if (bias.scale != 0.0f || bias.zeroPoint != 0) {
    return unsupported(context) << "a per-channel filter's bias must have scale 0 and zero point 0";
  }
  return {};
}

QuantizedFilter quantizedFilter(const OperationContext& context, uint32_t outputChannels, uint32_t channelDim) {
  const Tensor& input = context.input(0);
  const Tensor& filter = context.input(1);
  const Tensor& output = context.output(0);
  QuantizedFilter result;
  const size_t count = filter.elementCount();
  result.values.resize(count);
  const auto* channel = std::get_if<hal::Operand::SymmPerChannelQuantParams>(filter.extraParams);
  if (filter.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL && channel != nullptr) {
    const int8_t* w = filter.as<int8_t>();
    for (size_t i = 0; i < count; ++i) result.values[i] = w[i];
    for (uint32_t c = 0; c < outputChannels; ++c) {
      result.multipliers.push_back(quantizeMultiplier(double(input.scale) * channel->scales[c] / output.scale));
    }
    (void)channelDim;
    return result;
  }
  const uint8_t* w = filter.as<uint8_t>();
  for (size_t i = 0; i < count; ++i) result.values[i] = int32_t(w[i]) - filter.zeroPoint;
  result.multipliers.assign(outputChannels,
                            quantizeMultiplier(double(input.scale) * filter.scale / output.scale));
  return result;
}

}  // namespace nnremote::sim
