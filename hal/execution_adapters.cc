#include "hal/execution_adapters.h"

#include <algorithm>

namespace nnremote::hal {
namespace {

class ExecutionFromPreparedModel final : public IExecution {
 public:
  ExecutionFromPreparedModel(SharedPreparedModel model, Request request, MeasureTiming measure,
                             OptionalDuration loopTimeout)
      : model_(std::move(model)), request_(std::move(request)), measure_(measure),
        loopTimeout_(loopTimeout) {}

  Result<ExecutionOutcome> compute(const OptionalTimePoint& deadline) const override {
    return model_->execute(request_, measure_, deadline, loopTimeout_);
  }

  Result<std::pair<SyncFence, ExecuteFencedInfoCallback>> computeFenced(
      const std::vector<SyncFence>& waitFor, const OptionalTimePoint& deadline,
      const OptionalDuration& timeoutDurationAfterFence) const override {
    return model_->executeFenced(request_, waitFor, measure_, deadline, loopTimeout_,
                                 timeoutDurationAfterFence);
  }

 private:
  SharedPreparedModel model_;
  Request request_;
  MeasureTiming measure_;
  OptionalDuration loopTimeout_;
};

class BurstFromPreparedModel final : public IBurst {
 public:
  explicit BurstFromPreparedModel(SharedPreparedModel model) : model_(std::move(model)) {}

  OptionalCacheHold cacheMemory(const SharedMemory& memory) const override { return memory; }

  Result<ExecutionOutcome> execute(const Request& request, MeasureTiming measure,
                                   const OptionalTimePoint& deadline,
                                   const OptionalDuration& loopTimeout) const override {
    return model_->execute(request, measure, deadline, loopTimeout);
  }

 private:
  SharedPreparedModel model_;
};

}  // namespace

SharedExecution createExecutionFromPreparedModel(SharedPreparedModel preparedModel, Request request,
                                                 MeasureTiming measure,
                                                 OptionalDuration loopTimeoutDuration) {
  return std::make_shared<ExecutionFromPreparedModel>(std::move(preparedModel), std::move(request),
                                                      measure, loopTimeoutDuration);
}

SharedBurst createBurstFromPreparedModel(SharedPreparedModel preparedModel) {
  return std::make_shared<BurstFromPreparedModel>(std::move(preparedModel));
}

Result<std::pair<SyncFence, ExecuteFencedInfoCallback>> executeFencedBySyncExecution(
    const IPreparedModel& preparedModel, const Request& request,
    const std::vector<SyncFence>& waitFor, MeasureTiming measure, const OptionalTimePoint& deadline,
    const OptionalDuration& loopTimeoutDuration, const OptionalDuration& timeoutDurationAfterFence) {
  const auto called = Clock::now();
  for (size_t i = 0; i < waitFor.size(); ++i) {
    OptionalDuration remaining;
    if (deadline.has_value()) {
      remaining = timeUntil(*deadline);
    }
    const auto state = waitFor[i].wait(remaining);
    if (state == SyncFence::State::ACTIVE) {
      return makeError(ErrorStatus::MISSED_DEADLINE_TRANSIENT)
             << "waitFor[" << i << "] did not signal before the deadline";
    }
    if (state == SyncFence::State::ERROR) {
      return makeError(ErrorStatus::GENERAL_FAILURE) << "waitFor[" << i << "] signaled an error";
    }
  }
  const auto launched = Clock::now();
  OptionalTimePoint executionDeadline = deadline;
  if (timeoutDurationAfterFence.has_value()) {
    const auto afterFence = launched + std::min(*timeoutDurationAfterFence, kLongestDuration);
    if (!executionDeadline.has_value() || afterFence < *executionDeadline) {
      executionDeadline = afterFence;
    }
  }
  NN_ASSIGN_OR_RETURN(ExecutionOutcome outcome, preparedModel.execute(request, measure,
                                                                      executionDeadline,
                                                                      loopTimeoutDuration));
  // timingFenced counts from when the fences were done (the execution's own timing);
  // timingLaunched from the call, so its time in the driver also counts the wait for them.
  const Timing fencedTiming = outcome.timing;
  Timing launchedTiming = outcome.timing;
  if (launchedTiming.timeInDriver.has_value()) {
    *launchedTiming.timeInDriver += std::chrono::duration_cast<Duration>(launched - called);
  }
  ExecuteFencedInfoCallback info = [launchedTiming, fencedTiming]() {
    return Result<std::pair<Timing, Timing>>(std::make_pair(launchedTiming, fencedTiming));
  };
  return std::make_pair(SyncFence::createAsSignaled(), std::move(info));
}

std::future<Result<ExecutionOutcome>> executeAsync(
    SharedPreparedModel preparedModel, Request request, MeasureTiming measure,
    OptionalTimePoint deadline, OptionalDuration loopTimeoutDuration,
    std::function<void(const Result<ExecutionOutcome>&)> onDone) {
  return std::async(std::launch::async, [preparedModel = std::move(preparedModel),
                                         request = std::move(request), measure, deadline,
                                         loopTimeoutDuration, onDone = std::move(onDone)]() {
    Result<ExecutionOutcome> result =
        preparedModel->execute(request, measure, deadline, loopTimeoutDuration);
    if (onDone) onDone(result);
    return result;
  });
}

}  // namespace nnremote::hal
