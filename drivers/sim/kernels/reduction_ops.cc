// Reductions along axes: MEAN, REDUCE_SUM/PROD/MAX/MIN/ANY/ALL, ARGMAX/ARGMIN, TOPK_V2,
// LOG_SOFTMAX and INSTANCE_NORMALIZATION. Values are read as reals (readValue) and written in
// the output's type.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"

namespace nnremote::sim {
namespace {

constexpr OperandType kF32 = OperandType::TENSOR_FLOAT32;
constexpr OperandType kI32 = OperandType::TENSOR_INT32;
constexpr OperandType kQ8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr OperandType kBool = OperandType::TENSOR_BOOL8;

Status expectType(const OperationContext& context, std::initializer_list<OperandType> types) {
  if (std::find(types.begin(), types.end(), context.inputType(0)) == types.end()) {
    return unsupported(context) << hal::toString(context.inputType(0)) << " is not implemented";
  }
  return {};
}

hal::Result<uint32_t> axisOf(const OperationContext& context, int32_t axis, uint32_t rank) {
  if (axis < -int32_t(rank) || axis >= int32_t(rank)) {
    return unsupported(context) << "axis " << axis << " is out of range for rank " << rank;
  }
  return uint32_t(axis < 0 ? axis + int32_t(rank) : axis);
}

// ---- MEAN (input, axes, keep_dims INT32) and REDUCE_* (input, axes, keep_dims BOOL) ---------

bool reducedAxes(const OperationContext& context, std::vector<bool>* reduced) {
  const Tensor& in = context.input(0);
  reduced->assign(in.rank(), false);
  const Tensor& axes = context.input(1);
  for (size_t i = 0; i < axes.elementCount(); ++i) {
    auto axis = axisOf(context, axes.as<int32_t>()[i], in.rank());
    if (!axis.ok()) return false;
    (*reduced)[*axis] = true;
  }
  return true;
}

bool keepDims(const OperationContext& context) {
  return context.inputType(2) == OperandType::BOOL ? context.scalar<uint8_t>(2) != 0
                                                    : context.scalar<int32_t>(2) != 0;
}

template <OperationType kType>
Status validateReduce(const OperationContext& context) {
  switch (kType) {
    case OperationType::MEAN:
    case OperationType::REDUCE_MAX:
    case OperationType::REDUCE_MIN: NN_RETURN_IF_ERROR(expectType(context, {kF32, kQ8})); break;
    case OperationType::REDUCE_ANY:
    case OperationType::REDUCE_ALL: NN_RETURN_IF_ERROR(expectType(context, {kBool})); break;
    default: NN_RETURN_IF_ERROR(expectType(context, {kF32}));
  }
  return {};
}

Status prepareReduce(OperationContext& context) {
  std::vector<bool> reduced;
  if (!reducedAxes(context, &reduced)) return unsupported(context) << "an axis is out of range";
  const Tensor& in = context.input(0);
  std::vector<uint32_t> dims;
  for (uint32_t d = 0; d < in.rank(); ++d) {
    if (!reduced[d]) {
      dims.push_back(in.dim(d));
    } else if (keepDims(context)) {
      dims.push_back(1);
    }
  }
  if (dims.empty()) dims.push_back(1);  // NNAPI has no rank-0 tensors
  context.output(0).dimensions = dims;
  return {};
}

template <OperationType kType>
Status executeReduce(OperationContext& context) {
  std::vector<bool> reduced;
  reducedAxes(context, &reduced);
  const Tensor& in = context.input(0);
  const Tensor& out = context.output(0);
  const size_t outCount = out.elementCount();
  double initial = 0;
  switch (kType) {
    case OperationType::REDUCE_PROD:
    case OperationType::REDUCE_ALL: initial = 1; break;
    case OperationType::REDUCE_MAX: initial = -std::numeric_limits<double>::infinity(); break;
    case OperationType::REDUCE_MIN: initial = std::numeric_limits<double>::infinity(); break;
    default: break;
  }
  std::vector<double> acc(outCount, initial);
  std::vector<uint64_t> count(outCount, 0);
  std::vector<uint32_t> coordinates(in.rank(), 0);
  for (size_t i = 0; i < in.elementCount(); ++i) {
    size_t o = 0;
    for (uint32_t d = 0; d < in.rank(); ++d) {
      if (!reduced[d]) o = o * in.dim(d) + coordinates[d];
    }
    const double v = readValue(in, i);
    double& a = acc[o];
    switch (kType) {
      case OperationType::REDUCE_PROD: a *= v; break;
      case OperationType::REDUCE_MAX: a = std::max(a, v); break;
      case OperationType::REDUCE_MIN: a = std::min(a, v); break;
      case OperationType::REDUCE_ANY: a = (a != 0 || v != 0); break;
      case OperationType::REDUCE_ALL: a = (a != 0 && v != 0); break;
      default: a += v;  // MEAN, REDUCE_SUM
    }
    ++count[o];
    for (size_t d = coordinates.size(); d-- > 0;) {
      if (++coordinates[d] < in.dim(d)) break;
      coordinates[d] = 0;
    }
  }
  for (size_t o = 0; o < outCount; ++o) {
    writeValue(out, o, kType == OperationType::MEAN && count[o] ? acc[o] / count[o] : acc[o]);
  }
  return {};
}

OperationWork inputElements(const OperationContext& context) {
  OperationWork work;
  work.vectorElements = context.input(0).elementCount();
  return work;
}

// ---- ARGMAX / ARGMIN (input, axis) -> TENSOR_INT32 ------------------------------------------

Status validateArg(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectType(context, {kF32, kI32, kQ8}));
  if (context.output(0).type != kI32) return unsupported(context) << "output must be TENSOR_INT32";
  return {};
}

Status prepareArg(OperationContext& context) {
  const Tensor& in = context.input(0);
  NN_ASSIGN_OR_RETURN(const uint32_t axis, axisOf(context, context.scalar<int32_t>(1), in.rank()));
  std::vector<uint32_t> dims = in.dimensions;
  dims.erase(dims.begin() + axis);
  if (dims.empty()) dims.push_back(1);
  context.output(0).dimensions = dims;
  return {};
}

template <bool kMax>
Status executeArg(OperationContext& context) {
  const Tensor& in = context.input(0);
  const uint32_t axis = *axisOf(context, context.scalar<int32_t>(1), in.rank());
  int32_t* out = context.output(0).asMutable<int32_t>();
  forEachLine(in, axis, [&](size_t line, size_t base, size_t stride, size_t length) {
    size_t best = 0;
    for (size_t k = 1; k < length; ++k) {
      const double v = readValue(in, base + k * stride), b = readValue(in, base + best * stride);
      if (kMax ? v > b : v < b) best = k;  // the first of equal values wins
    }
    out[line] = int32_t(best);
  });
  return {};
}

// ---- TOPK_V2 (input, k) -> values, indices along the last dimension --------------------------

Status validateTopK(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectType(context, {kF32, kI32, kQ8}));
  if (context.output(0).type != context.inputType(0) || context.output(1).type != kI32) {
    return unsupported(context) << "outputs must be the input's type and TENSOR_INT32";
  }
  return expectSameQuantizationAsInput(context);
}

