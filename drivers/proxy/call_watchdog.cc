#include "drivers/proxy/call_watchdog.h"

namespace nnremote::proxy {

CallWatchdog::~CallWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CallWatchdog::arm(TimePoint limit, std::function<void()> cancel) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    limit_ = limit;
    cancel_ = std::move(cancel);
    fired_ = false;
    if (!thread_.joinable()) thread_ = std::thread([this] { watch(); });
  }
  changed_.notify_all();
}

bool CallWatchdog::disarm() {
  std::lock_guard<std::mutex> lock(mutex_);
  limit_.reset();
  cancel_ = nullptr;
  return fired_;
}

void CallWatchdog::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    if (!limit_) {
      changed_.wait(lock);
      continue;
    }
    const TimePoint limit = *limit_;
    if (changed_.wait_until(lock, limit) == std::cv_status::timeout && limit_ == limit && cancel_) {
      fired_ = true;
      limit_.reset();
      cancel_();  // TryCancel only flags the call; it is safe under our lock
    }
  }
}

}  // namespace nnremote::proxy
