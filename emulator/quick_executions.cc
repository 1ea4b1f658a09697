#include "emulator/quick_executions.h"

namespace nnremote::emulator {

void QuickExecutions::run(const Key& key, std::function<void()> execution) {
  auto timed = [this, key](const std::function<void()>& task) {
    const auto start = std::chrono::steady_clock::now();
    task();
    finished(key, std::chrono::steady_clock::now() - start);
  };
  if (claimInline(key)) {
    timed(execution);
    inlineRunning_.store(false);
  } else {
    pool_.submit([timed, execution = std::move(execution)] { timed(execution); });
  }
}

bool QuickExecutions::claimInline(const Key& key) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = recent_.find(key);
    if (it == recent_.end() || !(it->second.last || it->second.previous)) return false;
  }
  bool expected = false;
  return inlineRunning_.compare_exchange_strong(expected, true);
}

void QuickExecutions::finished(const Key& key, std::chrono::steady_clock::duration took) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Bounded: forgetting only sends a call to the pool once more.
  if (recent_.size() >= kRemembered && recent_.count(key) == 0) recent_.clear();
  Recent& recent = recent_[key];
  recent.previous = recent.last;
  recent.last = took <= quickUpTo_;
}

}  // namespace nnremote::emulator
