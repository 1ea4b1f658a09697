// Futex waits and wakes on a 32-bit word in memory that two processes map, so shared rather
// than FUTEX_PRIVATE: the same-host burst queue's words (shared_queue.h), and those of tests
// and benchmarks that play one side of such an exchange.
#ifndef NNREMOTE_WIRE_FUTEX_H_
#define NNREMOTE_WIRE_FUTEX_H_

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>

namespace nnremote::wire {

// Sleeps while `*word` holds `expected`, for at most `timeout`. Returns on a wake, at once if
// the word already differs, on a signal or at the timeout: callers check the word again.
inline void futexWait(std::atomic<uint32_t>* word, uint32_t expected, std::chrono::nanoseconds timeout) {
  const timespec ts{static_cast<time_t>(timeout.count() / 1000000000), static_cast<long>(timeout.count() % 1000000000)};
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}

// Wakes every thread waiting on `*word`, in any process.
inline void futexWake(std::atomic<uint32_t>* word) {
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace nnremote::wire

#endif  // NNREMOTE_WIRE_FUTEX_H_
