// A base for prepared-model decorators, the counterpart of ForwardingDevice: every
// IPreparedModel method passes to the wrapped prepared model, so a decorator overrides only what
// it changes (a guard, executions moved onto bursts).
#ifndef NNREMOTE_HAL_FORWARDING_PREPARED_MODEL_H_
#define NNREMOTE_HAL_FORWARDING_PREPARED_MODEL_H_

#include <utility>
#include <vector>

#include "hal/i_prepared_model.h"

namespace nnremote::hal {

class ForwardingPreparedModel : public IPreparedModel {
 public:
  explicit ForwardingPreparedModel(SharedPreparedModel inner) : inner_(std::move(inner)) {}

  // What unwrapPreparedModels (forwarding_device.h) hands back to the inner device.
  const SharedPreparedModel& inner() const { return inner_; }

  Result<ExecutionOutcome> execute(const Request& request, MeasureTiming measure, const OptionalTimePoint& deadline,
                                   const OptionalDuration& loopTimeoutDuration) const override {
    return inner_->execute(request, measure, deadline, loopTimeoutDuration);
  }
  Result<std::pair<SyncFence, ExecuteFencedInfoCallback>> executeFenced(
      const Request& request, const std::vector<SyncFence>& waitFor, MeasureTiming measure,
      const OptionalTimePoint& deadline, const OptionalDuration& loopTimeoutDuration,
      const OptionalDuration& timeoutDurationAfterFence) const override {
    return inner_->executeFenced(request, waitFor, measure, deadline, loopTimeoutDuration, timeoutDurationAfterFence);
  }
  Result<SharedExecution> createReusableExecution(const Request& request, MeasureTiming measure,
                                                  const OptionalDuration& loopTimeoutDuration) const override {
    return inner_->createReusableExecution(request, measure, loopTimeoutDuration);
  }
  Result<SharedBurst> configureExecutionBurst() const override { return inner_->configureExecutionBurst(); }
  const Model* getModel() const override { return inner_->getModel(); }

 private:
  const SharedPreparedModel inner_;
};

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_FORWARDING_PREPARED_MODEL_H_
