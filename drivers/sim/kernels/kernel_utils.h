// Helpers every kernel shares: argument checks, fused activations, requantization and padding.
#ifndef NNREMOTE_DRIVERS_SIM_KERNELS_KERNEL_UTILS_H_
#define NNREMOTE_DRIVERS_SIM_KERNELS_KERNEL_UTILS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>

#include "drivers/sim/operation_context.h"

// For innermost loops: compiled twice (baseline and AVX2) and picked at load time, since most
// x86-64 hosts have AVX2 but the build targets x86-64-v2. Clang 14 cannot clone templates, so
// its builds (the fuzz configuration) get the baseline only; so do ThreadSanitizer builds, whose
// runtime is not ready when the loader runs the clones' resolvers, and other CPUs (aarch64 has
// NEON in its baseline).
#if defined(__clang__) || defined(NNREMOTE_TSAN) || !defined(__x86_64__)
#define NNREMOTE_VECTOR_CLONES
#else
#define NNREMOTE_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif

namespace nnremote::sim {

inline hal::ErrorBuilder unsupported(const OperationContext& context) {
  hal::ErrorBuilder builder(hal::ErrorStatus::INVALID_ARGUMENT);
  builder << hal::toString(context.type()) << ": ";
  return builder;
}

// Signature checks, for what hal's operation table does not cover: vendor extension operations
// (drivers/sim/extensions/) and a kernel's own narrower support. A built-in operation's
// counts and types are checked once by the table (hal/operation_signatures.h) before any kernel
// sees it, so kernels do not repeat them.
//
// Fails unless the operation has one of `inputCounts` inputs and exactly `outputCount` outputs.
Status expectCounts(const OperationContext& context, std::initializer_list<size_t> inputCounts,
                    size_t outputCount);
// Fails unless input `i` has type `type`.
Status expectInputType(const OperationContext& context, size_t i, OperandType type);
// Fails unless input `i` is a constant or otherwise known value of scalar `type`.
Status expectScalar(const OperationContext& context, size_t i, OperandType type);
// Fails unless the inputs with these indexes, and every output, have the same type as input 0.
Status expectSameTypeAsFirst(const OperationContext& context, std::initializer_list<size_t> inputs);
// Fails unless `type` is TENSOR_FLOAT32 or TENSOR_QUANT8_ASYMM (what the simulator runs today).
Status expectFloatOrQuant8(const OperationContext& context, OperandType type);
// Fails unless input `i`, the optional NCHW flag, is absent or false (NHWC).
Status expectNhwc(const OperationContext& context, size_t i);
// Fails unless a quantized operation's output keeps input 0's scale and zero point (operations
// that move or select values without rescaling them).
Status expectSameQuantizationAsInput(const OperationContext& context);
// Fails unless input `i` is a known activation code.
Status expectFusedActivation(const OperationContext& context, size_t i);
// Fails unless a convolution's bias (input 2) has one entry per output channel; the model may
// leave both sizes to execution, so the kernel checks before it indexes the bias by channel.
Status expectBiasPerOutputChannel(const OperationContext& context, uint32_t outputChannels);

// ---- Fused activations -------------------------------------------------------------------

enum class FusedActivation : int32_t { NONE = 0, RELU = 1, RELU1 = 2, RELU6 = 3 };

struct FloatRange {
  float min;
  float max;
};
FloatRange activationRange(FusedActivation activation);

struct QuantRange {
  int32_t min;
  int32_t max;
};
// The output range of an activation in the quantized domain of `output`, within [qmin, qmax].
QuantRange activationRange(FusedActivation activation, const Tensor& output, int32_t qmin = 0,
                           int32_t qmax = 255);

// ---- Fixed-point requantization (gemmlowp/TFLite semantics, as AOSP's CPU reference) --------

struct QuantizedMultiplier {
  int32_t multiplier = 0;  // Q31
  int shift = 0;           // > 0: left shift
};
QuantizedMultiplier quantizeMultiplier(double realMultiplier);

// `x` clamped to int32's range: saturated rather than wrapped (only absurd operands get there).
inline int32_t saturateToInt32(int64_t x) {
  return static_cast<int32_t>(
      std::clamp<int64_t>(x, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
}

inline int32_t saturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  const bool overflow = a == b && a == std::numeric_limits<int32_t>::min();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  const int32_t high = static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
  return overflow ? std::numeric_limits<int32_t>::max() : high;
}

inline int32_t roundingDivideByPowerOfTwo(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + ((x < 0) ? 1 : 0);
  return (x >> exponent) + ((remainder > threshold) ? 1 : 0);
}

inline int32_t multiplyByQuantizedMultiplier(int32_t x, QuantizedMultiplier m) {
  const int leftShift = m.shift > 0 ? m.shift : 0;
  const int rightShift = m.shift > 0 ? 0 : -m.shift;
  // Saturated rather than wrapped (signed overflow is undefined); only absurd scale ratios get
  // here.
  const int32_t saturated = saturateToInt32(static_cast<int64_t>(x) * (int64_t{1} << leftShift));
  return roundingDivideByPowerOfTwo(saturatingRoundingDoublingHighMul(saturated, m.multiplier), rightShift);
}

// An int32 accumulator plus bias, rescaled and offset by the output zero point, saturating at
// int32's limits instead of overflowing (only absurd operands get there).
inline int32_t requantizeSaturating(int64_t accumulator, QuantizedMultiplier m, int32_t zeroPoint) {
  const int32_t scaled = multiplyByQuantizedMultiplier(saturateToInt32(accumulator), m);
  return saturateToInt32(int64_t{scaled} + zeroPoint);
}

// Quantizes a real value into `tensor`'s uint8 domain, rounding half away from zero.
inline uint8_t quantizeToUint8(float value, const Tensor& tensor) {
  const float q = std::round(value / tensor.scale) + static_cast<float>(tensor.zeroPoint);
  return static_cast<uint8_t>(std::min(255.0f, std::max(0.0f, q)));
}

inline float dequantize(uint8_t value, const Tensor& tensor) {
  return tensor.scale * (static_cast<int32_t>(value) - tensor.zeroPoint);
}

// ---- Spatial padding -------------------------------------------------------------------------

enum class PaddingScheme : int32_t { SAME = 1, VALID = 2 };

struct Padding {
  uint32_t before = 0;
  uint32_t after = 0;
};

// Padding for one spatial dimension under an implicit scheme.
Padding implicitPadding(PaddingScheme scheme, uint32_t inSize, uint32_t stride, uint32_t filter,
                        uint32_t dilation);
// Output size for explicit padding; 0 if the window never fits.
uint32_t outputSize(uint32_t inSize, uint32_t filter, uint32_t dilation, uint32_t stride,
                    Padding padding);

// Window parameters shared by CONV_2D, DEPTHWISE_CONV_2D and the pools, read from their
// explicit- or implicit-padding operand layouts.
struct Window {
  Padding width, height;
  uint32_t strideWidth = 1, strideHeight = 1;
  uint32_t dilationWidth = 1, dilationHeight = 1;
  uint32_t filterWidth = 0, filterHeight = 0;
};

// ---- Broadcasting ----------------------------------------------------------------------------

// NumPy-style broadcast of two shapes, aligned at the trailing dimension.
Status broadcastShapes(const OperationContext& context, const std::vector<uint32_t>& a,
                       const std::vector<uint32_t>& b, std::vector<uint32_t>* out);

// NumPy-style broadcasting: // calls fn(outIndex, aIndex, bIndex) for every output element.
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

// Calls fn(line, base, stride, length) for every line of `t` along `axis`: the line's number
// (0, 1, ...: its index in a result with `axis` removed), its first element and its elements'
// distance.
template <typename Fn>
void forEachLine(const Tensor& t, uint32_t axis, Fn&& fn) {
  size_t outer = 1, inner = 1;
  for (uint32_t d = 0; d < axis; ++d) outer *= t.dim(d);
  for (uint32_t d = axis + 1; d < t.rank(); ++d) inner *= t.dim(d);
  const size_t length = t.dim(axis);
  size_t line = 0;
  for (size_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < inner; ++i) fn(line++, o * length * inner + i, inner, length);
}

// ---- Values of any element type as real numbers ---------------------------------------------

// Element i of a float32, int32, quant8, quant16 or bool8 tensor as a real value (quantized
// types dequantized).
inline double readValue(const Tensor& t, size_t i) {
  switch (t.type) {
    case OperandType::TENSOR_FLOAT32: return t.as<float>()[i];
    case OperandType::TENSOR_INT32: return t.as<int32_t>()[i];
    case OperandType::TENSOR_QUANT8_ASYMM: return dequantize(t.as<uint8_t>()[i], t);
    case OperandType::TENSOR_QUANT16_ASYMM: return t.scale * (int32_t(t.as<uint16_t>()[i]) - t.zeroPoint);
    case OperandType::TENSOR_QUANT16_SYMM: return t.scale * t.as<int16_t>()[i];
    default: return t.as<uint8_t>()[i] != 0;  // TENSOR_BOOL8
  }
}

// A real value truncated to int32, saturating at its limits (NaN is 0): converting an
// out-of-range value would be undefined behaviour.
inline int32_t saturatingInt32(double value) {
  if (!(value == value)) return 0;
  if (value >= 2147483647.0) return std::numeric_limits<int32_t>::max();
  if (value <= -2147483648.0) return std::numeric_limits<int32_t>::min();
  return int32_t(value);
}

// Writes a real value into element i: quantized (rounded, saturated), truncated to int32
// (saturated), or as a boolean.
inline void writeValue(const Tensor& t, size_t i, double value) {
  switch (t.type) {
    case OperandType::TENSOR_FLOAT32: t.asMutable<float>()[i] = float(value); break;
    case OperandType::TENSOR_INT32: t.asMutable<int32_t>()[i] = saturatingInt32(value); break;
    case OperandType::TENSOR_QUANT8_ASYMM: t.asMutable<uint8_t>()[i] = quantizeToUint8(float(value), t); break;
    case OperandType::TENSOR_QUANT16_ASYMM: {
      const float q = std::round(float(value) / t.scale + float(t.zeroPoint));
      t.asMutable<uint16_t>()[i] = uint16_t(std::min(65535.0f, std::max(0.0f, q)));
      break;
    }
    default: t.asMutable<uint8_t>()[i] = value != 0 ? 1 : 0;
  }
}

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_KERNELS_KERNEL_UTILS_H_
