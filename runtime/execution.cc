#include "runtime/execution.h"

#include <algorithm>
#include <thread>

#include "hal/operand_types.h"
#include "hal/validation.h"
#include "hal/vlog.h"
#include "runtime/cpu_fallback.h"
#include "runtime/result_codes.h"

namespace nnremote::runtime {
namespace {

uint64_t nanosecondsOf(const hal::OptionalDuration& duration) {
  return duration.has_value() ? static_cast<uint64_t>(duration->count()) : UINT64_MAX;
}

}  // namespace

Execution::Execution(std::shared_ptr<const Compilation> compilation)
    : compilation_(std::move(compilation)),
      main_(compilation_->model().main),
      inputs_(main_.inputIndexes.size()),
      outputs_(main_.outputIndexes.size()) {}

int Execution::setArgument(bool isInput, int32_t index, const ANeuralNetworksOperandType* type, void* buffer,
                           const Memory* memory, size_t offset, size_t length) {
  const char* function = isInput ? (memory ? "ANeuralNetworksExecution_setInputFromMemory"
                                           : "ANeuralNetworksExecution_setInput")
                                 : (memory ? "ANeuralNetworksExecution_setOutputFromMemory"
                                           : "ANeuralNetworksExecution_setOutput");
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ != State::PREPARATION) return refuse(function, ANEURALNETWORKS_BAD_STATE, "the execution has started");
  std::vector<Argument>& arguments = isInput ? inputs_ : outputs_;
  if (index < 0 || static_cast<size_t>(index) >= arguments.size()) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA,
                  "index " + std::to_string(index) + " is not below the model's " + std::to_string(arguments.size()) +
                      (isInput ? " inputs" : " outputs"));
  }
  const hal::Operand& operand = main_.operands[(isInput ? main_.inputIndexes : main_.outputIndexes)[index]];
  std::vector<uint32_t> dimensions = operand.dimensions;
  if (type != nullptr) {
    // A type may only fill in what the model left unspecified.
    if (type->type != static_cast<int32_t>(operand.type) || type->scale != operand.scale ||
        type->zeroPoint != operand.zeroPoint) {
      return refuse(function, ANEURALNETWORKS_BAD_DATA, "the type differs from the model's operand type");
    }
    if (type->dimensionCount > 0 && type->dimensions == nullptr) {
      return refuse(function, ANEURALNETWORKS_BAD_DATA, "dimensionCount > 0 with NULL dimensions");
    }
    if (!operand.dimensions.empty() && type->dimensionCount != operand.dimensions.size()) {
      return refuse(function, ANEURALNETWORKS_BAD_DATA, "the rank differs from the model's");
    }
    dimensions.assign(type->dimensions, type->dimensions + type->dimensionCount);
    // As the NDK checks an operand's type: the known dimensions' bytes must fit 32 bits.
    std::vector<uint32_t> known = dimensions;
    std::replace(known.begin(), known.end(), 0u, 1u);
    if (!hal::isExtension(operand.type) && !hal::sizeOfData(operand.type, known).has_value()) {
      return refuse(function, ANEURALNETWORKS_BAD_DATA,
                    "dimensions " + hal::toString(dimensions) + " make an operand of more than 4 GiB");
    }
    for (size_t i = 0; i < operand.dimensions.size(); ++i) {
      if (operand.dimensions[i] != 0 && dimensions[i] != operand.dimensions[i]) {
        return refuse(function, ANEURALNETWORKS_BAD_DATA,
                      "dimension " + std::to_string(i) + " differs from the model's");
      }
    }
  }
  // As Android's runtime: an argument is given once; a reusable execution keeps its arguments.
  if (arguments[index].set) {
    return refuse(function, ANEURALNETWORKS_BAD_STATE,
                  std::string(isInput ? "input " : "output ") + std::to_string(index) + " has already been set");
  }
  const bool omitted = memory == nullptr && buffer == nullptr;  // the C API let NULL through only with length 0
  const bool known = !dimensions.empty() || !hal::isTensor(operand.type);
  const bool specified = known && std::find(dimensions.begin(), dimensions.end(), 0u) == dimensions.end();
  // Whatever holds it, even a memory that knows its own dimensions, as Android's runtime has it.
  if (isInput && !omitted && !specified && hal::isTensor(operand.type)) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA, "an input's dimensions must all be known");
  }
  Argument argument;
  argument.set = true;
  if (memory != nullptr && memory->use() != nullptr) {
    return setDescribedArgument(function, isInput, index, type, *memory, offset, length, arguments);
  }
  if (omitted) {
    argument.argument.lifetime = hal::Request::Argument::LifeTime::NO_VALUE;
    arguments[index] = std::move(argument);
    return ANEURALNETWORKS_NO_ERROR;
  }
  // The bytes past the operand's own that padding allows: the HAL's location says them apart
  // (length is the operand's, padding the rest), as devices check the length exactly.
  size_t padding = 0;
  if (specified && !hal::isExtension(operand.type)) {
    const auto needed = hal::sizeOfData(operand.type, dimensions);
    if (needed.has_value() && (padding_ ? length < *needed : length != *needed)) {
      return refuse(function, ANEURALNETWORKS_BAD_DATA,
                    "length " + std::to_string(length) + " for an operand of " + std::to_string(*needed) + " bytes");
    }
    if (needed.has_value()) padding = length - *needed;
  }
  if (memory != nullptr) {
    if (offset > memory->size() || length > memory->size() - offset) {
      return refuse(function, ANEURALNETWORKS_BAD_DATA,
                    "offset " + std::to_string(offset) + " + length " + std::to_string(length) +
                        " is beyond the memory's " + std::to_string(memory->size()) + " bytes");
    }
    argument.pool = memory->memory();
  } else {
    argument.pool = pointerMemory(buffer, length);
    offset = 0;
  }
  argument.argument.location.offset = static_cast<uint32_t>(offset);
  argument.argument.location.length = static_cast<uint32_t>(length - padding);
  argument.argument.location.padding = static_cast<uint32_t>(padding);
  if (type != nullptr) argument.argument.dimensions = dimensions;
  arguments[index] = std::move(argument);
  return ANEURALNETWORKS_NO_ERROR;
}