Status prepareTopK(OperationContext& context) {
  const Tensor& in = context.input(0);
  const int32_t k = context.scalar<int32_t>(1);
  if (in.rank() < 1 || k < 1 || uint32_t(k) > in.dim(in.rank() - 1)) {
    return unsupported(context) << "k = " << k << " is out of range";
  }
  std::vector<uint32_t> dims = in.dimensions;
  dims.back() = uint32_t(k);
  context.output(0).dimensions = dims;
  context.output(1).dimensions = dims;
  return {};
}

Status executeTopK(OperationContext& context) {
  const Tensor& in = context.input(0);
  const size_t k = size_t(context.scalar<int32_t>(1));
  const size_t length = in.dim(in.rank() - 1), rows = in.elementCount() / std::max<size_t>(1, length);
  const size_t elementSize = hal::elementSize(in.type);
  std::vector<size_t> order(length);
  for (size_t r = 0; r < rows; ++r) {
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return readValue(in, r * length + a) > readValue(in, r * length + b);
    });
    for (size_t j = 0; j < k; ++j) {
      std::memcpy(context.output(0).data + (r * k + j) * elementSize, in.data + (r * length + order[j]) * elementSize,
                  elementSize);
      context.output(1).asMutable<int32_t>()[r * k + j] = int32_t(order[j]);
    }
  }
  return {};
}

// ---- LOG_SOFTMAX (input, beta, axis) ---------------------------------------------------------

Status validateLogSoftmax(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectType(context, {kF32}));
  return {};
}

Status prepareSame(OperationContext& context) {
  context.output(0).dimensions = context.input(0).dimensions;
  return {};
}

