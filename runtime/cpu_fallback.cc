#include "runtime/cpu_fallback.h"

#include <algorithm>
#include <optional>
#include <variant>

#include "hal/operand_types.h"
#include "hal/validation.h"

namespace nnremote::runtime {
namespace {

using Argument = hal::Request::Argument;

// A device's buffer standing in shared memory for the CPU's run.
struct Staged {
  hal::SharedBuffer buffer;
  hal::SharedMemory memory;
};

// The bytes of the operand `use` describes, with `dimensions` (those an argument gives) completed
// by the descriptor's (its roles' and setDimensions'); none when the shape is still not fully known.
std::optional<uint32_t> stagedBytes(const DescribedUse& use, const std::vector<uint32_t>& dimensions) {
  auto combined = hal::combineDimensions(dimensions, use.initialDimensions());
  if (!combined.ok() || hal::hasUnspecifiedDimensions(use.operand().type, *combined)) return std::nullopt;
  return hal::sizeOfData(use.operand().type, *combined);
}

}  // namespace

hal::Result<hal::ExecutionOutcome> executeOnCpu(const hal::IPreparedModel& cpu, hal::Request request,
                                                const std::vector<const DescribedUse*>& inputUses,
                                                const std::vector<const DescribedUse*>& outputUses,
                                                hal::Duration loopTimeout) {
  std::vector<Staged> staged(request.pools.size());
  // Gives the argument's pool, if a device's buffer, shared memory of the operand's size: for an
  // input filled from the device first.
  auto stage = [&](Argument& argument, const DescribedUse* use, bool isInput, size_t index) -> hal::Status {
    if (use == nullptr || argument.lifetime != Argument::LifeTime::POOL) return {};
    const uint32_t pool = argument.location.poolIndex;
    const auto* buffer = std::get_if<hal::SharedBuffer>(&request.pools[pool]);
    if (buffer == nullptr && staged[pool].buffer == nullptr) return {};  // shared memory already
    const auto bytes = stagedBytes(*use, argument.dimensions);
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
    NN_RETURN_IF_ERROR(stage(request.inputs[i], i < inputUses.size() ? inputUses[i] : nullptr, true, i));
  }
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    NN_RETURN_IF_ERROR(stage(request.outputs[i], i < outputUses.size() ? outputUses[i] : nullptr, false, i));
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

}  // namespace nnremote::runtime
