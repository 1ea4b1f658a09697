// Text built in place, for code that may run in a signal handler (crash reports, a backend
// host's last words): nothing here allocates, locks or calls the C library's formatting. What
// does not fit is cut off. One byte is kept spare for the character that ends the text.
#ifndef NNREMOTE_EMULATOR_SIGNAL_SAFE_TEXT_H_
#define NNREMOTE_EMULATOR_SIGNAL_SAFE_TEXT_H_

#include <cstddef>
#include <cstdint>

namespace nnremote::emulator {

template <size_t Room>
class SignalSafeText {
 public:
  SignalSafeText& text(const char* text) {
    while (*text != '\0' && used_ < Room) buffer_[used_++] = *text++;
    return *this;
  }
  SignalSafeText& decimal(uint64_t value) {
    char digits[20];
    int count = 0;
    do {
      digits[count++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    while (count > 0 && used_ < Room) buffer_[used_++] = digits[--count];
    return *this;
  }
  // 0x and at least `width` hex digits.
  SignalSafeText& hex(uintptr_t value, int width = 1) {
    char digits[2 * sizeof value];
    int count = 0;
    do {
      digits[count++] = "0123456789abcdef"[value & 0xf];
      value >>= 4;
    } while (value != 0);
    while (count < width && count < static_cast<int>(sizeof digits)) digits[count++] = '0';
    text("0x");
    while (count > 0 && used_ < Room) buffer_[used_++] = digits[--count];
    return *this;
  }
  // The text followed by `end`, in the spare byte.
  const char* endedBy(char end) {
    buffer_[used_] = end;
    return buffer_;
  }
  const char* c_str() { return endedBy('\0'); }
  size_t size() const { return used_; }
  void clear() { used_ = 0; }

 private:
  char buffer_[Room + 1];
  size_t used_ = 0;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_SIGNAL_SAFE_TEXT_H_
