// A reusable execution: one request bound to one prepared model, computed many times.
#ifndef NNREMOTE_HAL_I_EXECUTION_H_
#define NNREMOTE_HAL_I_EXECUTION_H_

#include <functional>
#include <utility>
#include <vector>

#include "hal/execution_profile.h"
#include "hal/sync_fence.h"
#include "hal/types.h"

namespace nnremote::hal {

// Returns timingLaunched and timingFenced, as HAL 1.3's IFencedExecutionCallback: both end when
// the execution's fence signals; timingLaunched starts at the executeFenced call (so its time in
// the driver counts the wait for the fences too), timingFenced when the fences waited for signaled.
using ExecuteFencedInfoCallback = std::function<Result<std::pair<Timing, Timing>>()>;

struct ExecutionOutcome {
  std::vector<OutputShape> outputShapes;
  Timing timing;
  // Set by devices that profile timed executions (MeasureTiming::YES); null otherwise.
  std::shared_ptr<const ExecutionProfile> profile;
};

class IExecution {
 public:
  virtual ~IExecution() = default;
  virtual Result<ExecutionOutcome> compute(const OptionalTimePoint& deadline) const = 0;
  virtual Result<std::pair<SyncFence, ExecuteFencedInfoCallback>> computeFenced(
      const std::vector<SyncFence>& waitFor, const OptionalTimePoint& deadline,
      const OptionalDuration& timeoutDurationAfterFence) const = 0;
};

using SharedExecution = std::shared_ptr<const IExecution>;

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_I_EXECUTION_H_
