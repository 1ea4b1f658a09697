#include "runtime/cpu_fallback.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>
#include <variant>

#include "hal/operand_types.h"
#include "hal/validation.h"
#include "hal/vlog.h"

namespace nnremote::runtime {
namespace {

using Argument = hal::Request::Argument;

// A device's buffer standing in shared memory for the CPU's run.
struct Staged {
  hal::SharedBuffer buffer;
  hal::SharedMemory memory;
};

}  // namespace

hal::Result<hal::SharedPreparedModel> CpuFallback::prepared(size_t part, const hal::Model& model) const {
  if (cpu_ == nullptr) return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "no CPU to fall back to";
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto found = prepared_.find(part); found != prepared_.end()) return found->second;
  auto made = cpu_->device->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                                         std::nullopt, {}, {}, hal::CacheToken{});
  prepared_.emplace(part, made);
  return made;
}

void CpuFallback::report(const std::string& failed, const hal::Error& error, const char* rerun) const {
  std::ostringstream line;
  line << failed << ": " << hal::toString(error.code) << ": " << error.message << "; running " << rerun << " on "
       << kReferenceDeviceName << " instead (CPU fallback)";
  if (!reported_.exchange(true)) {
    std::cerr << "libneuralnetworks: " << line.str()
              << "; said once per compilation: NNREMOTE_VLOG=runtime for every one, NNREMOTE_NO_CPU_FALLBACK=1 for "
                 "the device's error instead\n";
  }
  NN_VLOG(RUNTIME) << line.str();
}

std::optional<uint32_t> fullyKnownBytes(hal::OperandType type, const std::vector<uint32_t>& given,
                                        const std::vector<uint32_t>& known) {
  auto combined = hal::combineDimensions(given, known);
  if (!combined.ok() || hal::hasUnspecifiedDimensions(type, *combined)) return std::nullopt;
  return hal::sizeOfData(type, *combined);
}

hal::Result<hal::ExecutionOutcome> executeOnCpu(const hal::IPreparedModel& cpu, hal::Request request,
                                                const StagedBytes& bytesOf, const hal::OptionalDuration& loopTimeout) {
  std::vector<Staged> staged(request.pools.size());
  // Gives the argument's pool, if a device's buffer, shared memory of the operand's size: for an
  // input filled from the device first.
  auto stage = [&](Argument& argument, bool isInput, size_t index) -> hal::Status {
    if (argument.lifetime != Argument::LifeTime::POOL) return {};
    const uint32_t pool = argument.location.poolIndex;
    const auto* buffer = std::get_if<hal::SharedBuffer>(&request.pools[pool]);
    if (buffer == nullptr && staged[pool].buffer == nullptr) return {};  // shared memory already
    const auto bytes = bytesOf(isInput, index, argument);
    if (!bytes.has_value()) {
      return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
             << (isInput ? "input " : "output ") << index
             << "'s device memory has no fully known shape, so the CPU cannot run it in its place";
    }
    if (staged[pool].buffer == nullptr) {
      NN_ASSIGN_OR_RETURN(hal::SharedMemory memory, hal::createSharedMemory(std::max<uint32_t>(*bytes, 1)));
      staged[pool] = {*buffer, memory};
      if (isInput) NN_RETURN_IF_ERROR(staged[pool].buffer->copyTo(memory));
      request.pools[pool] = memory;
    }
    argument.location.offset = 0;
    argument.location.length = *bytes;
    return {};
  };
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    NN_RETURN_IF_ERROR(stage(request.inputs[i], true, i));
  }
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    NN_RETURN_IF_ERROR(stage(request.outputs[i], false, i));
  }
  NN_ASSIGN_OR_RETURN(hal::ExecutionOutcome outcome,
                      cpu.execute(request, hal::MeasureTiming::NO, std::nullopt, loopTimeout));
  // What the CPU wrote goes back to the devices' buffers, with the shapes it computed.
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    const Argument& output = request.outputs[i];
    if (output.lifetime != Argument::LifeTime::POOL || staged[output.location.poolIndex].buffer == nullptr) continue;
    const Staged& place = staged[output.location.poolIndex];
    const std::vector<uint32_t> shape =
        i < outcome.outputShapes.size() ? outcome.outputShapes[i].dimensions : output.dimensions;
    NN_RETURN_IF_ERROR(place.buffer->copyFrom(place.memory, shape));
  }
  return outcome;
}

hal::Result<hal::ExecutionOutcome> rerunOnCpu(const hal::Result<hal::SharedPreparedModel>& cpu,
                                              const hal::Request& request, const StagedBytes& bytesOf,
                                              const hal::OptionalDuration& loopTimeout, const hal::Error& failed) {
  hal::Result<hal::ExecutionOutcome> outcome =
      cpu.ok() ? executeOnCpu(**cpu, request, bytesOf, loopTimeout) : cpu.error();
  if (!outcome.ok() && outcome.error().code != hal::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) {
    outcome.error().message = failed.message + "; then on " + kReferenceDeviceName + ": " + outcome.error().message;
  }
  return outcome;
}

}  // namespace nnremote::runtime
