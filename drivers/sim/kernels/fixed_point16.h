// 16-bit fixed-point arithmetic for the quantized LSTMs. NNAPI defines QUANTIZED_16BIT_LSTM and
// QUANTIZED_LSTM by the integer code of AOSP's CPU reference, whose logistic and tanh are
// gemmlowp's 16-bit fixed-point approximations; reproducing their rounding step for step is what
// makes our cell states agree with the CTS goldens instead of drifting by a few units.
//
// Fixed<I> holds a real value v as raw = v * 2^(15 - I) in an int16 ("I integer bits").
#ifndef NNREMOTE_DRIVERS_SIM_KERNELS_FIXED_POINT16_H_
#define NNREMOTE_DRIVERS_SIM_KERNELS_FIXED_POINT16_H_

#include <algorithm>
#include <cstdint>

namespace nnremote::sim::fixed16 {

inline int16_t wrap(int32_t x) { return static_cast<int16_t>(x); }
inline int16_t saturate(int32_t x) { return static_cast<int16_t>(std::min(32767, std::max(-32768, x))); }

// round(a * b / 2^15), saturating the one overflowing case (-1 * -1).
inline int16_t saturatingRoundingDoublingHighMul(int16_t a, int16_t b) {
  if (a == b && a == INT16_MIN) return INT16_MAX;
  const int32_t ab = int32_t(a) * int32_t(b);
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return wrap((ab + nudge) / (1 << 15));
}

// x / 2^exponent, rounding half away from zero.
inline int16_t roundingDivideByPowerOfTwo(int16_t x, int exponent) {
  const int32_t mask = (1 << exponent) - 1;
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return wrap((x >> exponent) + (remainder > threshold ? 1 : 0));
}

// x * 2^exponent, saturating (exponent > 0) or rounding (exponent < 0).
inline int16_t saturatingRoundingMultiplyByPowerOfTwo(int16_t x, int exponent) {
  if (exponent == 0) return x;
  if (exponent < 0) return roundingDivideByPowerOfTwo(x, -exponent);
  const int32_t threshold = (1 << (15 - exponent)) - 1;
  if (x > threshold) return INT16_MAX;
  if (x < -threshold) return INT16_MIN;
  return wrap(int32_t(x) * (1 << exponent));
}

// A 32-bit gemmlowp constant as its 16-bit counterpart (the top half, rounded).
constexpr int16_t fromQ31(int32_t q31) {
  const int64_t x = q31;
  const int64_t mask = (int64_t{1} << 16) - 1;
  const int64_t remainder = x & mask;
  const int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return static_cast<int16_t>((x >> 16) + (remainder > threshold ? 1 : 0));
}

template <int IntegerBits>
struct Fixed {
  static_assert(IntegerBits >= 0 && IntegerBits <= 15);
  static constexpr int kFractionalBits = 15 - IntegerBits;
  int16_t raw = 0;

