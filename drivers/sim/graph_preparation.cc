// The graph executor's work before any request, when a model is prepared: the tensors its
// constants make, the device memory they take, and which operations the simulator can run (and
// which of those an execution need not check again). Declared in graph_executor.h.
#include <string>
#include <vector>

#include "drivers/sim/extensions/extension_registry.h"
#include "drivers/sim/graph_executor.h"
#include "drivers/sim/graph_utils.h"
#include "drivers/sim/operand_lowering.h"
#include "drivers/sim/operation_registry.h"
#include "hal/operand_types.h"

namespace nnremote::sim {
namespace {

using hal::ErrorStatus;
using hal::makeError;
using LifeTime = hal::Operand::LifeTime;
using Subgraph = hal::Model::Subgraph;

// A walk through the subgraphs a model calls: how far it checks, and the subgraphs on its path.
struct Walk {
  OperationCheck check;
  std::vector<int> onPath;
};

// Every operation of `subgraph` (and of the subgraphs its IF and WHILE operations call) checked
// with its kernel; one entry per operation of `subgraph`.
std::vector<Status> checkSubgraph(const hal::Model& model, int subgraphIndex, Walk& walk);

Status checkReferenced(const hal::Model& model, uint32_t index, Walk& walk) {
  for (int onPath : walk.onPath) {
    if (onPath == int(index)) return {};  // validateModel rules out cycles; nothing new to check
  }
  walk.onPath.push_back(int(index));
  const std::vector<Status> results = checkSubgraph(model, int(index), walk);
  walk.onPath.pop_back();
  for (size_t op = 0; op < results.size(); ++op) {
    if (!results[op].ok()) {
      hal::Error error = results[op].error();
      error.message = "referenced[" + std::to_string(index) + "].operations[" + std::to_string(op) + "] " +
                      error.message;
      return error;
    }
  }
  return {};
}

std::vector<Status> checkSubgraph(const hal::Model& model, int subgraphIndex, Walk& walk) {
  const Subgraph& subgraph = subgraphAt(model, subgraphIndex);
  std::vector<Tensor> tensors = staticTensors(model, subgraph);
  std::vector<Status> results;
  results.reserve(subgraph.operations.size());
  for (const hal::Operation& operation : subgraph.operations) {
    if (isControlFlow(operation.type)) {
      // The signature was checked with the model; what remains is whether every operation the
      // branches, condition and body contain can run.
      Status status;
      for (size_t i = 0; i < 2 + (operation.type == OperationType::IF ? 1 : 0) && status.ok(); ++i) {
        const Tensor& operand = tensors[operation.inputs[i]];
        if (operand.type == OperandType::SUBGRAPH) status = checkReferenced(model, referencedIndex(operand), walk);
      }
      results.push_back(status);
      continue;
    }
    if (operation.type == OperationType::OEM_OPERATION) {
      // Deprecated since NN HAL 1.2 and vendor-private: there is nothing to simulate. Vendor
      // operations come as extensions (docs/extensions.md).
      results.push_back(makeError(ErrorStatus::INVALID_ARGUMENT)
                        << "OEM_OPERATION is not supported: it is deprecated and its meaning is private to each "
                        << "vendor; the simulator offers vendor operations as extensions instead");
      continue;
    }
    const OperationKernel* kernel = findKernel(model, operation.type);
    if (kernel == nullptr) {
      results.push_back(makeError(ErrorStatus::INVALID_ARGUMENT)
                        << (hal::isExtension(operation.type) ? extensionOperationName(model, operation.type)
                                                             : hal::toString(operation.type))
                        << " is not implemented by the simulator");
      continue;
    }
    if (walk.check == OperationCheck::kHasKernel) {
      results.emplace_back();
      continue;
    }
    OperationContext context = makeContext(operation, tensors);
    results.push_back(LoweredOperation(*kernel, context).validate());
  }
  return results;
}

}  // namespace

uint8_t* constantData(const hal::Model& model, const hal::Operand& operand) {
  const hal::DataLocation& location = operand.location;
  switch (operand.lifetime) {
    case LifeTime::CONSTANT_COPY:
      // operandValues is owned by the prepared model and never written; kernels only read.
      return const_cast<uint8_t*>(model.operandValues.data()) + location.offset;
    case LifeTime::CONSTANT_REFERENCE:
      return model.pools[location.poolIndex]->data() + location.offset;
    case LifeTime::POINTER:
      return static_cast<uint8_t*>(const_cast<void*>(location.pointer));
    default:
      return nullptr;
  }
}

std::vector<Tensor> staticTensors(const hal::Model& model, const hal::Model::Subgraph& subgraph) {
  std::vector<Tensor> tensors(subgraph.operands.size());
  for (size_t i = 0; i < subgraph.operands.size(); ++i) {
    const hal::Operand& operand = subgraph.operands[i];
    Tensor& t = tensors[i];
    t.type = operand.type;
    t.dimensions = operand.dimensions;
    t.scale = operand.scale;
    t.zeroPoint = operand.zeroPoint;
    t.extraParams = &operand.extraParams;
    if (hal::isExtension(operand.type)) {
      const auto* info = findExtensionOperandType(model, operand.type);
      t.elementBytes = info != nullptr ? info->byteSize : 0;
    } else {
      t.elementBytes = hal::elementSize(operand.type);
    }
    t.isOmitted = operand.lifetime == LifeTime::NO_VALUE;
    t.data = constantData(model, operand);
    t.isConstant = t.data != nullptr;
    t.length = t.isConstant ? operand.location.length : 0;
    if (operand.lifetime == LifeTime::SUBGRAPH) t.subgraph = static_cast<int32_t>(operand.location.offset);
  }
  return tensors;
}

std::vector<Status> checkOperations(const hal::Model& model, OperationCheck check) {
  Walk walk{check, {}};
  return checkSubgraph(model, -1, walk);
}

std::vector<bool> operationsSettledAtPreparation(const hal::Model& model) {
  std::vector<Tensor> tensors = staticTensors(model, model.main);
  std::vector<bool> settled;
  settled.reserve(model.main.operations.size());
  for (const hal::Operation& operation : model.main.operations) {
    const OperationKernel* kernel = isControlFlow(operation.type) ? nullptr : findKernel(model, operation.type);
    bool known = kernel != nullptr;
    for (size_t i = 0; known && i < operation.inputs.size(); ++i) {
      const Tensor& t = tensors[operation.inputs[i]];
      const bool shapeKnown = !hal::isTensor(t.type) || (t.rank() > 0 && t.elementCount() > 0);
      known = t.isConstant || t.isOmitted || shapeKnown;
    }
    if (known) {
      OperationContext context = makeContext(operation, tensors);
      LoweredOperation lowered(*kernel, context);
      known = lowered.validate().ok() && !lowered.context().askedForUnknownValue();
    }
    settled.push_back(known);
  }
  return settled;
}

uint64_t constantBytes(const hal::Model& model) {
  uint64_t bytes = 0;
  auto add = [&bytes](const Subgraph& subgraph) {
    for (const hal::Operand& operand : subgraph.operands) {
      if (operand.lifetime == LifeTime::CONSTANT_COPY || operand.lifetime == LifeTime::CONSTANT_REFERENCE ||
          operand.lifetime == LifeTime::POINTER) {
        bytes += operand.location.length;
      }
    }
  };
  add(model.main);
  for (const Subgraph& subgraph : model.referenced) add(subgraph);
  return bytes;
}

}  // namespace nnremote::sim
