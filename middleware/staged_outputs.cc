#include "middleware/staged_outputs.h"

#include <algorithm>
#include <cstring>

#include "hal/memory.h"
#include "hal/operand_types.h"

namespace nnremote::middleware {

hal::Result<StagedOutputs> StagedOutputs::stage(const hal::Request& request,
                                                const std::vector<hal::OperandType>& outputTypes) {
  StagedOutputs staged;
  staged.staged_ = request;
  staged.outputTypes_ = outputTypes;
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    hal::Request::Argument& argument = staged.staged_.outputs[i];
    if (argument.lifetime != hal::Request::Argument::LifeTime::POOL) continue;
    const auto* target = std::get_if<hal::SharedMemory>(&request.pools[argument.location.poolIndex]);
    if (target == nullptr) continue;
    NN_ASSIGN_OR_RETURN(hal::SharedMemory scratch, hal::createHeapMemory(argument.location.length));
    staged.copies_.push_back({i, scratch, *target, argument.location.offset, argument.location.length});
    argument.location = {nullptr, static_cast<uint32_t>(staged.staged_.pools.size()), 0, argument.location.length, 0};
    staged.staged_.pools.push_back(std::move(scratch));
  }
  return staged;
}

void StagedOutputs::publish(const std::vector<hal::OutputShape>& shapes) const {
  for (const Copy& copy : copies_) {
    uint32_t length = copy.length;
    if (copy.output < shapes.size() && copy.output < outputTypes_.size()) {
      length = std::min(length, hal::sizeOfData(outputTypes_[copy.output], shapes[copy.output].dimensions)
                                    .value_or(copy.length));
    }
    std::memcpy(copy.target->data() + copy.offset, copy.scratch->data(), length);
  }
}

}  // namespace nnremote::middleware
