// Prices an operation's work on a configured NPU: cycles on the array or vector unit, DRAM
// stalls, utilization, and bytes moved per memory level.
#ifndef NNREMOTE_DRIVERS_SIM_TIMING_OPERATION_TIMING_H_
#define NNREMOTE_DRIVERS_SIM_TIMING_OPERATION_TIMING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "drivers/sim/npu_config.pb.h"
#include "drivers/sim/timing/operation_work.h"
#include "hal/execution_profile.h"
#include "hal/types.h"

namespace nnremote::sim {

// Prices `work` for operation `type` on `npu`. Array work and vector work of one operation run
// one after the other; DRAM transfers overlap compute (double buffering) except the first
// tile's fill and the DRAM latency. An operation npu.host_cpu runs is priced on that CPU
// instead (ProfileUnit::HOST).
hal::OperationProfile estimateOperation(const OperationWork& work, hal::OperationType type,
                                  const NpuConfig& npu);

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_TIMING_OPERATION_TIMING_H_
