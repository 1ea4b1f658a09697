#include "accelerator_sim/sim_prepared_model.h"

#include <chrono>
#include <thread>

#include "accelerator_sim/graph_executor.h"
#include "hal/validation.h"

namespace nnremote::sim {
namespace {

using hal::ErrorStatus;
using hal::makeError;

}  // namespace

SimPreparedModel::SimPreparedModel(hal::Model model, NpuConfig npu, bool paceRealtime)
    : model_(std::move(model)), npu_(std::move(npu)), paceRealtime_(paceRealtime) {}

hal::Result<hal::ExecutionOutcome> SimPreparedModel::execute(
    const hal::Request& request, hal::MeasureTiming measure, const hal::OptionalTimePoint& deadline,
    const hal::OptionalDuration& /*loopTimeoutDuration: no control flow yet*/) const {
  const auto start = hal::Clock::now();
  if (deadline.has_value() && start >= *deadline) {
    return makeError(ErrorStatus::MISSED_DEADLINE_TRANSIENT)
           << "the deadline passed before the execution started";
  }
  NN_RETURN_IF_ERROR(hal::validateRequestForModel(request, model_));
  const bool timed = measure == hal::MeasureTiming::YES;
  NN_ASSIGN_OR_RETURN(ExecutionReport report,
                      executeGraph(model_, request, npu_, timed || paceRealtime_));
  const auto onDevice = std::chrono::nanoseconds(static_cast<int64_t>(
      static_cast<double>(report.profile.totalCycles) * 1e9 / clockHz(npu_)));
  const uint64_t hostWall =
      std::chrono::duration_cast<std::chrono::nanoseconds>(hal::Clock::now() - start).count();
  // Pacing stands in for the device; it is neither driver work nor simulation cost.
  if (paceRealtime_) std::this_thread::sleep_until(start + onDevice);

  hal::ExecutionOutcome outcome;
  outcome.outputShapes = std::move(report.outputShapes);
  if (timed) {
    // Driver work is what the host did besides simulating the NPU's kernels: validation,
    // bookkeeping, copying outputs.
    const uint64_t driverWork =
        hostWall > report.kernelNanoseconds ? hostWall - report.kernelNanoseconds : 0;
    outcome.timing.timeOnDevice = onDevice;
    outcome.timing.timeInDriver = onDevice + std::chrono::nanoseconds(driverWork);
    report.profile.deviceName = deviceName(npu_);
    report.profile.clockHz = clockHz(npu_);
    report.profile.hostWallNanoseconds = hostWall;
    outcome.profile = std::make_shared<const hal::ExecutionProfile>(std::move(report.profile));
  }
  return outcome;
}

hal::Status SimPreparedModel::validateReusableRequest(const hal::Request& request) const {
  return hal::validateRequestForModel(request, model_);
}

}  // namespace nnremote::sim
