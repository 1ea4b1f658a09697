// IF and WHILE name referenced subgraphs whose inputs and outputs must line up with the
// operation's own, as NNAPI defines them (ANEURALNETWORKS_IF, ANEURALNETWORKS_WHILE; AOSP's
// validateIfOperation and validateWhileOperation).
#include <string>

#include "hal/control_flow_validation.h"
#include "hal/operand_types.h"

namespace nnremote::hal {
namespace {

using LifeTime = Operand::LifeTime;

std::string describe(const std::vector<uint32_t>& dims) { return toString(dims); }

// An operand passed into (or out of) a subgraph must be the same kind of value: type,
// quantization, and dimensions wherever both sides know them.
Status checkCompatible(const Operand& outer, const Operand& inner, const std::string& outerWhere,
                       const std::string& innerWhere) {
  if (outer.type != inner.type || outer.scale != inner.scale || outer.zeroPoint != inner.zeroPoint) {
    return invalidArgument() << outerWhere << " (" << toString(outer.type) << ", scale " << outer.scale
                             << ", zero point " << outer.zeroPoint << ") does not match " << innerWhere << " ("
                             << toString(inner.type) << ", scale " << inner.scale << ", zero point "
                             << inner.zeroPoint << ")";
  }
  if (!outer.dimensions.empty() && !inner.dimensions.empty()) {
    bool agree = outer.dimensions.size() == inner.dimensions.size();
    for (size_t i = 0; agree && i < outer.dimensions.size(); ++i) {
      agree = outer.dimensions[i] == 0 || inner.dimensions[i] == 0 || outer.dimensions[i] == inner.dimensions[i];
    }
    if (!agree) {
      return invalidArgument() << outerWhere << " has dimensions " << describe(outer.dimensions) << " but "
                               << innerWhere << " has " << describe(inner.dimensions);
    }
  }
  return {};
}

// The subgraph a SUBGRAPH operand names.
Result<const Model::Subgraph*> referencedSubgraph(const Model& model, const Model::Subgraph& subgraph,
                                                  const Operation& operation, size_t input,
                                                  const std::string& where) {
  const Operand& operand = subgraph.operands[operation.inputs[input]];
  if (operand.lifetime != LifeTime::SUBGRAPH) {
    return invalidArgument() << where << ".inputs[" << input << "] must be a SUBGRAPH operand, is "
                             << toString(operand.lifetime);
  }
  return &model.referenced[operand.location.offset];
}

Status checkBooleanScalar(const Operand& operand, const std::string& what) {
  if (operand.type != OperandType::TENSOR_BOOL8 ||
      (!operand.dimensions.empty() && elementCount(operand.dimensions) != 1)) {
    return invalidArgument() << what << " must be a TENSOR_BOOL8 of one element, is " << toString(operand.type)
                             << " " << describe(operand.dimensions);
  }
  return {};
}

std::string at(const std::string& base, size_t index) { return base + "[" + std::to_string(index) + "]"; }

Status validateIf(const Model& model, const Model::Subgraph& subgraph, const Operation& operation,
                  const std::string& where) {
  if (operation.inputs.size() < 3 || operation.outputs.empty()) {
    return invalidArgument() << where << ": IF takes a condition, two branches and their inputs, and at least one "
                             << "output; it has " << operation.inputs.size() << " inputs and "
                             << operation.outputs.size() << " outputs";
  }
  NN_RETURN_IF_ERROR(checkBooleanScalar(subgraph.operands[operation.inputs[0]], where + ".inputs[0] (the condition)"));
  for (size_t branch : {size_t{1}, size_t{2}}) {
    NN_ASSIGN_OR_RETURN(const Model::Subgraph* body, referencedSubgraph(model, subgraph, operation, branch, where));
    const std::string name = where + (branch == 1 ? " then-branch" : " else-branch");
    if (body->inputIndexes.size() != operation.inputs.size() - 3 ||
        body->outputIndexes.size() != operation.outputs.size()) {
      return invalidArgument() << name << " has " << body->inputIndexes.size() << " inputs and "
                               << body->outputIndexes.size() << " outputs; the IF passes "
                               << operation.inputs.size() - 3 << " and expects " << operation.outputs.size();
    }
    for (size_t i = 0; i < body->inputIndexes.size(); ++i) {
      NN_RETURN_IF_ERROR(checkCompatible(subgraph.operands[operation.inputs[3 + i]],
                                         body->operands[body->inputIndexes[i]], at(where + ".inputs", 3 + i),
                                         at(name + " input", i)));
    }
    for (size_t i = 0; i < body->outputIndexes.size(); ++i) {
      NN_RETURN_IF_ERROR(checkCompatible(subgraph.operands[operation.outputs[i]],
                                         body->operands[body->outputIndexes[i]], at(where + ".outputs", i),
                                         at(name + " output", i)));
    }
  }
  return {};
}

// WHILE's inputs after the two subgraphs are m loop-carried values, k loop-state values and n
// read-only inputs; the body returns m + k values, and the operation the final m.
Status validateWhile(const Model& model, const Model::Subgraph& subgraph, const Operation& operation,
                     const std::string& where) {
  if (operation.inputs.size() < 3 || operation.outputs.empty()) {
    return invalidArgument() << where << ": WHILE takes a condition, a body and at least one input, and at least "
                             << "one output; it has " << operation.inputs.size() << " inputs and "
                             << operation.outputs.size() << " outputs";
  }
  NN_ASSIGN_OR_RETURN(const Model::Subgraph* condition, referencedSubgraph(model, subgraph, operation, 0, where));
  NN_ASSIGN_OR_RETURN(const Model::Subgraph* body, referencedSubgraph(model, subgraph, operation, 1, where));
  const size_t passed = operation.inputs.size() - 2;
  if (condition->inputIndexes.size() != passed || condition->outputIndexes.size() != 1) {
    return invalidArgument() << where << " condition has " << condition->inputIndexes.size() << " inputs and "
                             << condition->outputIndexes.size() << " outputs; the WHILE passes " << passed
                             << " and expects 1";
  }
  NN_RETURN_IF_ERROR(checkBooleanScalar(condition->operands[condition->outputIndexes[0]],
                                        where + " condition output"));
  if (body->inputIndexes.size() != passed || body->outputIndexes.size() < operation.outputs.size() ||
      body->outputIndexes.size() > passed) {
    return invalidArgument() << where << " body has " << body->inputIndexes.size() << " inputs and "
                             << body->outputIndexes.size() << " outputs; the WHILE passes " << passed
                             << " inputs and has " << operation.outputs.size() << " outputs";
  }
  for (size_t i = 0; i < passed; ++i) {
    const Operand& outer = subgraph.operands[operation.inputs[2 + i]];
    NN_RETURN_IF_ERROR(checkCompatible(outer, condition->operands[condition->inputIndexes[i]],
                                       at(where + ".inputs", 2 + i), at(where + " condition input", i)));
    NN_RETURN_IF_ERROR(checkCompatible(outer, body->operands[body->inputIndexes[i]], at(where + ".inputs", 2 + i),
                                       at(where + " body input", i)));
  }
  for (size_t i = 0; i < body->outputIndexes.size(); ++i) {
    // Each iteration's outputs are the next iteration's inputs.
    NN_RETURN_IF_ERROR(checkCompatible(body->operands[body->outputIndexes[i]], body->operands[body->inputIndexes[i]],
                                       at(where + " body output", i), at(where + " body input", i)));
  }
  for (size_t i = 0; i < operation.outputs.size(); ++i) {
    NN_RETURN_IF_ERROR(checkCompatible(subgraph.operands[operation.outputs[i]], body->operands[body->outputIndexes[i]],
                                       at(where + ".outputs", i), at(where + " body output", i)));
  }
  return {};
}

}  // namespace

Status validateControlFlowOperation(const Model& model, const Model::Subgraph& subgraph, const Operation& operation,
                                    const std::string& where) {
  switch (operation.type) {
    case OperationType::IF: return validateIf(model, subgraph, operation, where);
    case OperationType::WHILE: return validateWhile(model, subgraph, operation, where);
    default: return {};
  }
}

}  // namespace nnremote::hal
