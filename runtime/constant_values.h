// How a model under construction keeps its constant values, in the byte arrays and pools it
// builds (setOperandValue copies small ones, finish() moves large ones into a pool).
#ifndef NNREMOTE_RUNTIME_CONSTANT_VALUES_H_
#define NNREMOTE_RUNTIME_CONSTANT_VALUES_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace nnremote::runtime {

// The most bytes one value, or one pool, can hold: lengths and offsets are 32 bits in hal.
constexpr size_t kMaxValueLength = std::numeric_limits<uint32_t>::max();

// Values sit at their natural alignment (up to 8 bytes), so kernels can read them in place.
inline size_t alignUp(size_t offset, size_t length) {
  const size_t alignment = length >= 8 ? 8 : length >= 4 ? 4 : length >= 2 ? 2 : 1;
  return (offset + alignment - 1) / alignment * alignment;
}

// Appends `length` bytes at the next offset aligned for them; returns that offset.
inline uint32_t appendAligned(std::vector<uint8_t>& values, const void* bytes, size_t length) {
  values.resize(alignUp(values.size(), length));
  const uint32_t offset = static_cast<uint32_t>(values.size());
  const auto* begin = static_cast<const uint8_t*>(bytes);
  values.insert(values.end(), begin, begin + length);
  return offset;
}

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_CONSTANT_VALUES_H_