int Execution::setDescribedArgument(const char* function, bool isInput, int32_t index,
                                    const ANeuralNetworksOperandType* type, const Memory& memory, size_t offset,
                                    size_t length, std::vector<Argument>& arguments) {
  DescribedUse& use = *memory.use();
  if (!use.allows({compilation_.get(), isInput, static_cast<uint32_t>(index)})) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA,
                  "the memory's descriptor does not name this compilation's " + std::string(isInput ? "input " : "output ") +
                      std::to_string(index));
  }
  if (offset != 0 || length != 0) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA, "a memory from a descriptor takes offset 0 and length 0");
  }
  Argument argument;
  argument.set = true;
  argument.use = &use;
  argument.pool = memory.pool();
  if (type != nullptr && type->dimensionCount > 0) {
    const std::vector<uint32_t> given(type->dimensions, type->dimensions + type->dimensionCount);
    if (!hal::combineDimensions(given, use.initialDimensions()).ok()) {
      return refuse(function, ANEURALNETWORKS_BAD_DATA, "the dimensions disagree with the memory's");
    }
    argument.argument.dimensions = given;
  }
  // A device's buffer is named whole; shared memory standing in for one is used whole.
  argument.argument.location.length = static_cast<uint32_t>(memory.size());
  arguments[index] = std::move(argument);
  return ANEURALNETWORKS_NO_ERROR;
}

