#include "accelerator_sim/sim_prepared_model.h"

#include <chrono>

#include "accelerator_sim/graph_executor.h"
#include "hal/validation.h"

namespace nnremote::sim {
namespace {

using hal::ErrorStatus;
using hal::makeError;

// A reusable execution: the request is validated once, computed many times.
class SimExecution final : public hal::IExecution {
 public:
  SimExecution(std::shared_ptr<const SimPreparedModel> model, hal::Request request,
               hal::MeasureTiming measure, hal::OptionalDuration loopTimeout)
      : model_(std::move(model)), request_(std::move(request)), measure_(measure),
        loopTimeout_(loopTimeout) {}

  hal::Result<hal::ExecutionOutcome> compute(const hal::OptionalTimePoint& deadline) const override {
    return model_->execute(request_, measure_, deadline, loopTimeout_);
  }

  hal::Result<std::pair<hal::SyncFence, hal::ExecuteFencedInfoCallback>> computeFenced(
      const std::vector<hal::SyncFence>& waitFor, const hal::OptionalTimePoint& deadline,
      const hal::OptionalDuration& timeoutDurationAfterFence) const override {
    return model_->executeFenced(request_, waitFor, measure_, deadline, loopTimeout_,
                                 timeoutDurationAfterFence);
  }

 private:
  std::shared_ptr<const SimPreparedModel> model_;
  hal::Request request_;
  hal::MeasureTiming measure_;
  hal::OptionalDuration loopTimeout_;
};

// In process there is no transport to amortize, so a burst executes directly; cacheMemory
// just keeps the memory alive while the hold is kept.
class SimBurst final : public hal::IBurst {
 public:
  explicit SimBurst(std::shared_ptr<const SimPreparedModel> model) : model_(std::move(model)) {}

  OptionalCacheHold cacheMemory(const hal::SharedMemory& memory) const override { return memory; }

  hal::Result<hal::ExecutionOutcome> execute(const hal::Request& request, hal::MeasureTiming measure,
                                             const hal::OptionalTimePoint& deadline,
                                             const hal::OptionalDuration& loopTimeout) const override {
    return model_->execute(request, measure, deadline, loopTimeout);
  }

 private:
  std::shared_ptr<const SimPreparedModel> model_;
};

}  // namespace

SimPreparedModel::SimPreparedModel(hal::Model model, NpuConfig npu)
    : model_(std::move(model)), npu_(std::move(npu)) {}

hal::Result<hal::ExecutionOutcome> SimPreparedModel::execute(
    const hal::Request& request, hal::MeasureTiming measure, const hal::OptionalTimePoint& deadline,
    const hal::OptionalDuration& /*loopTimeoutDuration: no control flow yet*/) const {
  const auto start = hal::Clock::now();
  if (deadline.has_value() && start >= *deadline) {
    return makeError(ErrorStatus::MISSED_DEADLINE_TRANSIENT)
           << "the deadline passed before the execution started";
  }
  NN_RETURN_IF_ERROR(hal::validateRequestForModel(request, model_));
  NN_ASSIGN_OR_RETURN(ExecutionReport report, executeGraph(model_, request, npu_));
  hal::ExecutionOutcome outcome;
  outcome.outputShapes = std::move(report.outputShapes);
  if (measure == hal::MeasureTiming::YES) {
    const auto onDevice = std::chrono::nanoseconds(
        static_cast<int64_t>(static_cast<double>(report.deviceCycles) * 1e9 / npu_.clockHz));
    // The driver's own time is the host wall time; the device time is simulated, so the
    // driver time covers both (the HAL requires timeInDriver >= timeOnDevice).
    const auto hostWall = std::chrono::duration_cast<hal::Duration>(hal::Clock::now() - start);
    outcome.timing.timeOnDevice = onDevice;
    outcome.timing.timeInDriver = onDevice + hostWall;
  }
  return outcome;
}

hal::Result<std::pair<hal::SyncFence, hal::ExecuteFencedInfoCallback>>
SimPreparedModel::executeFenced(const hal::Request& request,
                                const std::vector<hal::SyncFence>& waitFor,
                                hal::MeasureTiming measure, const hal::OptionalTimePoint& deadline,
                                const hal::OptionalDuration& loopTimeoutDuration,
                                const hal::OptionalDuration& timeoutDurationAfterFence) const {
  const auto called = hal::Clock::now();
  for (size_t i = 0; i < waitFor.size(); ++i) {
    hal::OptionalDuration remaining;
    if (deadline.has_value()) {
      remaining = std::chrono::duration_cast<hal::Duration>(*deadline - hal::Clock::now());
    }
    const auto state = waitFor[i].wait(remaining);
    if (state == hal::SyncFence::State::ACTIVE) {
      return makeError(ErrorStatus::MISSED_DEADLINE_TRANSIENT)
             << "waitFor[" << i << "] did not signal before the deadline";
    }
    if (state == hal::SyncFence::State::ERROR) {
      return makeError(ErrorStatus::GENERAL_FAILURE) << "waitFor[" << i << "] signaled an error";
    }
  }
  const auto launched = hal::Clock::now();
  hal::OptionalTimePoint executionDeadline = deadline;
  if (timeoutDurationAfterFence.has_value()) {
    const auto afterFence = launched + *timeoutDurationAfterFence;
    if (!executionDeadline.has_value() || afterFence < *executionDeadline) {
      executionDeadline = afterFence;
    }
  }
  NN_ASSIGN_OR_RETURN(hal::ExecutionOutcome outcome,
                      execute(request, measure, executionDeadline, loopTimeoutDuration));
  hal::Timing launchedTiming = outcome.timing;
  hal::Timing fencedTiming = outcome.timing;
  if (measure == hal::MeasureTiming::YES) {
    fencedTiming.timeInDriver = *outcome.timing.timeInDriver + (launched - called);
  }
  hal::ExecuteFencedInfoCallback info = [launchedTiming, fencedTiming]() {
    return hal::Result<std::pair<hal::Timing, hal::Timing>>(std::make_pair(launchedTiming, fencedTiming));
  };
  return std::make_pair(hal::SyncFence::createAsSignaled(), std::move(info));
}

hal::Result<hal::SharedExecution> SimPreparedModel::createReusableExecution(
    const hal::Request& request, hal::MeasureTiming measure,
    const hal::OptionalDuration& loopTimeoutDuration) const {
  NN_RETURN_IF_ERROR(hal::validateRequestForModel(request, model_));
  return hal::SharedExecution(
      std::make_shared<SimExecution>(shared_from_this(), request, measure, loopTimeoutDuration));
}

hal::Result<hal::SharedBurst> SimPreparedModel::configureExecutionBurst() const {
  return hal::SharedBurst(std::make_shared<SimBurst>(shared_from_this()));
}

}  // namespace nnremote::sim
