#include "drivers/sim/kernels/fingerprint64.h"

#include <cstring>
#include <utility>

namespace nnremote::sim {
namespace {

constexpr uint64_t kPrime0 = 0xc3a5c85c97cb3127ULL;
constexpr uint64_t kPrime1 = 0xb492b66fbe98f273ULL;
constexpr uint64_t kPrime2 = 0x9ae16a3b2f90404fULL;

// Little-endian loads (the fingerprint is defined on little-endian byte order).
uint64_t load64(const uint8_t* p) {
  uint64_t value;
  std::memcpy(&value, p, sizeof(value));
  return value;
}

uint32_t load32(const uint8_t* p) {
  uint32_t value;
  std::memcpy(&value, p, sizeof(value));
  return value;
}

uint64_t rotateRight(uint64_t value, int shift) { return shift == 0 ? value : (value >> shift) | (value << (64 - shift)); }

uint64_t shiftMix(uint64_t value) { return value ^ (value >> 47); }

uint64_t mix16(uint64_t u, uint64_t v, uint64_t multiplier) {
  uint64_t a = (u ^ v) * multiplier;
  a ^= a >> 47;
  uint64_t b = (v ^ a) * multiplier;
  b ^= b >> 47;
  return b * multiplier;
}

uint64_t hashUpTo16(const uint8_t* s, size_t length) {
  const uint64_t multiplier = kPrime2 + length * 2;
  if (length >= 8) {
    const uint64_t a = load64(s) + kPrime2, b = load64(s + length - 8);
    return mix16(rotateRight(b, 37) * multiplier + a, (rotateRight(a, 25) + b) * multiplier, multiplier);
  }
  if (length >= 4) {
    return mix16(length + (uint64_t(load32(s)) << 3), load32(s + length - 4), multiplier);
  }
  if (length > 0) {
    const uint32_t y = uint32_t(s[0]) + (uint32_t(s[length >> 1]) << 8);
    const uint32_t z = uint32_t(length) + (uint32_t(s[length - 1]) << 2);
    return shiftMix(y * kPrime2 ^ z * kPrime0) * kPrime2;
  }
  return kPrime2;
}

uint64_t hash17To32(const uint8_t* s, size_t length) {
  const uint64_t multiplier = kPrime2 + length * 2;
  const uint64_t a = load64(s) * kPrime1, b = load64(s + 8);
  const uint64_t c = load64(s + length - 8) * multiplier, d = load64(s + length - 16) * kPrime2;
  return mix16(rotateRight(a + b, 43) + rotateRight(c, 30) + d, a + rotateRight(b + kPrime2, 18) + c, multiplier);
}

uint64_t hash33To64(const uint8_t* s, size_t length) {
  const uint64_t multiplier = kPrime2 + length * 2;
  const uint64_t a = load64(s) * kPrime2, b = load64(s + 8);
  const uint64_t c = load64(s + length - 8) * multiplier, d = load64(s + length - 16) * kPrime2;
  const uint64_t y = rotateRight(a + b, 43) + rotateRight(c, 30) + d;
  const uint64_t z = mix16(y, a + rotateRight(b + kPrime2, 18) + c, multiplier);
  const uint64_t e = load64(s + 16) * multiplier, f = load64(s + 24);
  const uint64_t g = (y + load64(s + length - 32)) * multiplier;
  const uint64_t h = (z + load64(s + length - 24)) * multiplier;
  return mix16(rotateRight(e + f, 43) + rotateRight(g, 30) + h, e + rotateRight(f + a, 18) + g, multiplier);
}

// Mixes 32 bytes (as w, x, y, z) with two seeds into 16 bytes.
std::pair<uint64_t, uint64_t> mix32(const uint8_t* s, uint64_t a, uint64_t b) {
  const uint64_t w = load64(s), x = load64(s + 8), y = load64(s + 16), z = load64(s + 24);
  a += w;
  b = rotateRight(b + a + z, 21);
  const uint64_t c = a;
  a += x + y;
  b += rotateRight(a, 44);
  return {a + z, b + c};
}

uint64_t hashLong(const uint8_t* s, size_t length) {
  constexpr uint64_t kSeed = 81;
  uint64_t x = kSeed * kPrime2 + load64(s);
  uint64_t y = kSeed * kPrime1 + 113;
  uint64_t z = shiftMix(y * kPrime2 + 113) * kPrime2;
  std::pair<uint64_t, uint64_t> v{0, 0}, w{0, 0};
  // Whole 64-byte blocks, leaving 1 to 64 bytes, which the last 64 bytes cover.
  const uint8_t* end = s + ((length - 1) / 64) * 64;
  const uint8_t* last64 = s + length - 64;
  do {
    x = rotateRight(x + y + v.first + load64(s + 8), 37) * kPrime1;
    y = rotateRight(y + v.second + load64(s + 48), 42) * kPrime1;
    x ^= w.second;
    y += v.first + load64(s + 40);
    z = rotateRight(z + w.first, 33) * kPrime1;
    v = mix32(s, v.second * kPrime1, x + w.first);
    w = mix32(s + 32, z + w.second, y + load64(s + 16));
    std::swap(z, x);
    s += 64;
  } while (s != end);
  const uint64_t multiplier = kPrime1 + ((z & 0xff) << 1);
  s = last64;
  w.first += (length - 1) & 63;
  v.first += w.first;
  w.first += v.first;
  x = rotateRight(x + y + v.first + load64(s + 8), 37) * multiplier;
  y = rotateRight(y + v.second + load64(s + 48), 42) * multiplier;
  x ^= w.second * 9;
  y += v.first * 9 + load64(s + 40);
  z = rotateRight(z + w.first, 33) * multiplier;
  v = mix32(s, v.second * multiplier, x + w.first);
  w = mix32(s + 32, z + w.second, y + load64(s + 16));
  std::swap(z, x);
  return mix16(mix16(v.first, w.first, multiplier) + shiftMix(y) * kPrime0 + z,
               mix16(v.second, w.second, multiplier) + x, multiplier);
}

}  // namespace

uint64_t fingerprint64(const uint8_t* bytes, size_t length) {
  if (length <= 16) return hashUpTo16(bytes, length);
  if (length <= 32) return hash17To32(bytes, length);
  if (length <= 64) return hash33To64(bytes, length);
  return hashLong(bytes, length);
}

}  // namespace nnremote::sim
