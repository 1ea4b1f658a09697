// ADD, SUB, MUL, DIV: elementwise with NumPy broadcasting and a fused activation.
// Quantized ADD/SUB/MUL follow TFLite's fixed-point arithmetic, as AOSP's CPU reference does.
#include "accelerator_sim/kernels/kernel_utils.h"
#include "accelerator_sim/kernels/kernels.h"

namespace nnremote::sim {
namespace {

// Calls fn(outIndex, aIndex, bIndex) for every output element.
template <typename Fn>
void forEachBroadcast(const std::vector<uint32_t>& out, const std::vector<uint32_t>& a,
                      const std::vector<uint32_t>& b, Fn&& fn) {
  const size_t total = hal::elementCount(out);
  if (a == out && b == out) {
    for (size_t i = 0; i < total; ++i) fn(i, i, i);
    return;
  }
  const size_t rank = out.size();
  // Strides of a and b in output coordinates; 0 where the input is broadcast.
  std::vector<size_t> strideA(rank, 0), strideB(rank, 0);
  size_t sa = 1, sb = 1;
  for (size_t k = rank; k-- > 0;) {
    const size_t ia = k + a.size() >= rank ? k + a.size() - rank : SIZE_MAX;
    const size_t ib = k + b.size() >= rank ? k + b.size() - rank : SIZE_MAX;
    if (ia != SIZE_MAX) {
      strideA[k] = a[ia] == 1 ? 0 : sa;
      sa *= a[ia];
    }
    if (ib != SIZE_MAX) {
      strideB[k] = b[ib] == 1 ? 0 : sb;
      sb *= b[ib];
    }
  }
  std::vector<uint32_t> index(rank, 0);
  size_t offA = 0, offB = 0;
  for (size_t i = 0; i < total; ++i) {
    fn(i, offA, offB);
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < out[k]) {
        offA += strideA[k];
        offB += strideB[k];
        break;
      }
      offA -= strideA[k] * (out[k] - 1);
      offB -= strideB[k] * (out[k] - 1);
      index[k] = 0;
    }
  }
}

template <OperationType kType>
Status validateBinary(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectCounts(context, {3}, 1));
  NN_RETURN_IF_ERROR(expectSameTypeAsFirst(context, {1}));
  NN_RETURN_IF_ERROR(expectFusedActivation(context, 2));
  const OperandType type = context.inputType(0);
  if (kType == OperationType::DIV && type != OperandType::TENSOR_FLOAT32) {
    return unsupported(context) << hal::toString(type) << " is not implemented";
  }
  NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, type));
  for (size_t i = 0; i < 2; ++i) {
    if (context.input(i).rank() > 4) {
      return unsupported(context) << "input " << i << " has rank " << context.input(i).rank()
                                  << "; at most 4 is supported";
    }
  }
  return {};
}

Status prepareBinary(OperationContext& context) {
  return broadcastShapes(context, context.input(0).dimensions, context.input(1).dimensions,
                         &context.output(0).dimensions);
}

template <OperationType kType>
float applyFloat(float a, float b) {
  switch (kType) {
    case OperationType::ADD: return a + b;
    case OperationType::SUB: return a - b;
    case OperationType::MUL: return a * b;
    default: return a / b;
  }
}

template <OperationType kType>
void executeFloat(const OperationContext& context, FloatRange range) {
  const Tensor& a = context.input(0);
  const Tensor& b = context.input(1);
  Tensor& out = context.output(0);
  const float* pa = a.as<float>();
  const float* pb = b.as<float>();
  float* po = out.asMutable<float>();
  forEachBroadcast(out.dimensions, a.dimensions, b.dimensions, [&](size_t o, size_t i, size_t j) {
    po[o] = std::min(range.max, std::max(range.min, applyFloat<kType>(pa[i], pb[j])));
  });
}

