#include "tests/conformance/mutations.h"

#include <functional>

#include "hal/operand_types.h"

namespace nnremote::cts {
namespace {

using hal::Operand;
using hal::OperandType;
using LifeTime = Operand::LifeTime;

// The first and the last index among `count` that `fits`, without repeats.
std::vector<size_t> firstAndLast(size_t count, const std::function<bool(size_t)>& fits) {
  std::vector<size_t> picked;
  for (size_t i = 0; i < count; ++i) {
    if (fits(i)) {
      picked.push_back(i);
      break;
    }
  }
  for (size_t i = count; i-- > 0;) {
    if (fits(i)) {
      if (picked.empty() || picked.front() != i) picked.push_back(i);
      break;
    }
  }
  return picked;
}

bool isAsymmQuant(OperandType type) {
  return type == OperandType::TENSOR_QUANT8_ASYMM || type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ||
         type == OperandType::TENSOR_QUANT16_ASYMM;
}

bool needsZeroScale(OperandType type) {
  return type == OperandType::TENSOR_FLOAT32 || type == OperandType::TENSOR_FLOAT16 ||
         type == OperandType::TENSOR_BOOL8;
}

}  // namespace

std::vector<ModelMutation> mutateModel(const hal::Model& model) {
  std::vector<ModelMutation> out;
  const auto& operands = model.main.operands;
  const auto& operations = model.main.operations;
  auto add = [&](std::string name, const std::function<void(hal::Model&)>& change) {
    ModelMutation mutation{std::move(name), model};
    change(mutation.model);
    out.push_back(std::move(mutation));
  };
  const auto any = [](size_t) { return true; };
  const uint32_t pastEnd = static_cast<uint32_t>(operands.size());

  for (size_t i : firstAndLast(operands.size(), any)) {
    add("mutateOperandTypeTest operand " + std::to_string(i) + " (not a type)",
        [i](hal::Model& m) { m.main.operands[i].type = static_cast<OperandType>(999); });
    add("mutateOperandLifeTimeTest operand " + std::to_string(i) + " (not a lifetime)",
        [i](hal::Model& m) { m.main.operands[i].lifetime = static_cast<LifeTime>(99); });
  }
  for (size_t i : firstAndLast(operands.size(), [&](size_t i) { return !hal::isTensor(operands[i].type) &&
                                                                  operands[i].type != OperandType::SUBGRAPH; })) {
    add("mutateOperandRankTest scalar operand " + std::to_string(i) + " given dimensions",
        [i](hal::Model& m) { m.main.operands[i].dimensions = {1, 2}; });
  }
  for (size_t i : firstAndLast(operands.size(), [&](size_t i) { return isAsymmQuant(operands[i].type); })) {
    add("mutateOperandScaleTest operand " + std::to_string(i) + " scale 0",
        [i](hal::Model& m) { m.main.operands[i].scale = 0.0f; });
    add("mutateOperandScaleTest operand " + std::to_string(i) + " scale -1",
        [i](hal::Model& m) { m.main.operands[i].scale = -1.0f; });
    add("mutateOperandZeroPointTest operand " + std::to_string(i) + " zero point 70000",
        [i](hal::Model& m) { m.main.operands[i].zeroPoint = 70000; });
  }
  for (size_t i : firstAndLast(operands.size(), [&](size_t i) { return needsZeroScale(operands[i].type); })) {
    add("mutateOperandScaleTest operand " + std::to_string(i) + " float scale 1",
        [i](hal::Model& m) { m.main.operands[i].scale = 1.0f; });
    add("mutateOperandZeroPointTest operand " + std::to_string(i) + " float zero point 1",
        [i](hal::Model& m) { m.main.operands[i].zeroPoint = 1; });
  }
  for (size_t k : firstAndLast(model.main.inputIndexes.size(), any)) {
    const uint32_t index = model.main.inputIndexes[k];
    add("mutateOperandLifeTimeTest input " + std::to_string(index) + " made a temporary",
        [index](hal::Model& m) { m.main.operands[index].lifetime = LifeTime::TEMPORARY_VARIABLE; });
    add("mutateModelInputIndexTest inputIndexes[" + std::to_string(k) + "] past the end",
        [k, pastEnd](hal::Model& m) { m.main.inputIndexes[k] = pastEnd; });
  }
  for (size_t k : firstAndLast(model.main.outputIndexes.size(), any)) {
    add("mutateModelOutputIndexTest outputIndexes[" + std::to_string(k) + "] past the end",
        [k, pastEnd](hal::Model& m) { m.main.outputIndexes[k] = pastEnd; });
  }
  for (size_t o : firstAndLast(operations.size(), any)) {
    const std::string op = "operation " + std::to_string(o);
    add("mutateOperationTypeTest " + op + " (not an operation)", [o](hal::Model& m) {
      m.main.operations[o].type = static_cast<hal::OperationType>(hal::kLastOperationType + 1000);
    });
    if (!operations[o].inputs.empty()) {
      add("mutateOperationInputOperandIndexTest " + op,
          [o, pastEnd](hal::Model& m) { m.main.operations[o].inputs[0] = pastEnd; });
    }
    add("mutateOperationOutputOperandIndexTest " + op,
        [o, pastEnd](hal::Model& m) { m.main.operations[o].outputs[0] = pastEnd; });
    // Its outputs are then written by nobody (or the model has no operation left).
    add("removeOperationTest " + op,
        [o](hal::Model& m) { m.main.operations.erase(m.main.operations.begin() + static_cast<long>(o)); });
    // Its outputs are then written twice.
    add("duplicateOperationTest " + op, [o](hal::Model& m) { m.main.operations.push_back(m.main.operations[o]); });
  }
  ModelMutation preference{"mutateExecutionPreferenceTest (not a preference)", model};
  preference.preference = static_cast<hal::ExecutionPreference>(7);
  out.push_back(std::move(preference));
  ModelMutation priority{"mutateExecutionPriorityTest (not a priority)", model};
  priority.priority = static_cast<hal::Priority>(9);
  out.push_back(std::move(priority));
  return out;
}

std::vector<RequestMutation> mutateRequest(const hal::Model& model, const hal::Request& request) {
  std::vector<RequestMutation> out;
  auto add = [&](std::string name, const std::function<void(hal::Request&)>& change) {
    RequestMutation mutation{std::move(name), request};
    change(mutation.request);
    out.push_back(std::move(mutation));
  };
  const auto any = [](size_t) { return true; };
  for (size_t i : firstAndLast(request.inputs.size(), any)) {
    add("removeInputTest input " + std::to_string(i),
        [i](hal::Request& r) { r.inputs.erase(r.inputs.begin() + static_cast<long>(i)); });
    add("mutateInputPoolIndexTest input " + std::to_string(i), [i](hal::Request& r) {
      r.inputs[i].lifetime = hal::Request::Argument::LifeTime::POOL;
      r.inputs[i].location.poolIndex = static_cast<uint32_t>(r.pools.size());
    });
  }
  for (size_t i : firstAndLast(request.inputs.size(), [&](size_t i) {
         const auto& operand = model.main.operands[model.main.inputIndexes[i]];
         return request.inputs[i].lifetime == hal::Request::Argument::LifeTime::POOL &&
                request.inputs[i].location.length > 0 && !hal::hasUnspecifiedDimensions(operand);
       })) {
    add("mutateInputLengthTest input " + std::to_string(i) + " one byte short",
        [i](hal::Request& r) { r.inputs[i].location.length -= 1; });
  }
  for (size_t i : firstAndLast(request.outputs.size(), any)) {
    add("removeOutputTest output " + std::to_string(i),
        [i](hal::Request& r) { r.outputs.erase(r.outputs.begin() + static_cast<long>(i)); });
  }
  add("addInputTest (one more input than the model has)", [](hal::Request& r) { r.inputs.push_back(r.inputs.empty() ? hal::Request::Argument{} : r.inputs.back()); });
  return out;
}

}  // namespace nnremote::cts