int Execution::setMeasureTiming(bool measure) {
  std::lock_guard<std::mutex> lock(mutex_);
  // The compilation is checked first, as Android's runtime does.
  if (!compilation_->forOneDevice()) {
    return refuse("ANeuralNetworksExecution_setMeasureTiming", ANEURALNETWORKS_BAD_DATA,
                  "timing needs a compilation created for exactly one device (createForDevices)");
  }
  if (state_ != State::PREPARATION) {
    return refuse("ANeuralNetworksExecution_setMeasureTiming", ANEURALNETWORKS_BAD_STATE, "the execution has started");
  }
  measure_ = measure;
  return ANEURALNETWORKS_NO_ERROR;
}

int Execution::setTimeout(uint64_t nanoseconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!compilation_->forOneDevice()) {
    return refuse("ANeuralNetworksExecution_setTimeout", ANEURALNETWORKS_BAD_DATA,
                  "a timeout needs a compilation created for exactly one device (createForDevices)");
  }
  if (state_ != State::PREPARATION) {
    return refuse("ANeuralNetworksExecution_setTimeout", ANEURALNETWORKS_BAD_STATE, "the execution has started");
  }
  timeoutNanoseconds_ = nanoseconds == 0 ? std::nullopt : std::optional<uint64_t>(nanoseconds);
  return ANEURALNETWORKS_NO_ERROR;
}

int Execution::setLoopTimeout(uint64_t nanoseconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ != State::PREPARATION) {
    return refuse("ANeuralNetworksExecution_setLoopTimeout", ANEURALNETWORKS_BAD_STATE, "the execution has started");
  }
  loopTimeoutNanoseconds_ = std::min(nanoseconds, kMaximumLoopTimeoutNs);
  return ANEURALNETWORKS_NO_ERROR;
}

int Execution::setReusable(bool reusable) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ != State::PREPARATION) {
    return refuse("ANeuralNetworksExecution_setReusable", ANEURALNETWORKS_BAD_STATE, "the execution has started");
  }
  reusable_ = reusable;
  return ANEURALNETWORKS_NO_ERROR;
}

int Execution::enableInputAndOutputPadding(bool enable) {
  std::lock_guard<std::mutex> lock(mutex_);
  const bool anySet = std::any_of(inputs_.begin(), inputs_.end(), [](const Argument& a) { return a.set; }) ||
                      std::any_of(outputs_.begin(), outputs_.end(), [](const Argument& a) { return a.set; });
  if (state_ != State::PREPARATION || anySet) {
    return refuse("ANeuralNetworksExecution_enableInputAndOutputPadding", ANEURALNETWORKS_BAD_STATE,
                  state_ != State::PREPARATION ? "the execution has started"
                                               : "padding is chosen before any argument is set");
  }
  padding_ = enable;
  return ANEURALNETWORKS_NO_ERROR;
}

