// Where an execution's device time went, operation by operation. Optional: a device attaches
// it to timed executions when it can (the simulator always does); nnremote renders it as a trace.
#ifndef NNREMOTE_HAL_EXECUTION_PROFILE_H_
#define NNREMOTE_HAL_EXECUTION_PROFILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hal/types.h"

namespace nnremote::hal {

// Where an operation ran: the NPU's systolic array or vector unit, the host's CPU (operations the
// NPU leaves to it), or elsewhere (control flow, whose branches are profiled as a whole).
enum class ProfileUnit : int32_t { ARRAY = 0, VECTOR = 1, OTHER = 2, HOST = 3 };

inline const char* toString(ProfileUnit unit) {
  switch (unit) {
    case ProfileUnit::ARRAY: return "array";
    case ProfileUnit::VECTOR: return "vector";
    case ProfileUnit::HOST: return "host";
    case ProfileUnit::OTHER: break;
  }
  return "other";
}

struct OperationProfile {
  uint32_t operationIndex = 0;  // in model.main.operations
  OperationType type = OperationType::ADD;
  ProfileUnit unit = ProfileUnit::OTHER;
  uint64_t startCycle = 0;     // operations run back to back
  uint64_t computeCycles = 0;  // with unlimited memory bandwidth
  uint64_t stallCycles = 0;    // waiting for DRAM or the host link
  uint64_t overheadCycles = 0;  // the fixed cost of any operation (NpuConfig.operation_overhead_cycles)
  uint64_t totalCycles = 0;     // computeCycles + stallCycles + overheadCycles
  uint64_t macs = 0;
  // Percentages, for array operations (0 otherwise).
  double mappingEfficiency = 0;   // PEs mapped, averaged over folds
  double computeUtilization = 0;  // MACs / (PEs x compute cycles)
  double overallUtilization = 0;  // MACs / (PEs x total cycles)
  uint64_t dramReadBytes = 0, dramWriteBytes = 0;
  uint64_t sramReadBytes = 0, sramWriteBytes = 0;
  uint64_t dramCycles = 0;  // cycles the DRAM interface is busy for this operation
};

struct ExecutionProfile {
  std::string deviceName;
  double clockHz = 0;
  uint64_t totalCycles = 0;
  // Of totalCycles, those of operations the host's CPU ran (ProfileUnit::HOST, nested ones
  // included), in the device's cycles like every figure here: the part of the execution that is
  // not time on the device.
  uint64_t hostCpuCycles = 0;
  // Host wall time the execution took on the machine that ran it: simulation cost, not device
  // time.
  uint64_t hostWallNanoseconds = 0;
  std::vector<OperationProfile> operations;
};

// `cycles` of a `clockHz` clock as time, at most kLongestDuration: a cost too large for the clock
// (a slow one, a huge model) stays the longest time there is, never wraps to a negative one.
inline Duration cyclesToDuration(double cycles, double clockHz) {
  const double nanoseconds = cycles * 1e9 / clockHz;
  if (!(nanoseconds < static_cast<double>(kLongestDuration.count()))) return kLongestDuration;
  return Duration(static_cast<Duration::rep>(nanoseconds > 0 ? nanoseconds : 0));
}

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_EXECUTION_PROFILE_H_
