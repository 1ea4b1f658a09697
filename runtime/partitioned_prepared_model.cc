#include "runtime/partitioned_prepared_model.h"

#include <algorithm>

#include "hal/memory.h"
#include "hal/operand_types.h"
#include "hal/validation.h"

namespace nnremote::runtime {
namespace {

using Argument = hal::Request::Argument;

// How often a step runs again after a tensor between steps turned out larger than its buffer.
constexpr int kMaxStepAttempts = 3;

// The bytes a tensor between steps is given before its real shape is known: its declared
// dimensions with each unknown one taken as 1, and at least a small page.
uint32_t firstGuessBytes(const hal::Operand& operand) {
  std::vector<uint32_t> dimensions = operand.dimensions;
  for (uint32_t& d : dimensions) d = std::max(d, 1u);
  return std::max<uint32_t>(hal::sizeOfData(operand.type, dimensions).value_or(UINT32_MAX), 64);
}

// One execution's state: where each of the whole model's operands is, as a request argument.
class StepRunner {
 public:
  StepRunner(const hal::Model& model, const hal::Request& request, const CpuFallback& cpuFallback)
      : model_(model), cpuFallback_(cpuFallback), pools_(request.pools), place_(model.main.operands.size()) {
    for (size_t i = 0; i < request.inputs.size(); ++i) place_[model.main.inputIndexes[i]] = request.inputs[i];
    for (size_t i = 0; i < request.outputs.size(); ++i) {
      place_[model.main.outputIndexes[i]] = request.outputs[i];
      isModelOutput_.push_back(model.main.outputIndexes[i]);
    }
    shapes_.resize(model.main.operands.size());
  }

  hal::Status run(const PreparedStep& prepared, size_t index, const hal::OptionalTimePoint& deadline,
                  const hal::OptionalDuration& loopTimeout) {
    const PartitionStep& step = prepared.step;
    for (int attempt = 0;; ++attempt) {
      hal::Request request;
      for (uint32_t input : step.inputs) request.inputs.push_back(place_[input]);
      for (uint32_t output : step.outputs) {
        if (!isModelOutput(output) && !hasBuffer_[output]) {
          NN_RETURN_IF_ERROR(giveBuffer(output, firstGuessBytes(model_.main.operands[output])));
        }
        request.outputs.push_back(place_[output]);
      }
      // Only the pools this step's arguments name: a device's buffer means nothing to another.
      std::vector<uint32_t> renumbered(pools_.size(), UINT32_MAX);
      for (auto* arguments : {&request.inputs, &request.outputs}) {
        for (Argument& argument : *arguments) {
          if (argument.lifetime != Argument::LifeTime::POOL) continue;
          uint32_t& index = renumbered[argument.location.poolIndex];
          if (index == UINT32_MAX) {
            index = static_cast<uint32_t>(request.pools.size());
            request.pools.push_back(pools_[argument.location.poolIndex]);
          }
          argument.location.poolIndex = index;
        }
      }
      auto outcome = prepared.prepared->execute(request, hal::MeasureTiming::NO, deadline, loopTimeout);
      // As Android's runtime: a driver's answer with broken output shapes is the driver's failure.
      if (hal::Status wellFormed = hal::validateExecutionOutcome(outcome, model_.main.operands, step.outputs);
          !wellFormed.ok()) {
        outcome = wellFormed.error();
      }
      if (!outcome.ok() && outcome.error().code != hal::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) {
        outcome = onCpuInstead(prepared, index, request, outcome.error(), loopTimeout);
        if (!outcome.ok() && outcome.error().code != hal::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) return outcome.error();
      }
      if (outcome.ok()) {
        for (size_t k = 0; k < step.outputs.size(); ++k) {
          const uint32_t output = step.outputs[k];
          const hal::Operand& operand = model_.main.operands[output];
          if (!outcome->outputShapes.empty()) {
            shapes_[output] = outcome->outputShapes[k].dimensions;
          } else {  // allowed where the shapes were known: they are the ones given
            shapes_[output] = place_[output].dimensions.empty() ? operand.dimensions : place_[output].dimensions;
            if (hal::hasUnspecifiedDimensions(operand.type, shapes_[output])) {
              return stepError(prepared, index,
                               hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
                                   << "the device answered success with no output shapes, and output " << k
                                   << " (operand " << output << ") has unknown dimensions");
            }
          }
          // Later steps read it with the shape and size it really has.
          place_[output].dimensions = shapes_[output];
          if (auto bytes = hal::sizeOfData(operand.type, shapes_[output])) {
            place_[output].location.length = *bytes;
          }
        }
        return {};
      }
      const hal::Error& error = outcome.error();
      if (error.outputShapes.size() != step.outputs.size()) return stepError(prepared, index, error);
      bool modelOutputTooSmall = false;
      for (size_t k = 0; k < step.outputs.size(); ++k) {
        const uint32_t output = step.outputs[k];
        shapes_[output] = error.outputShapes[k].dimensions;
        if (error.outputShapes[k].isSufficient) continue;
        if (isModelOutput(output)) {
          modelOutputTooSmall = true;
          insufficient_.push_back(output);
        } else {
          const auto needed = hal::sizeOfData(model_.main.operands[output].type, error.outputShapes[k].dimensions);
          if (!needed.has_value()) {
            return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
                   << "partition step " << index << ": operand " << output << " needs more than 4 GiB";
          }
          NN_RETURN_IF_ERROR(giveBuffer(output, *needed));
        }
      }
      if (modelOutputTooSmall) return insufficientOutputs();
      if (attempt + 1 >= kMaxStepAttempts) {
        return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
               << "partition step " << index << " on " << prepared.deviceName
               << " kept asking for larger buffers between steps";
      }
    }
  }

