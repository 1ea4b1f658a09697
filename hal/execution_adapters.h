// Reusable executions, bursts and fenced executions built on a prepared model's synchronous
// execute. Any IPreparedModel can offer all execution styles through these; a device that has
// something better (a server-side burst, a remote fence) overrides them.
#ifndef NNREMOTE_HAL_EXECUTION_ADAPTERS_H_
#define NNREMOTE_HAL_EXECUTION_ADAPTERS_H_

#include <functional>
#include <future>
#include <memory>
#include <vector>

#include "hal/i_prepared_model.h"

namespace nnremote::hal {

// An IExecution that runs `request` on `preparedModel` each time it is computed.
SharedExecution createExecutionFromPreparedModel(SharedPreparedModel preparedModel, Request request,
                                                 MeasureTiming measure,
                                                 OptionalDuration loopTimeoutDuration);

// An IBurst whose executions call `preparedModel->execute`; cached memory is kept alive while
// its hold is.
SharedBurst createBurstFromPreparedModel(SharedPreparedModel preparedModel);

// Waits for every fence in `waitFor` (failing if one signals an error or the deadline or
// `timeoutDurationAfterFence` passes), then executes synchronously. Returns an already signaled
// fence and the launched/fenced timing.
Result<std::pair<SyncFence, ExecuteFencedInfoCallback>> executeFencedBySyncExecution(
    const IPreparedModel& preparedModel, const Request& request,
    const std::vector<SyncFence>& waitFor, MeasureTiming measure, const OptionalTimePoint& deadline,
    const OptionalDuration& loopTimeoutDuration, const OptionalDuration& timeoutDurationAfterFence);

// Starts `request` on `preparedModel` without blocking the caller: the future holds the result,
// and `onDone` (if set) is called with it on the executing thread, like HAL 1.3's
// IExecutionCallback. The request's memories must stay alive until then (the Request holds
// them).
std::future<Result<ExecutionOutcome>> executeAsync(
    SharedPreparedModel preparedModel, Request request, MeasureTiming measure,
    OptionalTimePoint deadline, OptionalDuration loopTimeoutDuration,
    std::function<void(const Result<ExecutionOutcome>&)> onDone = nullptr);

// Base for prepared models that implement only execute(): offers reusable executions, bursts
// and fenced executions through the adapters above. Must be owned by a std::shared_ptr.
class SyncExecutionPreparedModel : public IPreparedModel,
                                   public std::enable_shared_from_this<SyncExecutionPreparedModel> {
 public:
  Result<std::pair<SyncFence, ExecuteFencedInfoCallback>> executeFenced(
      const Request& request, const std::vector<SyncFence>& waitFor, MeasureTiming measure,
      const OptionalTimePoint& deadline, const OptionalDuration& loopTimeoutDuration,
      const OptionalDuration& timeoutDurationAfterFence) const override {
    return executeFencedBySyncExecution(*this, request, waitFor, measure, deadline,
                                        loopTimeoutDuration, timeoutDurationAfterFence);
  }

  Result<SharedExecution> createReusableExecution(
      const Request& request, MeasureTiming measure,
      const OptionalDuration& loopTimeoutDuration) const override {
    NN_RETURN_IF_ERROR(validateReusableRequest(request));
    return createExecutionFromPreparedModel(shared_from_this(), request, measure,
                                            loopTimeoutDuration);
  }

  Result<SharedBurst> configureExecutionBurst() const override {
    return createBurstFromPreparedModel(shared_from_this());
  }

 protected:
  // Checks a request once, when a reusable execution is created for it.
  virtual Status validateReusableRequest(const Request& /*request*/) const { return {}; }
};

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_EXECUTION_ADAPTERS_H_