int Execution::beginComputation(const char* function, bool fenced, uint64_t durationAfterFence) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ == State::COMPUTATION) return refuse(function, ANEURALNETWORKS_BAD_STATE, "the execution is running");
  if (state_ == State::COMPLETED && !reusable_) {
    return refuse(function, ANEURALNETWORKS_BAD_STATE, "the execution has run and is not reusable");
  }
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (!inputs_[i].set) return refuse(function, ANEURALNETWORKS_BAD_DATA, "input " + std::to_string(i) + " is not set");
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (!outputs_[i].set) {
      return refuse(function, ANEURALNETWORKS_BAD_DATA, "output " + std::to_string(i) + " is not set");
    }
  }
  for (size_t i = 0; i < inputs_.size(); ++i) {
    Argument& input = inputs_[i];
    if (input.use == nullptr) continue;
    if (!input.use->initialized()) {
      return finishComputationLocked(hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
                                         << "input " << i << "'s memory holds no data yet",
                                     function);
    }
    // An input read from a memory from a descriptor has the dimensions last written to it.
    const std::vector<uint32_t> held = input.use->dimensions();
    if (!input.argument.dimensions.empty() && input.argument.dimensions != held) {
      return finishComputationLocked(hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
                                         << "input " << i << "'s dimensions differ from what its memory holds",
                                     function);
    }
    if (hal::isTensor(main_.operands[main_.inputIndexes[i]].type)) input.argument.dimensions = held;
  }
  if (fenced && durationAfterFence != 0 && !compilation_->forOneDevice()) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA,
                  "a duration needs a compilation created for exactly one device (createForDevices)");
  }
  for (size_t i = 0; fenced && i < outputs_.size(); ++i) {
    const hal::Request::Argument& argument = outputs_[i].argument;
    const hal::Operand& operand = main_.operands[main_.outputIndexes[i]];
    const auto& dimensions = argument.dimensions.empty() ? operand.dimensions : argument.dimensions;
    const bool unknown = dimensions.empty() || std::find(dimensions.begin(), dimensions.end(), 0u) != dimensions.end();
    if (argument.lifetime != hal::Request::Argument::LifeTime::NO_VALUE && hal::isTensor(operand.type) && unknown) {
      return refuse(function, ANEURALNETWORKS_BAD_DATA,
                    "output " + std::to_string(i) + "'s dimensions are not fully specified");
    }
  }
  state_ = State::COMPUTATION;
  return ANEURALNETWORKS_NO_ERROR;
}

Execution::Call Execution::call() const {
  Call call{{}, measure_ ? hal::MeasureTiming::YES : hal::MeasureTiming::NO, std::nullopt,
            hal::Duration(loopTimeoutNanoseconds_.value_or(kDefaultLoopTimeoutNs))};
  if (timeoutNanoseconds_) call.deadline = hal::deadlineAfter(*timeoutNanoseconds_);
  hal::Request& request = call.request;
  auto add = [&](const Argument& argument, std::vector<hal::Request::Argument>* out) {
    hal::Request::Argument wire = argument.argument;
    if (wire.lifetime == hal::Request::Argument::LifeTime::POOL) {
      // One pool per memory, however many arguments it holds.
      size_t pool = 0;
      while (pool < request.pools.size() && request.pools[pool] != argument.pool) ++pool;
      if (pool == request.pools.size()) request.pools.push_back(argument.pool);
      wire.location.poolIndex = static_cast<uint32_t>(pool);
    }
    out->push_back(std::move(wire));
  };
  for (const Argument& input : inputs_) add(input, &request.inputs);
  for (const Argument& output : outputs_) add(output, &request.outputs);
  return call;
}

int Execution::finishComputation(const hal::Result<hal::ExecutionOutcome>& outcome, const char* function) {
  std::lock_guard<std::mutex> lock(mutex_);
  return finishComputationLocked(outcome, function);
}

int Execution::finishComputationLocked(const hal::Result<hal::ExecutionOutcome>& outcome, const char* function) {
  // As Android's runtime: a driver's answer with broken output shapes is the driver's failure.
  if (hal::Status valid = hal::validateExecutionOutcome(outcome, main_.operands, main_.outputIndexes); !valid.ok()) {
    return finishComputationLocked(valid.error(), function);
  }
  state_ = State::COMPLETED;
  // Memories from descriptors hold what a successful computation wrote, and nothing after a failure.
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (outputs_[i].use == nullptr) continue;
    const bool known = outcome.ok() && i < outcome->outputShapes.size();
    outputs_[i].use->written(outcome.ok(), known ? outcome->outputShapes[i].dimensions : std::vector<uint32_t>{});
  }
  completedWithShapes_ = false;
  timing_ = {};
  fencedTiming_ = {};
  if (outcome.ok()) {
    outputShapes_ = outcome->outputShapes;
    if (outputShapes_.empty()) {  // fully specified outputs: the model's (or the argument's) shapes
      for (size_t i = 0; i < outputs_.size(); ++i) {
        const auto& given = outputs_[i].argument.dimensions;
        outputShapes_.push_back({given.empty() ? main_.operands[main_.outputIndexes[i]].dimensions : given, true});
      }
    }
    timing_ = outcome->timing;
    // Without dependencies the fenced durations are the same as the others (NDK DurationCode);
    // a fenced computation records its own after this.
    fencedTiming_ = timing_;
    completedWithShapes_ = true;
    lastResult_ = ANEURALNETWORKS_NO_ERROR;
    return ANEURALNETWORKS_NO_ERROR;
  }
  if (outcome.error().code == hal::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) {
    outputShapes_ = outcome.error().outputShapes;
    completedWithShapes_ = outputShapes_.size() == outputs_.size();
  }
  lastResult_ = refuse(function, outcome.error());
  return lastResult_;
}

