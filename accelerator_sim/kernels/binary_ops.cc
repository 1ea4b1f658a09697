// ADD, SUB, MUL, DIV: elementwise with NumPy broadcasting and a fused activation.
// Quantized ADD/SUB/MUL follow TFLite's fixed-point arithmetic, as AOSP's CPU reference does.
#include "accelerator_sim/kernels/kernel_utils.h"
#include "accelerator_sim/kernels/kernels.h"

namespace nnremote::sim {
namespace {

template <OperationType kType>
Status validateBinary(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectCounts(context, {3}, 1));
  NN_RETURN_IF_ERROR(expectSameTypeAsFirst(context, {1}));
  NN_RETURN_IF_ERROR(expectFusedActivation(context, 2));
  const OperandType type = context.inputType(0);
  if (type == OperandType::TENSOR_INT32) {
    // Integer arithmetic (NN HAL 1.3) takes no fused activation.
    if (context.hasValue(2) && context.scalar<int32_t>(2) != 0) {
      return unsupported(context) << "TENSOR_INT32 takes no fused activation";
    }
  } else if (kType == OperationType::DIV && type != OperandType::TENSOR_FLOAT32) {
    return unsupported(context) << hal::toString(type) << " is not implemented";
  } else {
    NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, type));
  }
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

// Integer division rounds toward negative infinity, as in AOSP.
template <OperationType kType>
int32_t applyInt32(int32_t a, int32_t b) {
  switch (kType) {
    case OperationType::ADD: return a + b;
    case OperationType::SUB: return a - b;
    case OperationType::MUL: return a * b;
    default: {
      if (b == 0) return 0;
      const int32_t q = a / b;
      return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
    }
  }
}

template <OperationType kType>
Status executeBinary(OperationContext& context) {
  if (context.inputType(0) == OperandType::TENSOR_INT32) {
    const Tensor& a = context.input(0);
    const Tensor& b = context.input(1);
    Tensor& out = context.output(0);
    forEachBroadcast(out.dimensions, a.dimensions, b.dimensions, [&](size_t o, size_t i, size_t j) {
      out.asMutable<int32_t>()[o] = applyInt32<kType>(a.as<int32_t>()[i], b.as<int32_t>()[j]);
    });
    return {};
  }
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
