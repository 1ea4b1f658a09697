// A thread that runs `first`, then waits until the test lets it end (its destructor): a thread
// with a known id for tests that look at threads from outside (affinity, signals, stacks).
#ifndef NNREMOTE_TESTING_WAITING_THREAD_H_
#define NNREMOTE_TESTING_WAITING_THREAD_H_

#include <sys/types.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <thread>

namespace nnremote::testing {

class WaitingThread {
 public:
  // Returns once the thread has run `first`; id() is then its thread id.
  template <typename First>
  explicit WaitingThread(First first)
      : thread_([this, first] {
          first();
          std::unique_lock<std::mutex> lock(mutex_);
          id_ = ::gettid();
          changed_.notify_all();
          changed_.wait(lock, [&] { return done_; });
        }) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return id_ != 0; });
  }
  ~WaitingThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  WaitingThread(const WaitingThread&) = delete;
  WaitingThread& operator=(const WaitingThread&) = delete;

  pid_t id() const { return id_; }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  pid_t id_ = 0;
  bool done_ = false;
  std::thread thread_;  // last: it uses the members above from its start
};

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTING_WAITING_THREAD_H_
