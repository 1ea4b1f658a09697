#include "middleware/backend_calls.h"

#include <unistd.h>

#include <atomic>
#include <mutex>

namespace nnremote::middleware {
namespace {

thread_local const char* currentMethod = nullptr;
std::atomic<void (*)()> threadSetup{nullptr};

// The calling thread's id, looked up once (gettid is a system call, and calls into a library are
// on the execution path); its setup runs then too.
pid_t thisThread() {
  thread_local const pid_t id = [] {
    if (const auto setup = threadSetup.load()) setup();
    return ::gettid();
  }();
  return id;
}

std::chrono::nanoseconds cpuTime(clockid_t clock) {
  timespec now{};
  if (::clock_gettime(clock, &now) != 0) return std::chrono::nanoseconds(0);
  return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

}  // namespace

// The calls in flight, as an intrusive list: entering and leaving allocate nothing.
class BackendCallList {
 public:
  static BackendCallList& instance() {
    static auto* list = new BackendCallList;  // never destroyed: calls may end during exit
    return *list;
  }
  void add(BackendCall* call) {
    std::lock_guard<std::mutex> lock(mutex_);
    call->next_ = head_;
    if (head_ != nullptr) head_->prev_ = call;
    head_ = call;
  }
  void remove(BackendCall* call) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (call->prev_ != nullptr) call->prev_->next_ = call->next_;
    if (call->next_ != nullptr) call->next_->prev_ = call->prev_;
    if (head_ == call) head_ = call->next_;
  }
  std::optional<BackendCall::Longest> longest() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (head_ == nullptr) return std::nullopt;
    const auto now = std::chrono::steady_clock::now();
    BackendCall::Longest longest;
    for (const BackendCall* call = head_; call != nullptr; call = call->next_) {
      // The thread is inside the call (it removes the call before returning), so its clock is valid.
      BackendCall::Running running{call->method_, now - call->start_,
                                   call->haveThreadClock_ ? cpuTime(call->threadClock_) - call->cpuAtStart_
                                                          : std::chrono::nanoseconds(0),
                                   call->thread_};
      if (longest.byAge.method == nullptr || running.age > longest.byAge.age) longest.byAge = running;
      if (longest.byCpu.method == nullptr || running.cpu > longest.byCpu.cpu) longest.byCpu = running;
    }
    return longest;
  }

 private:
  std::mutex mutex_;
  BackendCall* head_ = nullptr;
};

BackendCall::BackendCall(const char* method)
    : method_(method),
      previousOnThread_(currentMethod),
      start_(std::chrono::steady_clock::now()),
      thread_(thisThread()) {
  haveThreadClock_ = ::pthread_getcpuclockid(::pthread_self(), &threadClock_) == 0;
  if (haveThreadClock_) cpuAtStart_ = cpuTime(threadClock_);
  currentMethod = method;
  BackendCallList::instance().add(this);
}

BackendCall::~BackendCall() {
  BackendCallList::instance().remove(this);
  currentMethod = previousOnThread_;
}

const char* BackendCall::currentOnThisThread() { return currentMethod; }

void BackendCall::setThreadSetup(void (*setup)()) { threadSetup = setup; }

std::optional<BackendCall::Longest> BackendCall::longest() { return BackendCallList::instance().longest(); }

}  // namespace nnremote::middleware