hal::Result<hal::ExecutionOutcome> Execution::withCpuFallback(const Call& c,
                                                              hal::Result<hal::ExecutionOutcome> outcome) const {
  // A broken answer (finishComputationLocked) is a failure the CPU may answer instead.
  if (hal::Status valid = hal::validateExecutionOutcome(outcome, main_.operands, main_.outputIndexes); !valid.ok()) {
    outcome = valid.error();
  }
  if (outcome.ok() || outcome.error().code == hal::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE ||
      !compilation_->fallsBackToCpu()) {
    return outcome;
  }
  compilation_->reportCpuFallback("ANeuralNetworksExecution", outcome.error());
  compilation_->countExecutionOnCpuInstead();
  // A device buffer's size: its operand's shape, completed by its descriptor's and then the
  // execution's.
  auto bytesOf = [this](bool isInput, size_t index, const hal::Request::Argument& argument) -> std::optional<uint32_t> {
    const DescribedUse* use = (isInput ? inputs_ : outputs_)[index].use;
    if (use == nullptr) return std::nullopt;
    return fullyKnownBytes(use->operand().type, argument.dimensions, use->initialDimensions());
  };
  return rerunOnCpu(compilation_->cpuPrepared(), c.request, bytesOf, c.loopTimeout, outcome.error());
}

hal::Result<hal::ExecutionOutcome> Execution::fencedCpuFallback(const Call& c,
                                                                const std::vector<hal::SyncFence>& waitFor,
                                                                const hal::Error& error) const {
  if (!compilation_->fallsBackToCpu()) return error;
  for (const hal::SyncFence& fence : waitFor) {
    if (fence.wait(std::nullopt) != hal::SyncFence::State::SIGNALED) {
      return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
             << error.message << "; and a fence the execution waits for signaled an error";
    }
  }
  return withCpuFallback(c, error);
}

int Execution::compute(const hal::IBurst* burst) {
  const char* function = burst ? "ANeuralNetworksExecution_burstCompute" : "ANeuralNetworksExecution_compute";
  if (int refused = beginComputation(function); refused != ANEURALNETWORKS_NO_ERROR) return refused;
  const Call c = call();
  auto outcome = burst != nullptr ? burst->execute(c.request, c.measure, c.deadline, c.loopTimeout)
                                  : compilation_->prepared()->execute(c.request, c.measure, c.deadline, c.loopTimeout);
  return finishComputation(withCpuFallback(c, std::move(outcome)), function);
}