// TFLite's quantized add: both inputs are rescaled to a common fixed-point domain with 20 bits
// of headroom, summed, and rescaled to the output.
void executeQuantAddSub(const OperationContext& context, QuantRange range, bool subtract) {
  const Tensor& a = context.input(0);
  const Tensor& b = context.input(1);
  Tensor& out = context.output(0);
  constexpr int kLeftShift = 20;
  const double twiceMaxScale = 2.0 * std::max(a.scale, b.scale);
  const QuantizedMultiplier ma = quantizeMultiplier(a.scale / twiceMaxScale);
  const QuantizedMultiplier mb = quantizeMultiplier(b.scale / twiceMaxScale);
  const QuantizedMultiplier mo =
      quantizeMultiplier(twiceMaxScale / ((1 << kLeftShift) * static_cast<double>(out.scale)));
  const uint8_t* pa = a.as<uint8_t>();
  const uint8_t* pb = b.as<uint8_t>();
  uint8_t* po = out.asMutable<uint8_t>();
  forEachBroadcast(out.dimensions, a.dimensions, b.dimensions, [&](size_t o, size_t i, size_t j) {
    const int32_t sa = multiplyByQuantizedMultiplier((pa[i] - a.zeroPoint) * (1 << kLeftShift), ma);
    const int32_t sb = multiplyByQuantizedMultiplier((pb[j] - b.zeroPoint) * (1 << kLeftShift), mb);
    const int32_t sum = subtract ? sa - sb : sa + sb;
    const int32_t q = multiplyByQuantizedMultiplier(sum, mo) + out.zeroPoint;
    po[o] = static_cast<uint8_t>(std::min(range.max, std::max(range.min, q)));
  });
}

void executeQuantMul(const OperationContext& context, QuantRange range) {
  const Tensor& a = context.input(0);
  const Tensor& b = context.input(1);
  Tensor& out = context.output(0);
  const QuantizedMultiplier m =
      quantizeMultiplier(static_cast<double>(a.scale) * b.scale / out.scale);
  const uint8_t* pa = a.as<uint8_t>();
  const uint8_t* pb = b.as<uint8_t>();
  uint8_t* po = out.asMutable<uint8_t>();
  forEachBroadcast(out.dimensions, a.dimensions, b.dimensions, [&](size_t o, size_t i, size_t j) {
    const int32_t product = (pa[i] - a.zeroPoint) * (pb[j] - b.zeroPoint);
    const int32_t q = multiplyByQuantizedMultiplier(product, m) + out.zeroPoint;
    po[o] = static_cast<uint8_t>(std::min(range.max, std::max(range.min, q)));
  });
}

template <OperationType kType>
Status executeBinary(OperationContext& context) {
  const auto activation = static_cast<FusedActivation>(context.scalar<int32_t>(2));
  if (context.inputType(0) == OperandType::TENSOR_FLOAT32) {
    executeFloat<kType>(context, activationRange(activation));
    return {};
  }
  const QuantRange range = activationRange(activation, context.output(0));
  if (kType == OperationType::MUL) {
    executeQuantMul(context, range);
  } else {
    executeQuantAddSub(context, range, kType == OperationType::SUB);
  }
  return {};
}

OperationWork elementwiseWork(const OperationContext& context) {
  OperationWork work;
  work.vectorElements = context.output(0).elementCount();
  return work;
}

template <OperationType kType>
constexpr OperationKernel makeBinaryKernel() {
  return {&validateBinary<kType>, &prepareBinary, &executeBinary<kType>, &elementwiseWork};
}

}  // namespace

const OperationKernel kAddKernel = makeBinaryKernel<OperationType::ADD>();
const OperationKernel kSubKernel = makeBinaryKernel<OperationType::SUB>();
const OperationKernel kMulKernel = makeBinaryKernel<OperationType::MUL>();
const OperationKernel kDivKernel = makeBinaryKernel<OperationType::DIV>();

}  // namespace nnremote::sim
