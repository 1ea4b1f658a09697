// Hands out a fuzz input's bytes as small choices, for the targets that build what they test
// from the bytes (hal_model_fuzzer's model, session_fuzzer's calls); zeros once they run out, so
// every input, however short, means something.
#ifndef NNREMOTE_TESTS_FUZZ_CHOICES_H_
#define NNREMOTE_TESTS_FUZZ_CHOICES_H_

#include <cstddef>
#include <cstdint>

namespace nnremote::fuzz {

class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return position_ < size_ ? data_[position_++] : 0; }
  uint32_t below(uint32_t bound) { return bound == 0 ? 0 : byte() % bound; }
  uint32_t word() {
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value = (value << 8) | byte();
    return value;
  }
  float scale() {
    static constexpr float kScales[] = {0.0f, 0.5f, 1.0f, 0.25f, 1e-3f, 2.0f, -1.0f, 1e30f};
    return kScales[byte() % 8];
  }
  bool exhausted() const { return position_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

}  // namespace nnremote::fuzz

#endif  // NNREMOTE_TESTS_FUZZ_CHOICES_H_