int Execution::start(const std::vector<hal::SyncFence>& waitFor, uint64_t durationAfterFence, hal::SyncFence* done,
                     bool* ranAtOnce) {
  *ranAtOnce = false;
  const char* function = waitFor.empty() ? "ANeuralNetworksExecution_startCompute"
                                         : "ANeuralNetworksExecution_startComputeWithDependencies";
  if (int refused = beginComputation(function, !waitFor.empty(), durationAfterFence); refused) return refused;
  *done = hal::SyncFence::create();
  const Call c = call();
  if (waitFor.empty()) {
    std::thread([self = shared_from_this(), c, fence = *done] {
      const int code = self->finishComputation(
          self->withCpuFallback(
              c, self->compilation_->prepared()->execute(c.request, c.measure, c.deadline, c.loopTimeout)),
          "ANeuralNetworksExecution_startCompute");
      fence.signal(/*error=*/code != ANEURALNETWORKS_NO_ERROR);
    }).detach();
    return ANEURALNETWORKS_NO_ERROR;
  }
  hal::OptionalDuration afterFence;
  if (durationAfterFence != 0) afterFence = hal::durationOf(durationAfterFence);
  // A device that cannot chain on a fence waits for it before it runs; while a fence the program
  // holds is still pending, that wait happens on a thread of its own, so this call never blocks.
  const bool pending = std::any_of(waitFor.begin(), waitFor.end(), [](const hal::SyncFence& fence) {
    return fence.state() == hal::SyncFence::State::ACTIVE;
  });
  if (pending) {
    std::thread([self = shared_from_this(), c, waitFor, afterFence, fence = *done] {
      self->runFenced(c, waitFor, afterFence, fence);
    }).detach();
    return ANEURALNETWORKS_NO_ERROR;
  }
  auto fenced =
      compilation_->prepared()->executeFenced(c.request, waitFor, c.measure, c.deadline, c.loopTimeout, afterFence);
  if (!fenced.ok()) {
    // Run on the CPU instead, here, as Android's runtime does: the event is signaled on return.
    const int code = finishComputation(fencedCpuFallback(c, waitFor, fenced.error()), function);
    if (code == ANEURALNETWORKS_NO_ERROR) done->signal(/*error=*/false);
    *ranAtOnce = true;
    return code;
  }
  std::thread([self = shared_from_this(), c, waitFor, fenced = std::move(fenced).value(), fence = *done] {
    self->finishFenced(c, waitFor, fenced, fence);
  }).detach();
  return ANEURALNETWORKS_NO_ERROR;
}

void Execution::runFenced(const Call& c, const std::vector<hal::SyncFence>& waitFor,
                          const hal::OptionalDuration& afterFence, const hal::SyncFence& done) {
  auto fenced =
      compilation_->prepared()->executeFenced(c.request, waitFor, c.measure, c.deadline, c.loopTimeout, afterFence);
  if (!fenced.ok()) {
    const int code = finishComputation(fencedCpuFallback(c, waitFor, fenced.error()),
                                       "ANeuralNetworksExecution_startComputeWithDependencies");
    done.signal(/*error=*/code != ANEURALNETWORKS_NO_ERROR);
    return;
  }
  finishFenced(c, waitFor, *fenced, done);
}

// The device's fence says when it is done; the result (and timing) come from its callback, and
// the program's event is signaled only once they are recorded here. A failure falls back to the
// CPU as one the device answered at once does: Android's runtime falls back only from the
// latter, but its drivers (the sample driver's executeFenced runs the execution before it
// returns) report failures at once, where a remote device reports them through its fence.
void Execution::finishFenced(const Call& c, const std::vector<hal::SyncFence>& waitFor,
                             const std::pair<hal::SyncFence, hal::ExecuteFencedInfoCallback>& fenced,
                             const hal::SyncFence& done) {
  const bool failed = fenced.first.wait(std::nullopt) != hal::SyncFence::State::SIGNALED;
  auto timings = fenced.second();
  hal::Result<hal::ExecutionOutcome> outcome = hal::ExecutionOutcome{};
  if (!timings.ok()) {
    outcome = timings.error();
  } else if (failed) {
    outcome = hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "the execution's fence signaled an error";
  } else {
    outcome->timing = timings->first;
  }
  const bool fellBack = !outcome.ok() && compilation_->fallsBackToCpu();
  if (fellBack) outcome = fencedCpuFallback(c, waitFor, outcome.error());
  const int code = finishComputation(outcome, "ANeuralNetworksExecution_startComputeWithDependencies");
  if (timings.ok() && !fellBack) {
    std::lock_guard<std::mutex> lock(mutex_);
    fencedTiming_ = timings->second;
  }
  done.signal(/*error=*/code != ANEURALNETWORKS_NO_ERROR);
}

