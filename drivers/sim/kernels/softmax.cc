// SOFTMAX along one axis (the last by default): exp(beta * (x - max)) / sum. Quantized outputs
// have scale 1/256 and zero point 0.
#include <cmath>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"

namespace nnremote::sim {
namespace {

Status validateSoftmax(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, context.inputType(0)));
  const uint32_t rank = context.input(0).rank();
  if (rank < 1 || rank > 4) return unsupported(context) << "input rank must be 1 to 4";
  if (context.hasValue(1) && !(context.scalar<float>(1) > 0.0f)) {
    return unsupported(context) << "beta must be positive";
  }
  const Tensor& out = context.output(0);
  if (context.inputType(0) == OperandType::TENSOR_QUANT8_ASYMM &&
      (out.scale != 1.0f / 256 || out.zeroPoint != 0)) {
    return unsupported(context) << "quantized output must have scale 1/256 and zero point 0";
  }
  return {};
}

Status readAxis(const OperationContext& context, uint32_t* axis) {
  const int32_t rank = static_cast<int32_t>(context.input(0).rank());
  int32_t value = context.inputCount() == 3 ? context.scalar<int32_t>(2) : -1;
  if (value < -rank || value >= rank) {
    return unsupported(context) << "axis " << value << " is out of range for rank " << rank;
  }
  *axis = static_cast<uint32_t>(value < 0 ? value + rank : value);
  return {};
}

Status prepareSoftmax(OperationContext& context) {
  uint32_t axis;
  NN_RETURN_IF_ERROR(readAxis(context, &axis));
  context.output(0).dimensions = context.input(0).dimensions;
  return {};
}

Status executeSoftmax(OperationContext& context) {
  uint32_t axis;
  NN_RETURN_IF_ERROR(readAxis(context, &axis));
  const Tensor& in = context.input(0);
  Tensor& out = context.output(0);
  const float beta = context.scalar<float>(1);
  size_t outer = 1, inner = 1;
  for (uint32_t d = 0; d < axis; ++d) outer *= in.dim(d);
  for (uint32_t d = axis + 1; d < in.rank(); ++d) inner *= in.dim(d);
  const size_t length = in.dim(axis);
  const bool quantized = in.type == OperandType::TENSOR_QUANT8_ASYMM;
  std::vector<float> row(length);
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inner; ++i) {
      const size_t base = o * length * inner + i;
      for (size_t k = 0; k < length; ++k) {
        const size_t at = base + k * inner;
        row[k] = quantized ? dequantize(in.as<uint8_t>()[at], in) : in.as<float>()[at];
      }
      float maxValue = row.empty() ? 0.0f : row[0];
      for (float v : row) maxValue = std::max(maxValue, v);
      float sum = 0.0f;
      for (float& v : row) {
        v = std::exp((v - maxValue) * beta);
        sum += v;
      }
      for (size_t k = 0; k < length; ++k) {
        const size_t at = base + k * inner;
        if (quantized) {
          out.asMutable<uint8_t>()[at] = quantizeToUint8(row[k] / sum, out);
        } else {
          out.asMutable<float>()[at] = row[k] / sum;
        }
      }
    }
  }
  return {};
}

// Three passes per row: the maximum, the exponentials and their sum, the division.
OperationWork softmaxWork(const OperationContext& context) {
  OperationWork work;
  work.vectorElements = 3 * context.output(0).elementCount();
  return work;
}

}  // namespace

const OperationKernel kSoftmaxKernel = {&validateSoftmax, &prepareSoftmax, &executeSoftmax,
                                        &softmaxWork};
NNREMOTE_REGISTER_KERNEL(OperationType::SOFTMAX, kSoftmaxKernel);

}  // namespace nnremote::sim
