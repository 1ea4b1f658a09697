// A model prepared for the simulated NPU.
#ifndef NNREMOTE_DRIVERS_SIM_SIM_PREPARED_MODEL_H_
#define NNREMOTE_DRIVERS_SIM_SIM_PREPARED_MODEL_H_

#include <memory>
#include <optional>
#include <string>

#include "drivers/sim/graph_executor.h"
#include "drivers/sim/npu_config.h"
#include "drivers/sim/operation_context.h"
#include "hal/execution_adapters.h"

namespace nnremote::sim {

class SimBuffer;

// Executes on the caller's thread; reusable, burst and fenced executions are synchronous
// executions (hal::SyncExecutionPreparedModel), as there is no transport to amortize in process.
class SimPreparedModel final : public hal::SyncExecutionPreparedModel {
 public:
  // `model` has passed validation and every operation is supported; POINTER data has been
  // copied into the model's own storage.
  // Executions compute as fast as the host can and report the simulated device time; a
  // scheduler in front of the device (middleware/) makes them wait for the device and its clock.
  SimPreparedModel(hal::Model model, NpuConfig npu);

  hal::Result<hal::ExecutionOutcome> execute(
      const hal::Request& request, hal::MeasureTiming measure,
      const hal::OptionalTimePoint& deadline,
      const hal::OptionalDuration& loopTimeoutDuration) const override;

  const hal::Model& model() const { return model_; }
  const hal::Model* getModel() const override { return &model_; }

 protected:
  hal::Status validateReusableRequest(const hal::Request& request) const override;

 private:
  ExecutionOptions executionOptions(bool withTiming, const hal::OptionalDuration& loopTimeoutDuration) const;
  // Replaces device-buffer pools with the buffers' memory; lists the buffers outputs write.
  // Nothing (no copy of the request) when it names no device buffer.
  hal::Result<std::optional<hal::Request>> resolveDeviceBuffers(
      const hal::Request& request, std::vector<std::pair<const SimBuffer*, size_t>>* written) const;

 private:
  hal::Model model_;
  NpuConfig npu_;
  std::string deviceName_;  // as profiles name it, made once
  uint64_t constantBytes_;
  // One per operation of every subgraph, kept across executions (kernels' packed weights).
  std::unique_ptr<OperationState[]> operationStates_;
  const std::vector<bool> settledOperations_;  // operations executions need not check again
};

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_SIM_PREPARED_MODEL_H_
