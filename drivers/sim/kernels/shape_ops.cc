// RESHAPE and CONCATENATION: data movement.
#include <cstring>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"

namespace nnremote::sim {
namespace {

Status validateReshape(const OperationContext& context) {
  if (context.inputType(0) != OperandType::TENSOR_INT32) {
    NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, context.inputType(0)));
  }
  if (context.input(1).rank() != 1) return unsupported(context) << "shape must have rank 1";
  return expectSameQuantizationAsInput(context);
}

Status prepareReshape(OperationContext& context) {
  const Tensor& shape = context.input(1);
  const int32_t* values = shape.as<int32_t>();
  const uint64_t count = context.input(0).elementCount();
  std::vector<uint32_t> dims(shape.dim(0));
  int inferred = -1;
  uint64_t known = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (values[i] == -1 && inferred < 0) {
      inferred = static_cast<int>(i);
    } else if (values[i] < 0) {
      return unsupported(context) << "shape[" << i << "] = " << values[i] << " is invalid";
    } else {
      dims[i] = static_cast<uint32_t>(values[i]);
      known *= dims[i];
    }
  }
  if (inferred >= 0) {
    if (known == 0 || count % known != 0) {
      return unsupported(context) << "cannot infer shape[" << inferred << "] for " << count
                                  << " elements";
    }
    dims[inferred] = static_cast<uint32_t>(count / known);
    known *= dims[inferred];
  }
  if (known != count) {
    return unsupported(context) << "shape " << hal::toString(dims) << " holds " << known
                                << " elements, the input has " << count;
  }
  context.output(0).dimensions = std::move(dims);
  return {};
}

Status executeReshape(OperationContext& context) {
  const Tensor& in = context.input(0);
  const size_t bytes = in.elementCount() * hal::elementSize(in.type);
  if (bytes) std::memmove(context.output(0).data, in.data, bytes);
  return {};
}

// Data movement: one vector-lane operation per element moved.
OperationWork moveWork(const OperationContext& context) {
  OperationWork work;
  work.vectorElements = context.output(0).elementCount();
  return work;
}

// CONCATENATION: inputs 0..n-2 are tensors, input n-1 the axis.
Status validateConcatenation(const OperationContext& context) {
  if (context.inputCount() < 2 || context.outputCount() != 1) {
    return unsupported(context) << "needs at least one tensor and an axis, and one output";
  }
  NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, context.inputType(0)));
  if (context.output(0).type != context.inputType(0)) {
    return unsupported(context) << "output type differs from the inputs'";
  }
  // Rank 0 here means not known until execution, where the axis check catches a real rank 0.
  if (context.input(0).rank() > 4) return unsupported(context) << "rank must be 1 to 4";
  return {};
}

Status readConcatAxis(const OperationContext& context, uint32_t* axis) {
  const int32_t rank = static_cast<int32_t>(context.input(0).rank());
  const int32_t value = context.scalar<int32_t>(context.inputCount() - 1);
  if (value < -rank || value >= rank) {
    return unsupported(context) << "axis " << value << " is out of range for rank " << rank;
  }
  *axis = static_cast<uint32_t>(value < 0 ? value + rank : value);
  return {};
}

Status prepareConcatenation(OperationContext& context) {
  uint32_t axis;
  NN_RETURN_IF_ERROR(readConcatAxis(context, &axis));
  std::vector<uint32_t> dims = context.input(0).dimensions;
  for (size_t i = 1; i + 1 < context.inputCount(); ++i) {
    const auto& other = context.input(i).dimensions;
    if (other.size() != dims.size()) return unsupported(context) << "input ranks differ";
    for (size_t d = 0; d < dims.size(); ++d) {
      if (d != axis && other[d] != dims[d]) {
        return unsupported(context) << "input " << i << " dimensions " << hal::toString(other)
                                    << " differ from input 0's off the axis";
      }
    }
    dims[axis] += other[axis];
  }
  context.output(0).dimensions = std::move(dims);
  return {};
}

Status executeConcatenation(OperationContext& context) {
  uint32_t axis;
  NN_RETURN_IF_ERROR(readConcatAxis(context, &axis));
  Tensor& out = context.output(0);
  const size_t elementBytes = hal::elementSize(out.type);
  size_t outer = 1;
  for (uint32_t d = 0; d < axis; ++d) outer *= out.dim(d);
  size_t outRow = elementBytes;
  for (uint32_t d = axis; d < out.rank(); ++d) outRow *= out.dim(d);
  size_t offset = 0;
  for (size_t i = 0; i + 1 < context.inputCount(); ++i) {
    const Tensor& in = context.input(i);
    const size_t inRow = outer == 0 ? 0 : in.elementCount() * elementBytes / outer;
    const bool requantize = out.type == OperandType::TENSOR_QUANT8_ASYMM &&
                            (in.scale != out.scale || in.zeroPoint != out.zeroPoint);
    for (size_t o = 0; o < outer; ++o) {
      const uint8_t* src = in.data + o * inRow;
      uint8_t* dst = out.data + o * outRow + offset;
      if (!requantize) {
        if (inRow) std::memcpy(dst, src, inRow);
        continue;
      }
      for (size_t k = 0; k < inRow; ++k) dst[k] = quantizeToUint8(dequantize(src[k], in), out);
    }
    offset += inRow;
  }
  return {};
}

}  // namespace

const OperationKernel kReshapeKernel = {&validateReshape, &prepareReshape, &executeReshape,
                                        &moveWork};
NNREMOTE_REGISTER_KERNEL(OperationType::RESHAPE, kReshapeKernel);
const OperationKernel kConcatenationKernel = {&validateConcatenation, &prepareConcatenation,
                                              &executeConcatenation, &moveWork};
NNREMOTE_REGISTER_KERNEL(OperationType::CONCATENATION, kConcatenationKernel);

}  // namespace nnremote::sim
