// Where a thread of this process is waiting, as the kernel tells it (/proc/self/task/T/syscall
// and wchan), for a crash report's thread that cannot write its own stack: one in uninterruptible
// sleep, stopped, or blocking the signal that asks for it. A driver's ioctl that never returns is
// what a hang on a new board often is, so the system call, the file it is on and the kernel
// function it sleeps in say more than the thread's name. Async-signal-safe: nothing allocates.
#ifndef NNREMOTE_EMULATOR_THREAD_WAIT_H_
#define NNREMOTE_EMULATOR_THREAD_WAIT_H_

#include <sys/types.h>

#include <cstdint>

#include "emulator/signal_safe_text.h"

namespace nnremote::emulator {

struct ThreadWait {
  bool known = false;  // the kernel said where the thread is (not running, not gone)
  long syscall = -1;   // the system call it is in; -1: in none (stopped in user space)
  uint64_t arguments[6] = {};
  uintptr_t pc = 0;              // the user-space instruction it will go on from; 0 if not known
  char kernelFunction[64] = "";  // where it sleeps in the kernel; empty if the kernel hides it
};

// Reads a small file (of /proc) whole into `buffer`, NUL-terminated; its size, or -1.
ssize_t readSmallFile(const char* path, char* buffer, size_t size);

// Reads where `thread` (of this process) waits. Returns its `known` false if it is running or gone.
ThreadWait readThreadWait(pid_t thread);

// Appends, for a known wait, e.g. "in system call ioctl (fd 7: /dev/npu0, request 0xc0184e01),
// sleeping in the kernel in npu_wait_done" (the call's name if this file knows it, else its
// number; the file and request for the calls that take them); nothing for an unknown one.
void describeThreadWait(const ThreadWait& wait, SignalSafeText<1023>& line);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_THREAD_WAIT_H_
