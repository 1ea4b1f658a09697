// What a backend library is doing right now. Every call the guard (backend_guard.h) makes into a
// library registers itself for as long as it runs, so a backend host can tell its parent which
// call it died in, notice a call that never returns, and hold a call to a CPU-time limit.
#ifndef NNREMOTE_MIDDLEWARE_BACKEND_CALLS_H_
#define NNREMOTE_MIDDLEWARE_BACKEND_CALLS_H_

#include <pthread.h>
#include <sys/types.h>
#include <time.h>

#include <chrono>
#include <optional>
#include <string>

namespace nnremote::middleware {

class BackendCall {
 public:
  // `method` is a string literal ("IPreparedModel::execute"): it is read from a signal handler.
  explicit BackendCall(const char* method);
  ~BackendCall();
  BackendCall(const BackendCall&) = delete;
  BackendCall& operator=(const BackendCall&) = delete;

  // The method the calling thread is in, or nullptr. Async-signal-safe.
  static const char* currentOnThisThread();

  // Runs `setup` on each thread before its first call into a library (a backend host gives the
  // thread a stack for its signal handlers, so that a library overflowing the thread's own stack
  // is reported like any crash). Set once, before any call.
  static void setThreadSetup(void (*setup)());

  struct Running {
    const char* method = nullptr;
    std::chrono::steady_clock::duration age{};
    // CPU time the calling thread has used since the call began.
    std::chrono::nanoseconds cpu{};
    pid_t thread = 0;  // the calling thread's id (gettid), to ask it for its stack
  };
  // The call that has run longest, and the one that has used the most CPU time, if any runs.
  struct Longest {
    Running byAge;
    Running byCpu;
  };
  static std::optional<Longest> longest();

 private:
  friend class BackendCallList;
  const char* const method_;
  const char* const previousOnThread_;
  const std::chrono::steady_clock::time_point start_;
  const pid_t thread_;
  clockid_t threadClock_{};
  bool haveThreadClock_ = false;
  std::chrono::nanoseconds cpuAtStart_{};
  BackendCall* prev_ = nullptr;
  BackendCall* next_ = nullptr;
};

}  // namespace nnremote::middleware

#endif  // NNREMOTE_MIDDLEWARE_BACKEND_CALLS_H_
