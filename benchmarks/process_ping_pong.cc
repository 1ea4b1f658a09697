#include "benchmarks/process_ping_pong.h"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <new>

#include "wire/futex.h"

namespace nnremote::benchmarks {
namespace {

// Whether `word` left `value`, waiting for it at most a slice: a caller checks its peer is still
// there between slices.
bool changedWithin(std::atomic<uint32_t>& word, uint32_t value) {
  if (word.load(std::memory_order_acquire) != value) return true;
  wire::futexWait(&word, value, std::chrono::milliseconds(100));
  return word.load(std::memory_order_acquire) != value;
}

void set(std::atomic<uint32_t>& word, uint32_t value) {
  word.store(value, std::memory_order_release);
  wire::futexWake(&word);
}

}  // namespace

std::unique_ptr<ProcessPingPong> ProcessPingPong::start() {
  void* memory = ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return nullptr;
  Shared* shared = new (memory) Shared();
  const pid_t parent = ::getpid();
  const pid_t other = ::fork();
  if (other < 0) {
    ::munmap(memory, sizeof(Shared));
    return nullptr;
  }
  if (other == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(0);
    // Woken without preempting its waker, as the queue's client makes a backend host's thread.
    const sched_param none{};
    (void)::sched_setscheduler(0, SCHED_BATCH, &none);
    for (uint32_t answered = 0;;) {
      while (!changedWithin(shared->ping, answered)) {
        if (::getppid() != parent) ::_exit(0);
      }
      answered = shared->ping.load(std::memory_order_acquire);
      set(shared->pong, answered);
    }
  }
  return std::unique_ptr<ProcessPingPong>(new ProcessPingPong(shared, other));
}

ProcessPingPong::~ProcessPingPong() {
  if (!reaped_) {
    ::kill(other_, SIGKILL);
    ::waitpid(other_, nullptr, 0);
  }
  ::munmap(shared_, sizeof(Shared));
}

ProcessPingPong::OnOneCpu::OnOneCpu(pid_t other) {
  const int cpu = ::sched_getcpu();
  if (cpu < 0 || ::sched_getaffinity(0, sizeof(allowed_), &allowed_) != 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  restore_ = ::sched_setaffinity(0, sizeof(one), &one) == 0;
  (void)::sched_setaffinity(other, sizeof(one), &one);
}

ProcessPingPong::OnOneCpu::~OnOneCpu() {
  if (restore_) (void)::sched_setaffinity(0, sizeof(allowed_), &allowed_);
}

bool ProcessPingPong::roundTrip() {
  if (reaped_) return false;
  const uint32_t sent = shared_->ping.load(std::memory_order_relaxed) + 1;
  set(shared_->ping, sent);
  for (uint32_t seen; (seen = shared_->pong.load(std::memory_order_acquire)) != sent;) {
    if (!changedWithin(shared_->pong, seen) && ::waitpid(other_, nullptr, WNOHANG) != 0) {
      reaped_ = true;
      return false;
    }
  }
  return true;
}

}  // namespace nnremote::benchmarks
