// A model compiled for one device.
#ifndef NNREMOTE_HAL_I_PREPARED_MODEL_H_
#define NNREMOTE_HAL_I_PREPARED_MODEL_H_

#include <vector>

#include "hal/i_burst.h"
#include "hal/i_execution.h"
#include "hal/sync_fence.h"
#include "hal/types.h"

namespace nnremote::hal {

class IPreparedModel {
 public:
  virtual ~IPreparedModel() = default;

  // Runs `request` to completion. On OUTPUT_INSUFFICIENT_SIZE the error carries the shapes the
  // outputs need.
  virtual Result<ExecutionOutcome> execute(const Request& request, MeasureTiming measure,
                                           const OptionalTimePoint& deadline,
                                           const OptionalDuration& loopTimeoutDuration) const = 0;

  // Starts `request` once every fence in `waitFor` has signaled; returns a fence that signals
  // when the execution is done, and a callback for its timing.
  virtual Result<std::pair<SyncFence, ExecuteFencedInfoCallback>> executeFenced(
      const Request& request, const std::vector<SyncFence>& waitFor, MeasureTiming measure,
      const OptionalTimePoint& deadline, const OptionalDuration& loopTimeoutDuration,
      const OptionalDuration& timeoutDurationAfterFence) const = 0;

  virtual Result<SharedExecution> createReusableExecution(
      const Request& request, MeasureTiming measure,
      const OptionalDuration& loopTimeoutDuration) const = 0;

  virtual Result<SharedBurst> configureExecutionBurst() const = 0;

  // The model this was prepared from, if the device keeps it; valid while this object lives.
  // A server needs it for a model prepared from cache, which no client sent, to check requests
  // and buffer roles before they reach the device. Decorators forward it.
  virtual const Model* getModel() const { return nullptr; }
};

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_I_PREPARED_MODEL_H_
