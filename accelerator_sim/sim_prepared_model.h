// A model prepared for the simulated NPU.
#ifndef NNREMOTE_ACCELERATOR_SIM_SIM_PREPARED_MODEL_H_
#define NNREMOTE_ACCELERATOR_SIM_SIM_PREPARED_MODEL_H_

#include <memory>

#include "accelerator_sim/npu_config.h"
#include "hal/i_prepared_model.h"

namespace nnremote::sim {

class SimPreparedModel final : public hal::IPreparedModel,
                               public std::enable_shared_from_this<SimPreparedModel> {
 public:
  // `model` has passed validation and every operation is supported; POINTER data has been
  // copied into the model's own storage.
  SimPreparedModel(hal::Model model, NpuConfig npu);

  hal::Result<hal::ExecutionOutcome> execute(
      const hal::Request& request, hal::MeasureTiming measure,
      const hal::OptionalTimePoint& deadline,
      const hal::OptionalDuration& loopTimeoutDuration) const override;

  hal::Result<std::pair<hal::SyncFence, hal::ExecuteFencedInfoCallback>> executeFenced(
      const hal::Request& request, const std::vector<hal::SyncFence>& waitFor,
      hal::MeasureTiming measure, const hal::OptionalTimePoint& deadline,
      const hal::OptionalDuration& loopTimeoutDuration,
      const hal::OptionalDuration& timeoutDurationAfterFence) const override;

  hal::Result<hal::SharedExecution> createReusableExecution(
      const hal::Request& request, hal::MeasureTiming measure,
      const hal::OptionalDuration& loopTimeoutDuration) const override;

  hal::Result<hal::SharedBurst> configureExecutionBurst() const override;

  const hal::Model& model() const { return model_; }

 private:
  hal::Model model_;
  NpuConfig npu_;
};

}  // namespace nnremote::sim

#endif  // NNREMOTE_ACCELERATOR_SIM_SIM_PREPARED_MODEL_H_
