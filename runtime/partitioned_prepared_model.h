// A model prepared as partition steps on several devices (partitioning.h), run as one prepared
// model: each execution runs the steps in order, the tensors that cross between them in shared
// memory of the execution's own. Every executor (fenced, reusable, burst) comes from the sync
// execution, as for any SyncExecutionPreparedModel. A step that fails on its device runs again
// alone on the CPU when the compilation may fall back (cpu_fallback.h), and the next step runs on
// its own device as before.
#ifndef NNREMOTE_RUNTIME_PARTITIONED_PREPARED_MODEL_H_
#define NNREMOTE_RUNTIME_PARTITIONED_PREPARED_MODEL_H_

#include <memory>
#include <string>
#include <vector>

#include "hal/execution_adapters.h"
#include "runtime/cpu_fallback.h"
#include "runtime/partitioning.h"

namespace nnremote::runtime {

struct PreparedStep {
  PartitionStep step;
  hal::SharedPreparedModel prepared;
  std::string deviceName;
};

class PartitionedPreparedModel final : public hal::SyncExecutionPreparedModel {
 public:
  PartitionedPreparedModel(hal::Model model, std::vector<PreparedStep> steps,
                           std::shared_ptr<const CpuFallback> cpuFallback)
      : model_(std::move(model)), steps_(std::move(steps)), cpuFallback_(std::move(cpuFallback)) {}

  // Timing is not reported: the steps run on different devices (as the NDK allows, a
  // compilation for more than one device does not measure).
  hal::Result<hal::ExecutionOutcome> execute(const hal::Request& request, hal::MeasureTiming measure,
                                             const hal::OptionalTimePoint& deadline,
                                             const hal::OptionalDuration& loopTimeoutDuration) const override;
  const hal::Model* getModel() const override { return &model_; }

  const std::vector<PreparedStep>& steps() const { return steps_; }

 private:
  const hal::Model model_;  // the whole model: what requests are checked against
  const std::vector<PreparedStep> steps_;
  const std::shared_ptr<const CpuFallback> cpuFallback_;
};

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_PARTITIONED_PREPARED_MODEL_H_
