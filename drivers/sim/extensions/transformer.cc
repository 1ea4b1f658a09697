#include "drivers/sim/extensions/transformer.h"

#include <cmath>

#include "drivers/sim/extensions/extension_registry.h"
#include "drivers/sim/extensions/extensions.h"
#include "drivers/sim/kernels/kernel_utils.h"

namespace nnremote::sim {
namespace {

Status validateFullyConnectedGelu(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectCounts(context, {3}, 1));
  for (size_t i = 0; i < 3; ++i) NN_RETURN_IF_ERROR(expectInputType(context, i, OperandType::TENSOR_FLOAT32));
  if (context.output(0).type != OperandType::TENSOR_FLOAT32) {
    return unsupported(context) << "the output must be TENSOR_FLOAT32";
  }
  if (context.input(1).rank() != 2 || context.input(2).rank() != 1) {
    return unsupported(context) << "weights must have rank 2 and bias rank 1";
  }
  if (context.input(0).rank() < 1 || context.input(0).rank() > 4) {
    return unsupported(context) << "input rank must be 1 to 4";
  }
  return {};
}

struct Shape {
  uint32_t batches, inputSize, units;
};

hal::Result<Shape> readShape(const OperationContext& context) {
  Shape shape;
  shape.units = context.input(1).dim(0);
  shape.inputSize = context.input(1).dim(1);
  const uint64_t count = context.input(0).elementCount();
  if (shape.inputSize == 0 || count % shape.inputSize != 0) {
    return unsupported(context) << "input of " << count << " elements is not a multiple of the weights' input size "
                                << shape.inputSize;
  }
  if (context.input(2).dim(0) != shape.units) {
    return unsupported(context) << "bias has " << context.input(2).dim(0) << " entries for " << shape.units
                                << " units";
  }
  shape.batches = static_cast<uint32_t>(count / shape.inputSize);
  return shape;
}

Status prepareFullyConnectedGelu(OperationContext& context) {
  NN_ASSIGN_OR_RETURN(const Shape shape, readShape(context));
  context.output(0).dimensions = {shape.batches, shape.units};
  return {};
}

float gelu(float x) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
}

Status executeFullyConnectedGelu(OperationContext& context) {
  NN_ASSIGN_OR_RETURN(const Shape s, readShape(context));
  const float* in = context.input(0).as<float>();
  const float* weights = context.input(1).as<float>();
  const float* bias = context.input(2).as<float>();
  float* out = context.output(0).asMutable<float>();
  for (uint32_t b = 0; b < s.batches; ++b) {
    const float* row = in + size_t(b) * s.inputSize;
    for (uint32_t u = 0; u < s.units; ++u) {
      const float* w = weights + size_t(u) * s.inputSize;
      float sum = 0.0f;
      for (uint32_t i = 0; i < s.inputSize; ++i) sum += row[i] * w[i];
      out[size_t(b) * s.units + u] = gelu(sum + bias[u]);
    }
  }
  return {};
}

// The GEMM on the array, and the activation on the vector unit for each result; the executor
// adds the bytes read and written, which for the fused operation exclude the pre-activation.
OperationWork fullyConnectedGeluWork(const OperationContext& context) {
  OperationWork work;
  const auto shape = readShape(context);
  if (!shape.ok()) return work;
  GemmWork gemm;
  gemm.m = shape->batches;
  gemm.n = shape->units;
  gemm.k = shape->inputSize;
  work.gemms.push_back(gemm);
  work.vectorElements = uint64_t{shape->batches} * shape->units * transformer::kGeluCyclesPerElement;
  return work;
}

const OperationKernel kFullyConnectedGeluKernel = {validateFullyConnectedGelu, prepareFullyConnectedGelu,
                                                   executeFullyConnectedGelu, fullyConnectedGeluWork};

}  // namespace

const ExtensionDefinition kTransformerExtension = {
    {transformer::kExtensionName, {}},
    {},
    {{transformer::NNREMOTE_FULLY_CONNECTED_GELU, "NNREMOTE_FULLY_CONNECTED_GELU", &kFullyConnectedGeluKernel}},
};

}  // namespace nnremote::sim
