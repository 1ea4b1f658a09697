// Android's CPU fallback (docs/runtime.md): what a compilation made with Compilation_create runs
// on nnapi-reference when its devices fail it. A partition step that fails runs again alone on
// the CPU (AOSP's partial fallback), and the execution goes on with the next step on its device;
// an execution that still fails runs again whole on the CPU (the full fallback).
//
// A device's buffer (a memory from a descriptor) cannot be read there, so each is staged through
// shared memory of its operand's size, read from the device for an input and written back for an
// output, as Android's runtime does with blobs.
#ifndef NNREMOTE_RUNTIME_CPU_FALLBACK_H_
#define NNREMOTE_RUNTIME_CPU_FALLBACK_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hal/i_prepared_model.h"
#include "runtime/devices.h"

namespace nnremote::runtime {

// One compilation's fallback, shared by the compilation (for the full fallback) and its
// partitioned prepared model (for the partial one), so both say it once and count it together.
class CpuFallback {
 public:
  // What `prepared` calls the whole model; a partition step is named by its index.
  static constexpr size_t kWholeModel = SIZE_MAX;

  // `cpu`: nnapi-reference when the compilation may fall back to it; null when it never does.
  explicit CpuFallback(const RuntimeDevice* cpu) : cpu_(cpu) {}

  const RuntimeDevice* cpu() const { return cpu_; }

  // `model` (the whole model, or partition step `part`'s) prepared on the CPU at the first call
  // for `part`; later calls for it give the same. With the defaults, whatever the program chose,
  // as Android's runtime does.
  hal::Result<hal::SharedPreparedModel> prepared(size_t part, const hal::Model& model) const;

  // Says on stderr, the first time this compilation falls back, what failed (`failed`: the
  // function and where it ran) and why: a driver's developer would otherwise never see it. Later
  // ones go to NNREMOTE_VLOG=runtime. `rerun`: what runs on the CPU instead ("it", "the step").
  void report(const std::string& failed, const hal::Error& error, const char* rerun) const;

  // How many executions ran again whole, and how many partition steps alone, on the CPU.
  void countExecution() const { ++executions_; }
  void countStep() const { ++steps_; }
  uint64_t executions() const { return executions_.load(); }
  uint64_t steps() const { return steps_.load(); }

 private:
  const RuntimeDevice* const cpu_;
  mutable std::atomic<bool> reported_{false};
  mutable std::atomic<uint64_t> executions_{0}, steps_{0};
  mutable std::mutex mutex_;
  mutable std::map<size_t, hal::Result<hal::SharedPreparedModel>> prepared_;
};

// The bytes of a tensor of `type` whose shape is `given` completed by `known`; none when it is
// still not fully known (or the two disagree).
std::optional<uint32_t> fullyKnownBytes(hal::OperandType type, const std::vector<uint32_t>& given,
                                        const std::vector<uint32_t>& known);

// The bytes that argument `index` (an input when `isInput`) of a request takes when its pool is
// a device's buffer, from its operand and what the program said of its shape; none when that
// shape is still not fully known.
using StagedBytes = std::function<std::optional<uint32_t>(bool isInput, size_t index, const hal::Request::Argument&)>;

// Runs `request` on `cpu` (a model prepared on nnapi-reference), with each device buffer among
// its pools staged. An output in a device's buffer needs a fully known shape (GENERAL_FAILURE
// otherwise, as on Android).
hal::Result<hal::ExecutionOutcome> executeOnCpu(const hal::IPreparedModel& cpu, hal::Request request,
                                                const StagedBytes& bytesOf, const hal::OptionalDuration& loopTimeout);

// executeOnCpu for a `request` that failed on its device with `failed`, on `cpu` or why it could
// not be prepared. When the CPU fails it too, its status is the answer, as on Android, and the
// message says both failures, the device's first.
hal::Result<hal::ExecutionOutcome> rerunOnCpu(const hal::Result<hal::SharedPreparedModel>& cpu,
                                              const hal::Request& request, const StagedBytes& bytesOf,
                                              const hal::OptionalDuration& loopTimeout, const hal::Error& failed);

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_CPU_FALLBACK_H_
