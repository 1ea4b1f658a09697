// Cuts off a blocking stream read that outlives its time limit, for the synchronous gRPC API
// where a Read cannot time out by itself: a thread of its own waits for the limit and cancels
// the call. Armed only for calls that have a limit, so calls without one pay nothing.
#ifndef NNREMOTE_DRIVERS_PROXY_CALL_WATCHDOG_H_
#define NNREMOTE_DRIVERS_PROXY_CALL_WATCHDOG_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace nnremote::proxy {

class CallWatchdog {
 public:
  using TimePoint = std::chrono::system_clock::time_point;
  CallWatchdog() = default;
  ~CallWatchdog();

  // Calls `cancel` at `limit` unless disarm() comes first; one arming at a time.
  void arm(TimePoint limit, std::function<void()> cancel);
  // True if the call was cancelled.
  bool disarm();

 private:
  void watch();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<TimePoint> limit_;
  std::function<void()> cancel_;
  bool fired_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace nnremote::proxy

#endif  // NNREMOTE_DRIVERS_PROXY_CALL_WATCHDOG_H_