Status executeLogSoftmax(OperationContext& context) {
  const Tensor& in = context.input(0);
  NN_ASSIGN_OR_RETURN(const uint32_t axis, axisOf(context, context.scalar<int32_t>(2), in.rank()));
  const double beta = context.scalar<float>(1);
  const float* x = in.as<float>();
  float* y = context.output(0).asMutable<float>();
  forEachLine(in, axis, [&](size_t, size_t base, size_t stride, size_t length) {
    double maximum = -std::numeric_limits<double>::infinity();
    for (size_t k = 0; k < length; ++k) maximum = std::max(maximum, double(x[base + k * stride]));
    double sum = 0;
    for (size_t k = 0; k < length; ++k) sum += std::exp((x[base + k * stride] - maximum) * beta);
    const double logSum = std::log(sum);
    for (size_t k = 0; k < length; ++k) y[base + k * stride] = float((x[base + k * stride] - maximum) * beta - logSum);
  });
  return {};
}

// ---- INSTANCE_NORMALIZATION (input, gamma, beta, epsilon, layout) ----------------------------

Status validateInstanceNorm(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectType(context, {kF32}));
  NN_RETURN_IF_ERROR(expectNhwc(context, 4));
  if (context.input(0).rank() != 4) return unsupported(context) << "input must have rank 4";
  return {};
}

Status executeInstanceNorm(OperationContext& context) {
  const Tensor& in = context.input(0);
  const float gamma = context.scalar<float>(1), beta = context.scalar<float>(2), epsilon = context.scalar<float>(3);
  const uint32_t batches = in.dim(0), pixels = in.dim(1) * in.dim(2), channels = in.dim(3);
  const float* x = in.as<float>();
  float* y = context.output(0).asMutable<float>();
  for (uint32_t b = 0; b < batches; ++b)
    for (uint32_t c = 0; c < channels; ++c) {
      double sum = 0, squares = 0;
      for (uint32_t p = 0; p < pixels; ++p) {
        const double v = x[(size_t(b) * pixels + p) * channels + c];
        sum += v;
        squares += v * v;
      }
      const double mean = sum / pixels, variance = squares / pixels - mean * mean;
      const double scale = gamma / std::sqrt(variance + epsilon);
      for (uint32_t p = 0; p < pixels; ++p) {
        const size_t i = (size_t(b) * pixels + p) * channels + c;
        y[i] = float((x[i] - mean) * scale + beta);
      }
    }
  return {};
}

int layoutAt4(const OperationContext&) { return 4; }

}  // namespace

#define NN_REDUCE_KERNEL(Name, TYPE)                                                       \
  const OperationKernel k##Name##Kernel = {&validateReduce<OperationType::TYPE>, &prepareReduce, \
                                           &executeReduce<OperationType::TYPE>, &inputElements}; \
  NNREMOTE_REGISTER_KERNEL(OperationType::TYPE, k##Name##Kernel)
NN_REDUCE_KERNEL(Mean, MEAN);
NN_REDUCE_KERNEL(ReduceSum, REDUCE_SUM);
NN_REDUCE_KERNEL(ReduceProd, REDUCE_PROD);
NN_REDUCE_KERNEL(ReduceMax, REDUCE_MAX);
NN_REDUCE_KERNEL(ReduceMin, REDUCE_MIN);
NN_REDUCE_KERNEL(ReduceAny, REDUCE_ANY);
NN_REDUCE_KERNEL(ReduceAll, REDUCE_ALL);
#undef NN_REDUCE_KERNEL

const OperationKernel kArgmaxKernel = {&validateArg, &prepareArg, &executeArg<true>, &inputElements};
NNREMOTE_REGISTER_KERNEL(OperationType::ARGMAX, kArgmaxKernel);
const OperationKernel kArgminKernel = {&validateArg, &prepareArg, &executeArg<false>, &inputElements};
NNREMOTE_REGISTER_KERNEL(OperationType::ARGMIN, kArgminKernel);
const OperationKernel kTopkV2Kernel = {&validateTopK, &prepareTopK, &executeTopK, &inputElements};
NNREMOTE_REGISTER_KERNEL(OperationType::TOPK_V2, kTopkV2Kernel);
const OperationKernel kLogSoftmaxKernel = {&validateLogSoftmax, &prepareSame, &executeLogSoftmax, &inputElements};
NNREMOTE_REGISTER_KERNEL(OperationType::LOG_SOFTMAX, kLogSoftmaxKernel);
const OperationKernel kInstanceNormalizationKernel = {&validateInstanceNorm, &prepareSame, &executeInstanceNorm,
                                                      &inputElements, &layoutAt4};
NNREMOTE_REGISTER_KERNEL(OperationType::INSTANCE_NORMALIZATION, kInstanceNormalizationKernel);

}  // namespace nnremote::sim
