#include "emulator/work_pool.h"

#include <pthread.h>

#include <thread>

namespace nnremote::emulator {

WorkPool::WorkPool(std::chrono::milliseconds idleGrace) : idleGrace_(idleGrace) {}

WorkPool::~WorkPool() {
  std::unique_lock<std::mutex> lock(mutex_);
  stopping_ = true;
  changed_.notify_all();
  changed_.wait(lock, [this] { return threads_ == 0; });
  joinEnded(lock);
}

void WorkPool::submit(std::function<void()> task) {
  std::unique_lock<std::mutex> lock(mutex_);
  tasks_.push_back(std::move(task));
  // An idle thread takes it; a task never queues behind a running one.
  if (idle_ >= tasks_.size()) {
    changed_.notify_one();
  } else {
    ++threads_;
    // The thread starts by taking the lock, so it is in running_ before it can end.
    std::thread thread([this] { work(); });
    const std::thread::id id = thread.get_id();
    running_.emplace(id, std::move(thread));
  }
  joinEnded(lock);
}

void WorkPool::joinEnded(std::unique_lock<std::mutex>& lock) {
  if (ended_.empty()) return;  // the usual case: submit keeps its lock
  std::vector<std::thread> ended;
  ended.swap(ended_);
  lock.unlock();
  for (std::thread& thread : ended) {
    // A pool destroyed by its own task cannot join itself; that thread is about to end anyway.
    if (thread.get_id() == std::this_thread::get_id()) {
      thread.detach();
    } else {
      thread.join();
    }
  }
  lock.lock();
}

void WorkPool::work() {
  // A thread inherits its creator's name, which would make pool threads look like gRPC's
  // "nexting_thread"s in top -H and perf; traces of where an execution ran need them apart.
  pthread_setname_np(pthread_self(), "work_pool");
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    if (tasks_.empty()) {
      if (stopping_) break;
      ++idle_;
      const bool woken = changed_.wait_for(lock, idleGrace_, [this] { return !tasks_.empty() || stopping_; });
      --idle_;
      if (!woken) break;  // idle for the grace period: give the thread back
      continue;
    }
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    task = nullptr;  // whatever it captured goes before the pool may be destroyed
    lock.lock();
  }
  --threads_;
  // Joined by the next submit or the destructor, which waits for the last thread: it must not
  // touch the pool after this.
  const auto self = running_.find(std::this_thread::get_id());
  ended_.push_back(std::move(self->second));
  running_.erase(self);
  changed_.notify_all();
}

size_t WorkPool::threads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return threads_;
}

size_t WorkPool::idleThreads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return idle_;
}

}  // namespace nnremote::emulator
