// RELU, RELU1, RELU6, LOGISTIC, TANH. Quantized forms evaluate the real function once per
// possible input byte into a 256-entry table, which is exact to the output's rounding.
#include <array>
#include <cmath>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"

namespace nnremote::sim {
namespace {

template <OperationType kType>
float activate(float x) {
  switch (kType) {
    case OperationType::RELU: return std::max(0.0f, x);
    case OperationType::RELU1: return std::min(1.0f, std::max(-1.0f, x));
    case OperationType::RELU6: return std::min(6.0f, std::max(0.0f, x));
    case OperationType::LOGISTIC: return 1.0f / (1.0f + std::exp(-x));
    default: return std::tanh(x);
  }
}

template <OperationType kType>
Status validateActivation(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, context.inputType(0)));
  if (context.input(0).rank() > 4) {
    return unsupported(context) << "rank " << context.input(0).rank() << " is above 4";
  }
  // The quantized sigmoid and tanh have fixed output quantization in NNAPI.
  const Tensor& out = context.output(0);
  if (context.inputType(0) == OperandType::TENSOR_QUANT8_ASYMM) {
    if (kType == OperationType::LOGISTIC && (out.scale != 1.0f / 256 || out.zeroPoint != 0)) {
      return unsupported(context) << "quantized output must have scale 1/256 and zero point 0";
    }
    if (kType == OperationType::TANH && (out.scale != 1.0f / 128 || out.zeroPoint != 128)) {
      return unsupported(context) << "quantized output must have scale 1/128 and zero point 128";
    }
  }
  return {};
}

Status prepareSameShape(OperationContext& context) {
  context.output(0).dimensions = context.input(0).dimensions;
  return {};
}

template <OperationType kType>
Status executeActivation(OperationContext& context) {
  const Tensor& in = context.input(0);
  Tensor& out = context.output(0);
  const size_t count = in.elementCount();
  if (in.type == OperandType::TENSOR_FLOAT32) {
    const float* src = in.as<float>();
    float* dst = out.asMutable<float>();
    for (size_t i = 0; i < count; ++i) dst[i] = activate<kType>(src[i]);
    return {};
  }
  std::array<uint8_t, 256> table;
  for (int q = 0; q < 256; ++q) {
    table[q] = quantizeToUint8(activate<kType>(dequantize(static_cast<uint8_t>(q), in)), out);
  }
  const uint8_t* src = in.as<uint8_t>();
  uint8_t* dst = out.asMutable<uint8_t>();
  for (size_t i = 0; i < count; ++i) dst[i] = table[src[i]];
  return {};
}

OperationWork activationWork(const OperationContext& context) {
  OperationWork work;
  work.vectorElements = context.output(0).elementCount();
  return work;
}

template <OperationType kType>
constexpr OperationKernel makeActivationKernel() {
  return {&validateActivation<kType>, &prepareSameShape, &executeActivation<kType>,
          &activationWork};
}

}  // namespace

const OperationKernel kReluKernel = makeActivationKernel<OperationType::RELU>();
NNREMOTE_REGISTER_KERNEL(OperationType::RELU, kReluKernel);
const OperationKernel kRelu1Kernel = makeActivationKernel<OperationType::RELU1>();
NNREMOTE_REGISTER_KERNEL(OperationType::RELU1, kRelu1Kernel);
const OperationKernel kRelu6Kernel = makeActivationKernel<OperationType::RELU6>();
NNREMOTE_REGISTER_KERNEL(OperationType::RELU6, kRelu6Kernel);
const OperationKernel kLogisticKernel = makeActivationKernel<OperationType::LOGISTIC>();
NNREMOTE_REGISTER_KERNEL(OperationType::LOGISTIC, kLogisticKernel);
const OperationKernel kTanhKernel = makeActivationKernel<OperationType::TANH>();
NNREMOTE_REGISTER_KERNEL(OperationType::TANH, kTanhKernel);

}  // namespace nnremote::sim
