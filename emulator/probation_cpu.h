// Where a backend host on probation runs (docs/backends.md#isolation): on one CPU of those it
// may use, until its probation ends.
//
// A restarted host on probation already weighs the least (the zygote's nice-19 autogroup), yet
// what it does while starting and dying disturbs other devices' clients beyond its share of CPU:
// its threads running on several CPUs at once make the kernel interrupt the other CPUs to flush
// their TLBs (copy-on-write after the fork, unmapping at exit) and to wake threads there, which
// is dear on a virtual machine. Kept on one CPU, those interrupts stay local and the other CPUs
// serve the clients undisturbed (measured: docs/backends.md).
#ifndef NNREMOTE_EMULATOR_PROBATION_CPU_H_
#define NNREMOTE_EMULATOR_PROBATION_CPU_H_

#include <sched.h>

namespace nnremote::emulator {

class ProbationCpu {
 public:
  // Keeps the calling thread, and so every thread it starts afterwards, on one of the CPUs it may
  // use: the one `spread` picks (a pid, so that hosts on probation spread over the CPUs). Call it
  // before the process starts any other thread. Where the set cannot be read or has one CPU,
  // nothing changes.
  static ProbationCpu confine(unsigned spread);

  // Gives every thread of the process that keeps to the one CPU back the CPUs it could use before
  // confine(); a thread the library has given a set of its own keeps it. Threads started
  // meanwhile are found too: it goes over the process's threads until none has to change (a
  // bounded number of times).
  void release();

  // Whether confine() narrowed anything (release() has something to undo).
  bool confined() const { return confined_; }

 private:
  cpu_set_t allowed_{};
  cpu_set_t one_{};
  bool confined_ = false;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_PROBATION_CPU_H_
