// The floor of any hop between two processes on this machine: a futex ping-pong with a forked
// process, both on one CPU, the other side SCHED_BATCH, as a backend host's parent and child
// exchange a call (wire::SharedQueue::handOffCpu). Each round trip is two wake-ups and two
// switches of address space, and nothing else: what a machine charges for those (a paravirtual
// guest charges much more than bare metal) is what an isolated backend's call pays before any
// work of its own, so a benchmark can print it beside the ratio it measures.
#ifndef NNREMOTE_BENCHMARKS_PROCESS_PING_PONG_H_
#define NNREMOTE_BENCHMARKS_PROCESS_PING_PONG_H_

#include <sched.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>

namespace nnremote::benchmarks {

class ProcessPingPong {
 public:
  // Forks the other side. Call it before the process starts threads: the child only waits on
  // futexes and exits, but fork copies only the calling thread. nullptr if it could not fork.
  static std::unique_ptr<ProcessPingPong> start();
  ~ProcessPingPong();  // kills and reaps the other side

  // Keeps the calling thread and the other side to the CPU the caller is on, as a call's CPU
  // hand-off does, until destroyed; the caller then gets its CPUs back.
  class OnOneCpu {
   public:
    OnOneCpu(const OnOneCpu&) = delete;
    OnOneCpu& operator=(const OnOneCpu&) = delete;
    ~OnOneCpu();

   private:
    friend class ProcessPingPong;
    explicit OnOneCpu(pid_t other);
    cpu_set_t allowed_{};
    bool restore_ = false;
  };
  OnOneCpu keepToOneCpu() const { return OnOneCpu(other_); }

  // One round trip; false if the other side is gone.
  bool roundTrip();
  pid_t otherSide() const { return other_; }

  ProcessPingPong(const ProcessPingPong&) = delete;
  ProcessPingPong& operator=(const ProcessPingPong&) = delete;

 private:
  struct Shared {
    std::atomic<uint32_t> ping{0}, pong{0};  // the last request sent, the last answered
  };
  ProcessPingPong(Shared* shared, pid_t other) : shared_(shared), other_(other) {}
  Shared* shared_;
  pid_t other_;
  bool reaped_ = false;  // by roundTrip(), which found it dead: its pid may be another's now
};

}  // namespace nnremote::benchmarks

#endif  // NNREMOTE_BENCHMARKS_PROCESS_PING_PONG_H_
