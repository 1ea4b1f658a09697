// A burst: a stream of executions of one prepared model with cached memory.
#ifndef NNREMOTE_HAL_I_BURST_H_
#define NNREMOTE_HAL_I_BURST_H_

#include "hal/i_execution.h"
#include "hal/types.h"

namespace nnremote::hal {

class IBurst {
 public:
  // Keeps a memory cached in the burst while held; releasing it lets the burst forget it.
  using OptionalCacheHold = std::shared_ptr<const void>;

  virtual ~IBurst() = default;
  virtual OptionalCacheHold cacheMemory(const SharedMemory& memory) const = 0;
  virtual Result<ExecutionOutcome> execute(const Request& request, MeasureTiming measure,
                                           const OptionalTimePoint& deadline,
                                           const OptionalDuration& loopTimeoutDuration) const = 0;
};

using SharedBurst = std::shared_ptr<const IBurst>;

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_I_BURST_H_
