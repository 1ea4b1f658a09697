// A model loaded into Arm NN's runtime: executes requests by binding their pools' bytes as the
// network's inputs and outputs.
#ifndef NNREMOTE_DRIVERS_ARMNN_ARMNN_PREPARED_MODEL_H_
#define NNREMOTE_DRIVERS_ARMNN_ARMNN_PREPARED_MODEL_H_

#include <armnn/ArmNN.hpp>

#include <memory>
#include <mutex>
#include <vector>

#include "hal/execution_adapters.h"

namespace nnremote::armnn {

class ArmnnPreparedModel final : public hal::SyncExecutionPreparedModel {
 public:
  // `requestInputOfBinding[i]`: which request input feeds network input i.
  ArmnnPreparedModel(std::shared_ptr<::armnn::IRuntime> runtime, ::armnn::NetworkId network, hal::Model model,
                     std::vector<size_t> requestInputOfBinding);
  ~ArmnnPreparedModel() override;

  hal::Result<hal::ExecutionOutcome> execute(const hal::Request& request, hal::MeasureTiming measure,
                                             const hal::OptionalTimePoint& deadline,
                                             const hal::OptionalDuration& loopTimeoutDuration) const override;
  const hal::Model* getModel() const override { return &model_; }

 private:
  const std::shared_ptr<::armnn::IRuntime> runtime_;
  const ::armnn::NetworkId network_;
  const hal::Model model_;
  const std::vector<size_t> requestInputOfBinding_;
  // One workload at a time per loaded network.
  mutable std::mutex mutex_;
};

}  // namespace nnremote::armnn

#endif  // NNREMOTE_DRIVERS_ARMNN_ARMNN_PREPARED_MODEL_H_
