// The output shapes a device answers an execution with, checked by AOSP's rules for a driver's
// answer (its runtime checks every one, since a driver's bug must not become the app's): the
// shapes are read to size buffers between partition steps and to tell the app its outputs' sizes.
#include <algorithm>
#include <string>

#include "hal/operand_types.h"
#include "hal/validation.h"

namespace nnremote::hal {

Status validateExecutionOutcome(const Result<ExecutionOutcome>& outcome, const std::vector<Operand>& operands,
                                const std::vector<uint32_t>& outputs) {
  const ErrorStatus status = outcome.ok() ? ErrorStatus::NONE : outcome.error().code;
  const std::vector<OutputShape>& shapes = outcome.ok() ? outcome->outputShapes : outcome.error().outputShapes;
  auto broken = [&](const std::string& what) -> Status {
    return makeError(ErrorStatus::GENERAL_FAILURE)
           << "the device answered " << (status == ErrorStatus::NONE ? "success" : toString(status)) << " with "
           << what;
  };
  auto counts = [&](const char* allowed) {
    return std::to_string(shapes.size()) + " output shapes for " + std::to_string(outputs.size()) + " outputs (" +
           allowed + ")";
  };
  if (status == ErrorStatus::NONE) {
    // None is allowed: a device may leave fully specified outputs' shapes to the caller.
    if (!shapes.empty() && shapes.size() != outputs.size()) {
      return broken(counts("none or one each"));
    }
    for (size_t i = 0; i < shapes.size(); ++i) {
      if (!shapes[i].isSufficient) return broken("output " + std::to_string(i) + " marked insufficient");
      const OperandType type = operands[outputs[i]].type;
      if (!isExtension(type) && isTensor(type) && shapes[i].dimensions.empty()) {
        return broken("no dimensions for output " + std::to_string(i) + ", a tensor");
      }
    }
    return {};
  }
  if (status == ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) {
    if (shapes.size() != outputs.size()) {
      return broken(counts("one each"));
    }
    if (std::all_of(shapes.begin(), shapes.end(), [](const OutputShape& shape) { return shape.isSufficient; })) {
      return broken("every output marked sufficient");
    }
  }
  return {};
}

}  // namespace nnremote::hal
