#include "drivers/armnn/armnn_prepared_model.h"

#include <chrono>
#include <string>

#include "hal/operand_types.h"

namespace nnremote::armnn {
namespace {

// The bytes a request argument names, checked to hold `bytes`.
hal::Result<uint8_t*> argumentData(const hal::Request& request, const hal::Request::Argument& argument, size_t bytes,
                                   const std::string& where) {
  if (argument.lifetime == hal::Request::Argument::LifeTime::POINTER) {
    return static_cast<uint8_t*>(const_cast<void*>(argument.location.pointer));
  }
  if (argument.lifetime != hal::Request::Argument::LifeTime::POOL) {
    return hal::invalidArgument() << where << " has no value; Arm NN needs every input and output";
  }
  const auto* memory = std::get_if<hal::SharedMemory>(&request.pools[argument.location.poolIndex]);
  if (memory == nullptr || *memory == nullptr) {
    return hal::invalidArgument() << where << " is in a device buffer, which this device does not allocate";
  }
  if (argument.location.length < bytes ||
      size_t(argument.location.offset) + argument.location.length > (*memory)->size()) {
    return hal::invalidArgument() << where << " is " << argument.location.length << " bytes, not " << bytes;
  }
  return (*memory)->data() + argument.location.offset;
}

}  // namespace

ArmnnPreparedModel::ArmnnPreparedModel(std::shared_ptr<::armnn::IRuntime> runtime, ::armnn::NetworkId network,
                                       hal::Model model, std::vector<size_t> requestInputOfBinding)
    : runtime_(std::move(runtime)),
      network_(network),
      model_(std::move(model)),
      requestInputOfBinding_(std::move(requestInputOfBinding)) {}

ArmnnPreparedModel::~ArmnnPreparedModel() { runtime_->UnloadNetwork(network_); }

hal::Result<hal::ExecutionOutcome> ArmnnPreparedModel::execute(const hal::Request& request, hal::MeasureTiming measure,
                                                              const hal::OptionalTimePoint& /*deadline*/,
                                                              const hal::OptionalDuration& /*loopTimeoutDuration*/) const {
  const auto started = std::chrono::steady_clock::now();
  const auto& graph = model_.main;
  if (request.inputs.size() != graph.inputIndexes.size() || request.outputs.size() != graph.outputIndexes.size()) {
    return hal::invalidArgument() << "the request has " << request.inputs.size() << " inputs and "
                                  << request.outputs.size() << " outputs; the model " << graph.inputIndexes.size()
                                  << " and " << graph.outputIndexes.size();
  }
  ::armnn::InputTensors inputs;
  for (size_t binding = 0; binding < requestInputOfBinding_.size(); ++binding) {
    const size_t i = requestInputOfBinding_[binding];
    const auto id = static_cast<::armnn::LayerBindingId>(binding);
    const ::armnn::TensorInfo info = runtime_->GetInputTensorInfo(network_, id);
    NN_ASSIGN_OR_RETURN(uint8_t * data, argumentData(request, request.inputs[i], info.GetNumBytes(),
                                                     "request.inputs[" + std::to_string(i) + "]"));
    inputs.emplace_back(id, ::armnn::ConstTensor(info, data));
  }
  ::armnn::OutputTensors outputs;
  hal::ExecutionOutcome outcome;
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    const ::armnn::TensorInfo info = runtime_->GetOutputTensorInfo(network_, static_cast<::armnn::LayerBindingId>(i));
    NN_ASSIGN_OR_RETURN(uint8_t * data, argumentData(request, request.outputs[i], info.GetNumBytes(),
                                                     "request.outputs[" + std::to_string(i) + "]"));
    outputs.emplace_back(static_cast<::armnn::LayerBindingId>(i), ::armnn::Tensor(info, data));
    outcome.outputShapes.push_back({graph.operands[graph.outputIndexes[i]].dimensions, true});
  }
  ::armnn::Status status;
  std::chrono::steady_clock::duration onDevice;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto enqueued = std::chrono::steady_clock::now();
    status = runtime_->EnqueueWorkload(network_, inputs, outputs);
    onDevice = std::chrono::steady_clock::now() - enqueued;
  }
  if (status != ::armnn::Status::Success) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "Arm NN failed to run the workload";
  }
  if (measure == hal::MeasureTiming::YES) {
    outcome.timing.timeOnDevice = std::chrono::duration_cast<hal::Duration>(onDevice);
    outcome.timing.timeInDriver = std::chrono::duration_cast<hal::Duration>(std::chrono::steady_clock::now() - started);
  }
  return outcome;
}

}  // namespace nnremote::armnn
