#include "drivers/sim/sim_prepared_model.h"

#include <chrono>

#include "drivers/sim/graph_executor.h"
#include "drivers/sim/sim_buffer.h"
#include "hal/validation.h"

namespace nnremote::sim {
namespace {

using hal::ErrorStatus;
using hal::makeError;

}  // namespace

SimPreparedModel::SimPreparedModel(hal::Model model, NpuConfig npu)
    : model_(std::move(model)),
      npu_(std::move(npu)),
      deviceName_(deviceName(npu_)),
      constantBytes_(constantBytes(model_)),
      operationStates_(new OperationState[operationStateCount(model_)]),
      settledOperations_(operationsSettledAtPreparation(model_)) {}

ExecutionOptions SimPreparedModel::executionOptions(bool withTiming,
                                                    const hal::OptionalDuration& loopTimeoutDuration) const {
  ExecutionOptions options;
  options.withTiming = withTiming;
  // Without operation states the kernels have nowhere to keep an XNNPACK operator, so they
  // run their own loops.
  options.states = npu_.reference_kernels() ? nullptr : operationStates_.get();
  options.settled = &settledOperations_;
  if (loopTimeoutDuration.has_value()) options.loopTimeout = std::min(*loopTimeoutDuration, kMaxLoopTimeout);
  options.deviceMemoryBytes = deviceMemoryBytes(npu_);
  options.residentBytes = constantBytes_;
  return options;
}

hal::Result<hal::ExecutionOutcome> SimPreparedModel::execute(
    const hal::Request& request, hal::MeasureTiming measure, const hal::OptionalTimePoint& deadline,
    const hal::OptionalDuration& loopTimeoutDuration) const {
  const auto start = hal::Clock::now();
  if (deadline.has_value() && start >= *deadline) {
    return makeError(ErrorStatus::MISSED_DEADLINE_PERSISTENT)
           << "the deadline had already passed when the execution arrived";
  }
  NN_RETURN_IF_ERROR(hal::validateRequestForModel(request, model_));
  std::vector<std::pair<const SimBuffer*, size_t>> writtenBuffers;  // (buffer, output index)
  NN_ASSIGN_OR_RETURN(const std::optional<hal::Request> resolved, resolveDeviceBuffers(request, &writtenBuffers));
  const bool timed = measure == hal::MeasureTiming::YES;
  NN_ASSIGN_OR_RETURN(ExecutionReport report, executeGraph(model_, resolved ? *resolved : request, npu_,
                                                           executionOptions(timed, loopTimeoutDuration)));
  for (const auto& [buffer, output] : writtenBuffers) {
    buffer->markInitialized(report.outputShapes[output].dimensions);
  }
  auto cyclesToTime = [&](uint64_t cycles) { return hal::cyclesToDuration(static_cast<double>(cycles), clockHz(npu_)); };
  // Operations the host's CPU ran (NpuConfig.host_cpu) take time in the driver, not on the device.
  const auto onDevice = cyclesToTime(report.profile.totalCycles - report.profile.hostCpuCycles);
  const auto onHostCpu = cyclesToTime(report.profile.hostCpuCycles);
  const uint64_t hostWall =
      std::chrono::duration_cast<std::chrono::nanoseconds>(hal::Clock::now() - start).count();

  hal::ExecutionOutcome outcome;
  outcome.outputShapes = std::move(report.outputShapes);
  if (timed) {
    // Driver work is what the host did besides simulating the NPU's kernels: validation,
    // bookkeeping, copying outputs.
    const uint64_t driverWork =
        hostWall > report.kernelNanoseconds ? hostWall - report.kernelNanoseconds : 0;
    outcome.timing.timeOnDevice = onDevice;
    outcome.timing.timeInDriver = onDevice + onHostCpu + std::chrono::nanoseconds(driverWork);
    report.profile.deviceName = deviceName_;
    report.profile.clockHz = clockHz(npu_);
    report.profile.hostWallNanoseconds = hostWall;
    outcome.profile = std::make_shared<const hal::ExecutionProfile>(std::move(report.profile));
  }
  return outcome;
}

hal::Result<std::optional<hal::Request>> SimPreparedModel::resolveDeviceBuffers(
    const hal::Request& request, std::vector<std::pair<const SimBuffer*, size_t>>* written) const {
  bool any = false;
  for (const auto& pool : request.pools) any = any || !std::holds_alternative<hal::SharedMemory>(pool);
  if (!any) return std::optional<hal::Request>();
  hal::Request resolved = request;
  auto resolveArgument = [&](hal::Request::Argument& argument, size_t index, bool isInput) -> hal::Status {
    if (argument.lifetime != hal::Request::Argument::LifeTime::POOL) return {};
    const auto& pool = request.pools[argument.location.poolIndex];
    if (std::holds_alternative<hal::SharedMemory>(pool)) return {};
    const std::string where = std::string(isInput ? "request.inputs[" : "request.outputs[") + std::to_string(index) + "]";
    const auto* shared = std::get_if<hal::SharedBuffer>(&pool);
    const auto* buffer = shared ? dynamic_cast<const SimBuffer*>(shared->get()) : nullptr;
    if (buffer == nullptr) {
      return makeError(ErrorStatus::INVALID_ARGUMENT)
             << where << " names pools[" << argument.location.poolIndex
             << "], which is not a buffer of this device";
    }
    if (!buffer->hasRole(this, static_cast<uint32_t>(index), isInput)) {
      return makeError(ErrorStatus::INVALID_ARGUMENT)
             << where << " uses device buffer " << static_cast<uint32_t>(buffer->getToken())
             << ", which was not allocated with a role for this " << (isInput ? "input" : "output");
    }
    NN_ASSIGN_OR_RETURN(hal::SharedMemory memory, buffer->memoryFor(argument.dimensions, isInput));
    // Each buffer argument gets a pool of its own: the buffer's memory, used whole.
    argument.location = {nullptr, static_cast<uint32_t>(resolved.pools.size()), 0,
                         static_cast<uint32_t>(memory->size()), 0};
    resolved.pools.push_back(memory);
    if (!isInput) written->emplace_back(buffer, index);
    return {};
  };
  for (size_t i = 0; i < resolved.inputs.size(); ++i) NN_RETURN_IF_ERROR(resolveArgument(resolved.inputs[i], i, true));
  for (size_t i = 0; i < resolved.outputs.size(); ++i) NN_RETURN_IF_ERROR(resolveArgument(resolved.outputs[i], i, false));
  // The device-buffer pools themselves are no longer referenced; keep indexes stable with
  // empty memories in their place.
  for (auto& pool : resolved.pools) {
    if (!std::holds_alternative<hal::SharedMemory>(pool)) pool = *hal::createHeapMemory(0);
  }
  return std::optional<hal::Request>(std::move(resolved));
}

hal::Status SimPreparedModel::validateReusableRequest(const hal::Request& request) const {
  return hal::validateRequestForModel(request, model_);
}

}  // namespace nnremote::sim
