#include "accelerator_sim/sim_prepared_model.h"

#include <chrono>

#include "accelerator_sim/graph_executor.h"
#include "hal/validation.h"

namespace nnremote::sim {
namespace {

using hal::ErrorStatus;
using hal::makeError;

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

hal::Status SimPreparedModel::validateReusableRequest(const hal::Request& request) const {
  return hal::validateRequestForModel(request, model_);
}

}  // namespace nnremote::sim
