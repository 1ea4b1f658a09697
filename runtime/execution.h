// ANeuralNetworksExecution: one request on a finished compilation, with the NDK's state machine
// (arguments are set before the first computation; a computation runs once, or again and again
// once setReusable). compute, startCompute (with an Event), burstCompute and
// startComputeWithDependencies all build the request here and run it on the prepared model, and
// on nnapi-reference when that failed and the compilation falls back to the CPU.
#ifndef NNREMOTE_RUNTIME_EXECUTION_H_
#define NNREMOTE_RUNTIME_EXECUTION_H_

#include <android/NeuralNetworks.h>

#include <atomic>
#include <memory>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "hal/i_burst.h"
#include "hal/i_prepared_model.h"
#include "hal/sync_fence.h"
#include "runtime/compilation.h"
#include "runtime/memory.h"

namespace nnremote::runtime {

// The NDK's loop timeouts: 2 s unless the program says, and never more than 15 s.
inline constexpr uint64_t kDefaultLoopTimeoutNs = 2'000'000'000;
inline constexpr uint64_t kMaximumLoopTimeoutNs = 15'000'000'000;

// Held by shared_ptr: a started computation keeps its execution (and that its compilation) alive
// after the program frees them, as the NDK allows.
class Execution : public std::enable_shared_from_this<Execution> {
 public:
  explicit Execution(std::shared_ptr<const Compilation> compilation);

  // Arguments: `memory` null means the program's own `buffer`. Result codes as the NDK's.
  int setArgument(bool isInput, int32_t index, const ANeuralNetworksOperandType* type, void* buffer,
                  const Memory* memory, size_t offset, size_t length);
  int setMeasureTiming(bool measure);
  int setTimeout(uint64_t nanoseconds);
  int setLoopTimeout(uint64_t nanoseconds);
  int setReusable(bool reusable);
  int enableInputAndOutputPadding(bool enable);

  // Runs the execution now, on `burst` when given; the result code.
  int compute(const hal::IBurst* burst = nullptr);
  // Starts it: `done` is signaled when it finishes (with an error if it failed); `result()` then
  // holds the result code. `waitFor` are fences the execution waits on first. `ranAtOnce` says
  // it finished before this returned, on the CPU after its device refused it: then, as on
  // Android, no sync fence stands for it.
  int start(const std::vector<hal::SyncFence>& waitFor, uint64_t durationAfterFence, hal::SyncFence* done,
            bool* ranAtOnce);
  int result() const { return lastResult_.load(); }
  const std::shared_ptr<const Compilation>& compilation() const { return compilation_; }

  int getOutputOperandRank(int32_t index, uint32_t* rank) const;
  int getOutputOperandDimensions(int32_t index, uint32_t* dimensions) const;
  int getDuration(int32_t durationCode, uint64_t* duration) const;

 private:
  struct Argument {
    bool set = false;
    hal::Request::Argument argument;
    hal::Request::MemoryPool pool;  // the program's buffer, or an ANeuralNetworksMemory's memory or buffer
    DescribedUse* use = nullptr;    // for a memory from a descriptor: what it holds
  };
  enum class State { PREPARATION, COMPUTATION, COMPLETED };

  int setDescribedArgument(const char* function, bool isInput, int32_t index, const ANeuralNetworksOperandType* type,
                           const Memory& memory, size_t offset, size_t length, std::vector<Argument>& arguments);
  // Moves to COMPUTATION if the state allows a computation now; the result code otherwise. An
  // input memory that holds no data (or other dimensions) completes it with OP_FAILED, as
  // Android's runtime does: the computation was started and failed. A fenced one (startComputeWithDependencies) also needs every output's shape fully known, and
  // a compilation for exactly one device if it has a duration after the fences (as the NDK says).
  int beginComputation(const char* function, bool fenced = false, uint64_t durationAfterFence = 0);
  // What a computation hands the device: the request and the execution's settings, with the
  // deadline counted from now.
  struct Call {
    hal::Request request;
    hal::MeasureTiming measure;
    hal::OptionalTimePoint deadline;
    hal::Duration loopTimeout;
  };
  Call call() const;
  // startComputeWithDependencies' two halves: ask the device, then wait for its fence and record.
  void runFenced(const Call& c, const std::vector<hal::SyncFence>& waitFor, const hal::OptionalDuration& afterFence,
                 const hal::SyncFence& done);
  void finishFenced(const Call& c, const std::vector<hal::SyncFence>& waitFor,
                    const std::pair<hal::SyncFence, hal::ExecuteFencedInfoCallback>& fenced,
                    const hal::SyncFence& done);
  // A computation's outcome, or, when it failed on the devices of a compilation that falls back to
  // the CPU (compilation.h), the outcome of running it again on nnapi-reference, as Android's
  // runtime does for any failure but OUTPUT_INSUFFICIENT_SIZE.
  hal::Result<hal::ExecutionOutcome> withCpuFallback(const Call& c, hal::Result<hal::ExecutionOutcome> outcome) const;
  // The same for a fenced computation that failed: once the fences it waits for have signaled
  // (a failed one fails it).
  hal::Result<hal::ExecutionOutcome> fencedCpuFallback(const Call& c, const std::vector<hal::SyncFence>& waitFor,
                                                       const hal::Error& error) const;
  // Records what a computation gave and returns its result code.
  int finishComputation(const hal::Result<hal::ExecutionOutcome>& outcome, const char* function);
  int finishComputationLocked(const hal::Result<hal::ExecutionOutcome>& outcome, const char* function);

  const std::shared_ptr<const Compilation> compilation_;
  const hal::Model::Subgraph& main_;
  std::vector<Argument> inputs_, outputs_;
  bool measure_ = false;
  bool reusable_ = false;
  bool padding_ = false;
  std::optional<uint64_t> timeoutNanoseconds_;
  std::optional<uint64_t> loopTimeoutNanoseconds_;

  mutable std::mutex mutex_;
  State state_ = State::PREPARATION;
  std::atomic<int> lastResult_{ANEURALNETWORKS_NO_ERROR};
  bool completedWithShapes_ = false;  // NO_ERROR or OUTPUT_INSUFFICIENT_SIZE: the shapes are known
  std::vector<hal::OutputShape> outputShapes_;
  hal::Timing timing_, fencedTiming_;
};

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_EXECUTION_H_