  // The shapes of the whole model's outputs, after every step ran.
  std::vector<hal::OutputShape> outputShapes() const {
    std::vector<hal::OutputShape> shapes;
    for (uint32_t output : model_.main.outputIndexes) shapes.push_back({shapes_[output], true});
    return shapes;
  }

 private:
  // `error` said as step `index`'s.
  static hal::Error stepError(const PreparedStep& prepared, size_t index, hal::Error error) {
    error.message = "partition step " + std::to_string(index) + " on " + prepared.deviceName + ": " + error.message;
    return error;
  }

  // A step its device failed, run again alone on the CPU when the compilation may fall back
  // (Android's partial fallback), on the same arguments, its device buffers staged; otherwise,
  // or when the CPU fails it too, the failure (and the execution may then fall back whole).
  hal::Result<hal::ExecutionOutcome> onCpuInstead(const PreparedStep& prepared, size_t index,
                                                  const hal::Request& request, const hal::Error& failed,
                                                  const hal::OptionalDuration& loopTimeout) const {
    const hal::Error error = stepError(prepared, index, failed);
    if (cpuFallback_.cpu() == nullptr || prepared.step.device->isReference) return error;
    cpuFallback_.report(
        "ANeuralNetworksExecution, partition step " + std::to_string(index) + " on " + prepared.deviceName, failed,
        "the step");
    cpuFallback_.countStep();
    const hal::Model::Subgraph& main = prepared.step.model.main;
    auto bytesOf = [&main](bool isInput, size_t k, const Argument& argument) {
      const hal::Operand& operand = main.operands[(isInput ? main.inputIndexes : main.outputIndexes)[k]];
      return fullyKnownBytes(operand.type, argument.dimensions, operand.dimensions);
    };
    return rerunOnCpu(cpuFallback_.prepared(index, prepared.step.model), request, bytesOf, loopTimeout, error);
  }

  bool isModelOutput(uint32_t operand) const {
    return std::find(isModelOutput_.begin(), isModelOutput_.end(), operand) != isModelOutput_.end();
  }

  // A pool of its own for a tensor between steps (replacing a smaller one).
  hal::Status giveBuffer(uint32_t operand, uint32_t bytes) {
    NN_ASSIGN_OR_RETURN(hal::SharedMemory memory, hal::createSharedMemory(std::max<uint32_t>(bytes, 1)));
    Argument& place = place_[operand];
    if (!hasBuffer_[operand]) {
      place.lifetime = Argument::LifeTime::POOL;
      place.location.poolIndex = static_cast<uint32_t>(pools_.size());
      pools_.emplace_back();
      hasBuffer_[operand] = true;
    }
    pools_[place.location.poolIndex] = std::move(memory);
    place.location.offset = 0;
    place.location.length = bytes;
    return {};
  }

  // OUTPUT_INSUFFICIENT_SIZE for the whole model, with what is known of every output's shape.
  hal::Error insufficientOutputs() const {
    hal::Error error = hal::makeError(hal::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE)
                       << "an output buffer is too small for its result";
    for (uint32_t output : model_.main.outputIndexes) {
      const bool tooSmall = std::find(insufficient_.begin(), insufficient_.end(), output) != insufficient_.end();
      const std::vector<uint32_t>& known = shapes_[output];
      error.outputShapes.push_back({known.empty() ? model_.main.operands[output].dimensions : known, !tooSmall});
    }
    return error;
  }

  const hal::Model& model_;
  const CpuFallback& cpuFallback_;
  std::vector<hal::Request::MemoryPool> pools_;
  std::vector<Argument> place_;
  std::vector<uint32_t> isModelOutput_;
  std::vector<std::vector<uint32_t>> shapes_;
  std::vector<uint32_t> insufficient_;
  std::vector<bool> hasBuffer_ = std::vector<bool>(model_.main.operands.size(), false);
};

}  // namespace

hal::Result<hal::ExecutionOutcome> PartitionedPreparedModel::execute(
    const hal::Request& request, hal::MeasureTiming /*measure*/, const hal::OptionalTimePoint& deadline,
    const hal::OptionalDuration& loopTimeoutDuration) const {
  NN_RETURN_IF_ERROR(hal::validateRequestForModel(request, model_));
  StepRunner runner(model_, request, *cpuFallback_);
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (deadline.has_value() && hal::Clock::now() >= *deadline) {
      return hal::makeError(hal::ErrorStatus::MISSED_DEADLINE_TRANSIENT)
             << "the deadline passed before partition step " << i << " of " << steps_.size();
    }
    NN_RETURN_IF_ERROR(runner.run(steps_[i], i, deadline, loopTimeoutDuration));
  }
  hal::ExecutionOutcome outcome;
  outcome.outputShapes = runner.outputShapes();
  return outcome;
}

}  // namespace nnremote::runtime
