// Fault injection for crash tests in the manner of MLTS (npu_emulator --fault=...): a device
// decorator whose Nth execution kills the process, never returns, takes long, or fails.
// Every executor (sync, async, reusable, burst, fenced) counts, since all of them reach the
// device's execute(); preparations do not.
#ifndef NNREMOTE_MIDDLEWARE_FAULT_INJECTION_H_
#define NNREMOTE_MIDDLEWARE_FAULT_INJECTION_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hal/forwarding_device.h"
#include "hal/result.h"

namespace nnremote::middleware {

enum class FaultKind {
  CRASH,  // the process dies at once (SIGKILL): no reply, no cleanup
  HANG,   // the execution never returns (until the server shuts down)
  // The same, asleep in the kernel where no signal but SIGKILL reaches it (state D), as in a
  // driver's ioctl that never returns:
  KERNEL_HANG,
  SLOW,   // the execution sleeps kSlowFaultDelay, then runs
  ERROR,  // the execution fails with GENERAL_FAILURE
  // As vendor code fails (for backend hosts, docs/backends.md#isolation):
  ABORT,            // abort(), as a failed assertion does
  SEGFAULT,         // a write through a null pointer
  OVERFLOW,         // recursion until the calling thread's stack overflows
  THREAD_OVERFLOW,  // the same on a thread of the library's own, which the execution waits for
  SPIN,             // the execution burns CPU time and never returns (until shutdown)
  ALLOCATE,         // the execution allocates memory (address space) until an allocation fails
  // Not a failure: the execution runs and answers without output shapes, which the HAL allows
  // where they were fully specified (for testing the clients that read them).
  NO_SHAPES,
};

constexpr std::chrono::seconds kSlowFaultDelay{5};

struct FaultPlan {
  FaultKind kind = FaultKind::ERROR;
  // The fault strikes execution number afterN + 1, counted from server start, once...
  uint64_t afterN = 0;
  // ...or, when set, every execution of a model that has an operation of this type (its name,
  // e.g. "CONV_2D").
  std::string operation;
  // Count only this device's executions; empty: every device's.
  std::string device;
};

// Parses "KIND:AFTER_N[:DEVICE]" or "KIND:op=OPERATION[:DEVICE]", KIND one of crash, hang,
// kernel_hang, slow, error, abort, segfault, overflow, thread_overflow, spin, allocate, no_shapes.
hal::Result<FaultPlan> parseFaultPlan(const std::string& text);

// The shared counter and the means to release hung executions at shutdown.
class FaultInjector {
 public:
  explicit FaultInjector(FaultPlan plan) : plan_(std::move(plan)) {}
  ~FaultInjector();
  FaultInjector(const FaultInjector&) = delete;
  FaultInjector& operator=(const FaultInjector&) = delete;

  // Called before every execution of `model` on `device`: strikes if this is the one. A fault
  // that acts on the answer instead sets `*dropShapes` (NO_SHAPES).
  hal::Status beforeExecution(const std::string& device, const hal::Model* model, bool* dropShapes = nullptr);
  // Ends hangs and slow sleeps, so the server can stop.
  void releaseAll();
  // How many executions it has seen, struck or not (a test waits for one to be under way).
  uint64_t executionsSeen() const { return executions_.load(); }
  // Wraps each device the plan covers.
  std::vector<hal::SharedDevice> wrap(std::vector<hal::SharedDevice> devices);

 private:
  bool released();
  void hangInTheKernel();

  const FaultPlan plan_;
  std::atomic<uint64_t> executions_{0};
  std::mutex mutex_;
  std::condition_variable released_;
  bool releasing_ = false;
  // A pipe that kernel hangs' vfork children read from; written to when released. Made at the
  // first such hang.
  int wakeKernelHangs_[2] = {-1, -1};
};

}  // namespace nnremote::middleware

#endif  // NNREMOTE_MIDDLEWARE_FAULT_INJECTION_H_