  static Fixed fromRaw(int32_t raw) { return Fixed{wrap(raw)}; }
  // 2^exponent, which must be representable.
  static Fixed powerOfTwo(int exponent) { return fromRaw(1 << (kFractionalBits + exponent)); }
  static Fixed one() { return IntegerBits == 0 ? Fixed{INT16_MAX} : powerOfTwo(0); }
};

template <int I>
Fixed<I> operator+(Fixed<I> a, Fixed<I> b) { return Fixed<I>::fromRaw(int32_t(a.raw) + b.raw); }
template <int I>
Fixed<I> operator-(Fixed<I> a, Fixed<I> b) { return Fixed<I>::fromRaw(int32_t(a.raw) - b.raw); }
template <int I>
Fixed<I> operator-(Fixed<I> a) { return Fixed<I>::fromRaw(-int32_t(a.raw)); }
template <int A, int B>
Fixed<A + B> operator*(Fixed<A> a, Fixed<B> b) { return Fixed<A + B>{saturatingRoundingDoublingHighMul(a.raw, b.raw)}; }

template <int I>
Fixed<I> saturatingAdd(Fixed<I> a, Fixed<I> b) { return Fixed<I>{saturate(int32_t(a.raw) + b.raw)}; }

// The same value with `To` integer bits.
template <int To, int From>
Fixed<To> rescale(Fixed<From> a) { return Fixed<To>{saturatingRoundingMultiplyByPowerOfTwo(a.raw, From - To)}; }

// The same raw bits read with `Exponent` more integer bits: multiplies the value by 2^Exponent.
template <int Exponent, int I>
Fixed<I + Exponent> exactMultiplyByPowerOfTwo(Fixed<I> a) { return Fixed<I + Exponent>{a.raw}; }

// (a + b) / 2, rounded half away from zero.
inline Fixed<0> roundingHalfSum(Fixed<0> a, Fixed<0> b) {
  const int32_t sum = int32_t(a.raw) + b.raw;
  return Fixed<0>::fromRaw((sum + (sum >= 0 ? 1 : -1)) / 2);
}

// exp(a) for a in [-1/4, 0): a fourth-order Taylor expansion around -1/8.
Fixed<0> expOnIntervalNegativeQuarterToZero(Fixed<0> a);

// exp(a) for a <= 0, from an exact exp on [-1/4, 0) and one multiplier per remaining bit.
template <int I>
Fixed<0> expOnNegativeValues(Fixed<I> a) {
  constexpr int kFractionalBits = Fixed<I>::kFractionalBits;
  const Fixed<I> quarter = Fixed<I>::powerOfTwo(-2);
  const Fixed<I> moduloQuarterMinusQuarter = Fixed<I>::fromRaw((a.raw & (quarter.raw - 1)) - quarter.raw);
  Fixed<0> result = expOnIntervalNegativeQuarterToZero(rescale<0>(moduloQuarterMinusQuarter));
  const int32_t remainder = (moduloQuarterMinusQuarter - a).raw;
  // exp(-2^e) for e = -2..4, as Q31 constants.
  static constexpr int32_t kMultipliers[] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int exponent = -2; exponent <= 4; ++exponent) {
    if (I > exponent && (remainder & (1 << (kFractionalBits + exponent))) != 0) {
      result = result * Fixed<0>{fromQ31(kMultipliers[exponent + 2])};
    }
  }
  if constexpr (I > 5) {
    if (a.raw < fromQ31(-(int32_t{1} << (36 - I)))) result = Fixed<0>{0};  // below -32: exp is 0
  }
  return a.raw == 0 ? Fixed<0>::one() : result;
}

// 1 / (1 + a) and (1 - a) / (1 + a) for a in [0, 1], by Newton-Raphson on the half denominator.
Fixed<0> oneOverOnePlusX(Fixed<0> a);
Fixed<0> oneMinusXOverOnePlusX(Fixed<0> a);

template <int I>
Fixed<0> logistic(Fixed<I> a) {
  if (a.raw == 0) return Fixed<0>::fromRaw(1 << 14);
  const bool positive = a.raw > 0;
  const Fixed<I> magnitude = positive ? a : -a;
  const Fixed<0> resultIfPositive = oneOverOnePlusX(expOnNegativeValues(-magnitude));
  return positive ? resultIfPositive : Fixed<0>::one() - resultIfPositive;
}

template <int I>
Fixed<0> tanh(Fixed<I> a) {
  if (a.raw == 0) return Fixed<0>{0};
  const bool negative = a.raw < 0;
  const Fixed<I> negativeMagnitude = negative ? a : -a;
  const Fixed<0> t = oneMinusXOverOnePlusX(expOnNegativeValues(exactMultiplyByPowerOfTwo<1>(negativeMagnitude)));
  return negative ? -t : t;
}

}  // namespace nnremote::sim::fixed16

#endif  // NNREMOTE_DRIVERS_SIM_KERNELS_FIXED_POINT16_H_
