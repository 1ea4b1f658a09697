// Threads for server work that must not run on gRPC's callback threads (burst executions,
// fenced executions, shared-queue service), lent only while there is work: a task takes an
// idle thread or starts one, and a thread idle for `idleGrace` ends. So a server with a
// thousand idle bursts holds no thread for them, and one with many active clients has one per
// running task, as the synchronous server had.
#ifndef NNREMOTE_EMULATOR_WORK_POOL_H_
#define NNREMOTE_EMULATOR_WORK_POOL_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace nnremote::emulator {

class WorkPool {
 public:
  explicit WorkPool(std::chrono::milliseconds idleGrace = std::chrono::seconds(2));
  // Waits for every task, then joins every thread: one still ending (its thread-local
  // destructors, OpenSSL's among them) must not race a process's exit.
  ~WorkPool();
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  // Runs `task` on a pool thread. Tasks never wait for each other: each gets a thread of its
  // own when none is idle.
  void submit(std::function<void()> task);

  size_t threads() const;
  size_t idleThreads() const;

 private:
  void work();
  // Joins the threads that have ended since the last call.
  void joinEnded(std::unique_lock<std::mutex>& lock);

  const std::chrono::milliseconds idleGrace_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> tasks_;
  std::unordered_map<std::thread::id, std::thread> running_;
  std::vector<std::thread> ended_;  // left work(), not yet joined
  size_t threads_ = 0;
  size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_WORK_POOL_H_
