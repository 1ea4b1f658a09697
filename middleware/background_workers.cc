#include "middleware/background_workers.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace nnremote::middleware {
namespace {

class BackgroundWorkers {
 public:
  BackgroundWorkers() {
    const unsigned count = std::max(2u, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < count; ++i) {
      // Detached: the pool lives as long as the process, and a process may exit while a
      // worker waits for work.
      std::thread([this] { serve(); }).detach();
    }
  }

  void run(const std::function<void()>& work) {
    std::packaged_task<void()> task(work);
    std::future<void> done = task.get_future();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    ready_.notify_one();
    done.get();
  }

 private:
  void serve() {
    // SCHED_IDLE: the thread runs only when nothing else on the host wants the core. Taking a
    // lower policy needs no privilege and applies to this thread only (Linux); where it is
    // refused, the lowest niceness does almost as well.
    sched_param none{};
    if (::sched_setscheduler(0, SCHED_IDLE, &none) != 0) {
      (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 19);
    }
    for (;;) {
      std::packaged_task<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return !tasks_.empty(); });
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::packaged_task<void()>> tasks_;
};

}  // namespace

void runInBackground(const std::function<void()>& work) {
  static BackgroundWorkers* workers = new BackgroundWorkers();  // never destroyed: see above
  workers->run(work);
}

}  // namespace nnremote::middleware
