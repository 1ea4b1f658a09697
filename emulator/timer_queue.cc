#include "emulator/timer_queue.h"

namespace nnremote::emulator {

TimerQueue::TimerQueue() : thread_([this] { run(); }) {}

TimerQueue::~TimerQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

uint64_t TimerQueue::schedule(Clock::time_point when, std::function<void()> callback) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t id = nextId_++;
  const bool earliest = timers_.empty() || when < timers_.begin()->first.first;
  timers_.emplace(std::make_pair(when, id), std::move(callback));
  whenById_.emplace(id, when);
  if (earliest) changed_.notify_all();
  return id;
}

bool TimerQueue::cancel(uint64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = whenById_.find(id);
  if (it == whenById_.end()) return false;
  timers_.erase(std::make_pair(it->second, id));
  whenById_.erase(it);
  return true;
}

size_t TimerQueue::pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return timers_.size();
}

void TimerQueue::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    if (timers_.empty()) {
      changed_.wait(lock);
      continue;
    }
    const auto next = timers_.begin();
    // A copy: wait_until reads the time again after waking, when cancel() may have erased it.
    const Clock::time_point when = next->first.first;
    if (Clock::now() < when) {
      changed_.wait_until(lock, when);
      continue;
    }
    std::function<void()> callback = std::move(next->second);
    whenById_.erase(next->first.second);
    timers_.erase(next);
    lock.unlock();
    callback();
    callback = nullptr;
    lock.lock();
  }
}

}  // namespace nnremote::emulator
