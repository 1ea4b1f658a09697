// ADD, SUB, MUL, DIV: elementwise with NumPy broadcasting and a fused activation.
// Quantized ADD/SUB/MUL follow TFLite's fixed-point arithmetic, as AOSP's CPU reference does.
#include <array>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"
#include "drivers/sim/kernels/xnnpack_ops.h"

namespace nnremote::sim {
namespace {

template <OperationType kType>
Status validateBinary(const OperationContext& context) {
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

// The requantized value of every possible uint8 input: (q - zeroPoint) * 2^leftShift * m.
std::array<int32_t, 256> requantizationTable(int32_t zeroPoint, int leftShift, QuantizedMultiplier m) {
  std::array<int32_t, 256> table;
  for (int32_t q = 0; q < 256; ++q) table[q] = multiplyByQuantizedMultiplier((q - zeroPoint) * (1 << leftShift), m);
  return table;
}

// A rescaled value plus the output zero point, clamped to the output's range. The sum is taken
// in 64 bits: absurd scales saturate the rescaling at int32's limit (a fuzz finding).
inline uint8_t offsetAndClamp(int32_t scaled, int32_t zeroPoint, QuantRange range) {
  return static_cast<uint8_t>(std::clamp<int64_t>(int64_t{scaled} + zeroPoint, range.min, range.max));
}

// out[i] = clamp(requantize(ta[a[i]] + sign * tb[b[i]])) for same-shaped inputs: the common
// case (residual connections), kept free of index arithmetic so it vectorizes.
NNREMOTE_VECTOR_CLONES void addSameShape(const uint8_t* __restrict__ a, const uint8_t* __restrict__ b,
                                         uint8_t* __restrict__ out, size_t n, const int32_t* ta, const int32_t* tb,
                                         int32_t sign, QuantizedMultiplier m, int32_t zeroPoint, QuantRange range) {
  for (size_t i = 0; i < n; ++i) {
    out[i] = offsetAndClamp(multiplyByQuantizedMultiplier(ta[a[i]] + sign * tb[b[i]], m), zeroPoint, range);
  }
}

NNREMOTE_VECTOR_CLONES void multiplySameShape(const uint8_t* __restrict__ a, const uint8_t* __restrict__ b,
                                              uint8_t* __restrict__ out, size_t n, int32_t za, int32_t zb,
                                              QuantizedMultiplier m, int32_t zeroPoint, QuantRange range) {
  for (size_t i = 0; i < n; ++i) {
    out[i] = offsetAndClamp(multiplyByQuantizedMultiplier((int32_t(a[i]) - za) * (int32_t(b[i]) - zb), m), zeroPoint,
                            range);
  }
}

// TFLite's quantized add: both inputs are rescaled to a common fixed-point domain with 20 bits
// of headroom, summed, and rescaled to the output. The input rescaling depends on the byte
// alone, so it is tabulated.
void executeQuantAddSub(const OperationContext& context, QuantRange range, bool subtract) {
  const Tensor& a = context.input(0);
  const Tensor& b = context.input(1);
  Tensor& out = context.output(0);
  constexpr int kLeftShift = 20;
  const double twiceMaxScale = 2.0 * std::max(a.scale, b.scale);
  const auto ta = requantizationTable(a.zeroPoint, kLeftShift, quantizeMultiplier(a.scale / twiceMaxScale));
  const auto tb = requantizationTable(b.zeroPoint, kLeftShift, quantizeMultiplier(b.scale / twiceMaxScale));
  const QuantizedMultiplier mo =
      quantizeMultiplier(twiceMaxScale / ((1 << kLeftShift) * static_cast<double>(out.scale)));
  const uint8_t* pa = a.as<uint8_t>();
  const uint8_t* pb = b.as<uint8_t>();
  uint8_t* po = out.asMutable<uint8_t>();
  const int32_t sign = subtract ? -1 : 1;
  if (a.dimensions == out.dimensions && b.dimensions == out.dimensions) {
    addSameShape(pa, pb, po, out.elementCount(), ta.data(), tb.data(), sign, mo, out.zeroPoint, range);
    return;
  }
  forEachBroadcast(out.dimensions, a.dimensions, b.dimensions, [&](size_t o, size_t i, size_t j) {
    po[o] = offsetAndClamp(multiplyByQuantizedMultiplier(ta[pa[i]] + sign * tb[pb[j]], mo), out.zeroPoint, range);
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
  if (a.dimensions == out.dimensions && b.dimensions == out.dimensions) {
    multiplySameShape(pa, pb, po, out.elementCount(), a.zeroPoint, b.zeroPoint, m, out.zeroPoint, range);
    return;
  }
  forEachBroadcast(out.dimensions, a.dimensions, b.dimensions, [&](size_t o, size_t i, size_t j) {
    const int32_t product = (pa[i] - a.zeroPoint) * (pb[j] - b.zeroPoint);
    po[o] = offsetAndClamp(multiplyByQuantizedMultiplier(product, m), out.zeroPoint, range);
  });
}

// Integer division rounds toward negative infinity, as in AOSP. Overflow wraps around (two's
// complement, as the hardware and the reference do in practice) instead of being undefined.
template <OperationType kType>
int32_t applyInt32(int32_t a, int32_t b) {
  const uint32_t ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
  switch (kType) {
    case OperationType::ADD: return static_cast<int32_t>(ua + ub);
    case OperationType::SUB: return static_cast<int32_t>(ua - ub);
    case OperationType::MUL: return static_cast<int32_t>(ua * ub);
    default: {
      if (b == 0) return 0;
      if (b == -1) return static_cast<int32_t>(0u - ua);  // INT32_MIN / -1 wraps
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
  const XnnpackBinary fast = kType == OperationType::ADD   ? XnnpackBinary::ADD
                            : kType == OperationType::SUB ? XnnpackBinary::SUBTRACT
                                                          : XnnpackBinary::MULTIPLY;
  if (runQuantizedBinaryOnXnnpack(context, fast, activation)) return {};
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
NNREMOTE_REGISTER_KERNEL(OperationType::ADD, kAddKernel);
const OperationKernel kSubKernel = makeBinaryKernel<OperationType::SUB>();
NNREMOTE_REGISTER_KERNEL(OperationType::SUB, kSubKernel);
const OperationKernel kMulKernel = makeBinaryKernel<OperationType::MUL>();
NNREMOTE_REGISTER_KERNEL(OperationType::MUL, kMulKernel);
const OperationKernel kDivKernel = makeBinaryKernel<OperationType::DIV>();
NNREMOTE_REGISTER_KERNEL(OperationType::DIV, kDivKernel);

}  // namespace nnremote::sim
