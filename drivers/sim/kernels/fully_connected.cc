// FULLY_CONNECTED: output[b, u] = act(sum_i input[b, i] * weights[u, i] + bias[u]); the input is
// flattened to [batch, inputSize] where inputSize is the weights' second dimension.
#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"
#include "drivers/sim/kernels/xnnpack_ops.h"

namespace nnremote::sim {
namespace {

Status validateFullyConnected(const OperationContext& context) {
  const OperandType type = context.inputType(0);
  NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, type));
  NN_RETURN_IF_ERROR(expectFusedActivation(context, 3));
  if (context.input(1).rank() != 2 || context.input(2).rank() != 1) {
    return unsupported(context) << "weights must have rank 2 and bias rank 1";
  }
  if (context.input(0).rank() < 1 || context.input(0).rank() > 4) {
    return unsupported(context) << "input rank must be 1 to 4";
  }
  return {};
}

struct FcShape {
  uint32_t batches, inputSize, units;
};

Status readShape(const OperationContext& context, FcShape* shape) {
  const Tensor& input = context.input(0);
  const Tensor& weights = context.input(1);
  shape->units = weights.dim(0);
  shape->inputSize = weights.dim(1);
  const uint64_t count = input.elementCount();
  if (shape->inputSize == 0 || count % shape->inputSize != 0) {
    return unsupported(context) << "input of " << count << " elements is not a multiple of "
                                << "the weights' input size " << shape->inputSize;
  }
  if (context.input(2).dim(0) != shape->units) {
    return unsupported(context) << "bias has " << context.input(2).dim(0) << " entries for "
                                << shape->units << " units";
  }
  shape->batches = static_cast<uint32_t>(count / shape->inputSize);
  return {};
}

Status prepareFullyConnected(OperationContext& context) {
  FcShape shape;
  NN_RETURN_IF_ERROR(readShape(context, &shape));
  context.output(0).dimensions = {shape.batches, shape.units};
  return {};
}

Status executeFullyConnected(OperationContext& context) {
  FcShape s;
  NN_RETURN_IF_ERROR(readShape(context, &s));
  const Tensor& input = context.input(0);
  const Tensor& weights = context.input(1);
  Tensor& output = context.output(0);
  const auto activation = static_cast<FusedActivation>(context.scalar<int32_t>(3));
  if (runFullyConnectedOnXnnpack(context, s.batches, activation)) return {};
  if (input.type == OperandType::TENSOR_FLOAT32) {
    const float* in = input.as<float>();
    const float* w = weights.as<float>();
    const float* bias = context.input(2).as<float>();
    float* out = output.asMutable<float>();
    const FloatRange range = activationRange(activation);
    for (uint32_t b = 0; b < s.batches; ++b) {
      const float* row = in + size_t(b) * s.inputSize;
      for (uint32_t u = 0; u < s.units; ++u) {
        const float* wr = w + size_t(u) * s.inputSize;
        float sum = 0.0f;
        for (uint32_t i = 0; i < s.inputSize; ++i) sum += row[i] * wr[i];
        out[size_t(b) * s.units + u] = std::min(range.max, std::max(range.min, sum + bias[u]));
      }
    }
    return {};
  }
  const uint8_t* in = input.as<uint8_t>();
  const uint8_t* w = weights.as<uint8_t>();
  const int32_t* bias = context.input(2).as<int32_t>();
  uint8_t* out = output.asMutable<uint8_t>();
  const QuantRange range = activationRange(activation, output);
  const QuantizedMultiplier multiplier =
      quantizeMultiplier(static_cast<double>(input.scale) * weights.scale / output.scale);
  for (uint32_t b = 0; b < s.batches; ++b) {
    const uint8_t* row = in + size_t(b) * s.inputSize;
    for (uint32_t u = 0; u < s.units; ++u) {
      const uint8_t* wr = w + size_t(u) * s.inputSize;
      int64_t sum = bias[u];
      for (uint32_t i = 0; i < s.inputSize; ++i) {
        sum += (int32_t(row[i]) - input.zeroPoint) * (int32_t(wr[i]) - weights.zeroPoint);
      }
      const int32_t q = requantizeSaturating(sum, multiplier, output.zeroPoint);
      out[size_t(b) * s.units + u] = static_cast<uint8_t>(std::min(range.max, std::max(range.min, q)));
    }
  }
  return {};
}

OperationWork fullyConnectedWork(const OperationContext& context) {
  const Tensor& output = context.output(0);
  GemmWork gemm;
  gemm.m = output.dim(0);
  gemm.n = output.dim(1);
  gemm.k = context.input(1).dim(1);
  gemm.inputElementBytes = hal::elementSize(context.input(0).type);
  gemm.outputElementBytes = hal::elementSize(output.type);
  OperationWork work;
  work.gemms.push_back(gemm);
  return work;
}

}  // namespace

const OperationKernel kFullyConnectedKernel = {&validateFullyConnected, &prepareFullyConnected,
                                               &executeFullyConnected, &fullyConnectedWork};
NNREMOTE_REGISTER_KERNEL(OperationType::FULLY_CONNECTED, kFullyConnectedKernel);

}  // namespace nnremote::sim
