// IEEE-754 binary16 <-> binary32, for TENSOR_FLOAT16 and FLOAT16 operands.
#ifndef NNREMOTE_HAL_FLOAT16_H_
#define NNREMOTE_HAL_FLOAT16_H_

#include <cstdint>
#include <cstring>

namespace nnremote::hal {

inline float halfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // infinity or NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;  // zero
  } else {
    // Subnormal: normalize it.
    exponent = 113;
    while ((mantissa & 0x400) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3ff) << 13);
  }
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// Rounds to the nearest binary16, ties to even; overflow becomes infinity.
inline uint16_t floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const uint32_t magnitude = bits & 0x7fffffff;
  if (magnitude >= 0x7f800000) {  // infinity or NaN
    return sign | 0x7c00 | (magnitude > 0x7f800000 ? 0x200 : 0);
  }
  if (magnitude >= 0x477ff000) return sign | 0x7c00;  // rounds past the largest half
  if (magnitude < 0x38800000) {
    // Subnormal or zero in binary16: shift the mantissa (with its implicit bit) into place.
    if (magnitude < 0x33000000) return sign;  // below half the smallest subnormal
    const uint32_t exponent = magnitude >> 23;
    const uint32_t mantissa = (magnitude & 0x7fffff) | 0x800000;
    const uint32_t shift = 126 - exponent;  // 14..24
    uint32_t result = mantissa >> shift;
    const uint32_t remainder = mantissa & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (result & 1))) ++result;
    return sign | static_cast<uint16_t>(result);
  }
  uint32_t result = ((magnitude >> 13) - (112u << 10));
  const uint32_t remainder = magnitude & 0x1fff;
  if (remainder > 0x1000 || (remainder == 0x1000 && (result & 1))) ++result;
  return sign | static_cast<uint16_t>(result);
}

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_FLOAT16_H_
