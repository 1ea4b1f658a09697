// Timeouts for calls that wait without a thread (a fence's deadline, WaitFence's timeout): one
// thread sleeps until the earliest and runs each callback when its time comes. Callbacks must
// be short; they normally just complete a gRPC reactor or hand work to a WorkPool.
#ifndef NNREMOTE_EMULATOR_TIMER_QUEUE_H_
#define NNREMOTE_EMULATOR_TIMER_QUEUE_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

namespace nnremote::emulator {

class TimerQueue {
 public:
  using Clock = std::chrono::steady_clock;
  TimerQueue();
  // Pending callbacks are dropped, not run.
  ~TimerQueue();
  TimerQueue(const TimerQueue&) = delete;
  TimerQueue& operator=(const TimerQueue&) = delete;

  // Runs `callback` at `when` (at once if it has passed), unless cancelled first. The id is
  // never 0.
  uint64_t schedule(Clock::time_point when, std::function<void()> callback);
  // True if the callback had not started; it will not run now.
  bool cancel(uint64_t id);
  size_t pending() const;

 private:
  void run();

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  // By time, then id; ids map back to their entry for cancel().
  std::map<std::pair<Clock::time_point, uint64_t>, std::function<void()>> timers_;
  std::map<uint64_t, Clock::time_point> whenById_;
  uint64_t nextId_ = 1;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_TIMER_QUEUE_H_