int Execution::getOutputOperandRank(int32_t index, uint32_t* rank) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ != State::COMPLETED || !completedWithShapes_) {
    return refuse("ANeuralNetworksExecution_getOutputOperandRank", ANEURALNETWORKS_BAD_STATE,
                  "the execution has not completed with known output shapes");
  }
  if (index < 0 || static_cast<size_t>(index) >= outputShapes_.size()) {
    return refuse("ANeuralNetworksExecution_getOutputOperandRank", ANEURALNETWORKS_BAD_DATA,
                  "index " + std::to_string(index) + " is not an output");
  }
  *rank = static_cast<uint32_t>(outputShapes_[index].dimensions.size());
  return outputShapes_[index].isSufficient ? ANEURALNETWORKS_NO_ERROR : ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE;
}

int Execution::getOutputOperandDimensions(int32_t index, uint32_t* dimensions) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ != State::COMPLETED || !completedWithShapes_) {
    return refuse("ANeuralNetworksExecution_getOutputOperandDimensions", ANEURALNETWORKS_BAD_STATE,
                  "the execution has not completed with known output shapes");
  }
  if (index < 0 || static_cast<size_t>(index) >= outputShapes_.size()) {
    return refuse("ANeuralNetworksExecution_getOutputOperandDimensions", ANEURALNETWORKS_BAD_DATA,
                  "index " + std::to_string(index) + " is not an output");
  }
  const hal::OutputShape& shape = outputShapes_[index];
  if (shape.dimensions.empty()) {
    return refuse("ANeuralNetworksExecution_getOutputOperandDimensions", ANEURALNETWORKS_BAD_DATA,
                  "output " + std::to_string(index) + " is a scalar");
  }
  std::copy(shape.dimensions.begin(), shape.dimensions.end(), dimensions);
  return shape.isSufficient ? ANEURALNETWORKS_NO_ERROR : ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE;
}

int Execution::getDuration(int32_t durationCode, uint64_t* duration) const {
  const char* function = "ANeuralNetworksExecution_getDuration";
  // The NDK promises UINT64_MAX whenever there is no duration to give, refusals included.
  *duration = UINT64_MAX;
  const bool fenced = durationCode == ANEURALNETWORKS_FENCED_DURATION_ON_HARDWARE ||
                      durationCode == ANEURALNETWORKS_FENCED_DURATION_IN_DRIVER;
  if (!fenced && durationCode != ANEURALNETWORKS_DURATION_ON_HARDWARE &&
      durationCode != ANEURALNETWORKS_DURATION_IN_DRIVER) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA,
                  "durationCode " + std::to_string(durationCode) + " is not a DurationCode");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ != State::COMPLETED) return refuse(function, ANEURALNETWORKS_BAD_STATE, "the execution has not completed");
  // As Android's runtime: a computation that failed has no durations to give.
  if (lastResult_.load() != ANEURALNETWORKS_NO_ERROR) {
    return refuse(function, ANEURALNETWORKS_BAD_STATE, "the last computation failed");
  }
  if (!measure_) return refuse(function, ANEURALNETWORKS_BAD_STATE, "timing was not measured");
  const hal::Timing& timing = fenced ? fencedTiming_ : timing_;
  const bool onHardware = durationCode == ANEURALNETWORKS_DURATION_ON_HARDWARE ||
                          durationCode == ANEURALNETWORKS_FENCED_DURATION_ON_HARDWARE;
  *duration = nanosecondsOf(onHardware ? timing.timeOnDevice : timing.timeInDriver);
  return ANEURALNETWORKS_NO_ERROR;
}

}  // namespace nnremote::runtime
