// Where a device scheduler reads the time and waits for it. The emulator uses the host's steady
// clock; tests use a ManualTimeSource, so that what the scheduler decides is checked on the
// simulated timeline without a single wall-clock assertion.
#ifndef NNREMOTE_MIDDLEWARE_TIME_SOURCE_H_
#define NNREMOTE_MIDDLEWARE_TIME_SOURCE_H_

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "hal/types.h"

namespace nnremote::middleware {

class TimeSource {
 public:
  virtual ~TimeSource() = default;
  virtual hal::TimePoint now() const = 0;
  // Blocks (with `lock` held on entry and exit) until `until` has passed on this source or `cv`
  // is notified; spurious returns are allowed, so callers loop.
  virtual void waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                         hal::TimePoint until) const = 0;
};

// The host's steady clock (hal::Clock).
std::shared_ptr<const TimeSource> hostClock();

// A clock that moves only when told to. Waiters poll it every millisecond of host time, which is
// fine for tests and keeps the clock free of any list of waiters.
class ManualTimeSource final : public TimeSource {
 public:
  explicit ManualTimeSource(hal::TimePoint start = hal::TimePoint{}) : now_(start.time_since_epoch().count()) {}
  hal::TimePoint now() const override { return hal::TimePoint(hal::Duration(now_.load())); }
  void waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 hal::TimePoint until) const override;
  void advance(hal::Duration by) { now_ += by.count(); }
  void set(hal::TimePoint to) { now_ = to.time_since_epoch().count(); }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace nnremote::middleware

#endif  // NNREMOTE_MIDDLEWARE_TIME_SOURCE_H_
