#include "accelerator_sim/graph_executor.h"

#include <chrono>
#include <cstring>
#include <memory>

#include "accelerator_sim/operand_lowering.h"
#include "accelerator_sim/operation_registry.h"
#include "hal/operand_types.h"

namespace nnremote::sim {
namespace {

using hal::ErrorStatus;
using hal::makeError;
using LifeTime = hal::Operand::LifeTime;

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

OperationContext makeContext(const hal::Operation& operation, std::vector<Tensor>& tensors) {
  std::vector<Tensor*> inputs, outputs;
  inputs.reserve(operation.inputs.size());
  for (uint32_t i : operation.inputs) inputs.push_back(&tensors[i]);
  for (uint32_t i : operation.outputs) outputs.push_back(&tensors[i]);
  return OperationContext(operation.type, std::move(inputs), std::move(outputs));
}

// Dimensions the model fixed must agree with what the operation computed.
bool isCompatible(const std::vector<uint32_t>& declared, const std::vector<uint32_t>& actual) {
  if (declared.empty()) return true;
  if (declared.size() != actual.size()) return false;
  for (size_t i = 0; i < declared.size(); ++i) {
    if (declared[i] != 0 && declared[i] != actual[i]) return false;
  }
  return true;
}

uint8_t* poolData(const hal::Request& request, uint32_t poolIndex) {
  return std::get<hal::SharedMemory>(request.pools[poolIndex])->data();
}

}  // namespace

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
    t.isOmitted = operand.lifetime == LifeTime::NO_VALUE;
    t.data = constantData(model, operand);
    t.isConstant = t.data != nullptr;
    t.length = t.isConstant ? operand.location.length : 0;
  }
  return tensors;
}

std::vector<Status> checkOperations(const hal::Model& model) {
  std::vector<Tensor> tensors = staticTensors(model, model.main);
  std::vector<Status> results;
  results.reserve(model.main.operations.size());
  for (const hal::Operation& operation : model.main.operations) {
    const OperationKernel* kernel = findKernel(operation.type);
    if (kernel == nullptr) {
      results.push_back(makeError(ErrorStatus::INVALID_ARGUMENT)
                        << hal::toString(operation.type) << " is not implemented by the simulator");
      continue;
    }
    OperationContext context = makeContext(operation, tensors);
    results.push_back(LoweredOperation(*kernel, context).validate());
  }
  return results;
}

namespace {

// The bytes an operation reads (split into activations and constants) and writes.
void addOperandBytes(const OperationContext& context, OperationWork* work) {
  for (size_t i = 0; i < context.inputCount(); ++i) {
    const Tensor& t = context.input(i);
    if (t.isOmitted || !hal::isTensor(t.type)) continue;
    const uint64_t bytes = t.elementCount() * hal::elementSize(t.type);
    (t.isConstant ? work->weightBytes : work->activationBytes) += bytes;
  }
  for (size_t i = 0; i < context.outputCount(); ++i) {
    const Tensor& t = context.output(i);
    work->outputBytes += t.elementCount() * hal::elementSize(t.type);
  }
}

}  // namespace

hal::Result<ExecutionReport> executeGraph(const hal::Model& model, const hal::Request& request,
                                          const NpuConfig& npu, bool withTiming, OperationState* states) {
  const hal::Model::Subgraph& main = model.main;
  for (size_t i = 0; i < request.pools.size(); ++i) {
    if (!std::holds_alternative<hal::SharedMemory>(request.pools[i])) {
      return makeError(ErrorStatus::INVALID_ARGUMENT)
             << "request.pools[" << i << "] is a device buffer; memory domains are not supported "
             << "by this device yet";
    }
  }
  std::vector<Tensor> tensors = staticTensors(model, main);
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    const hal::Request::Argument& argument = request.inputs[i];
    Tensor& t = tensors[main.inputIndexes[i]];
    if (argument.lifetime == hal::Request::Argument::LifeTime::NO_VALUE) {
      t.isOmitted = true;
      continue;
    }
    if (!argument.dimensions.empty()) t.dimensions = argument.dimensions;
    t.data = argument.lifetime == hal::Request::Argument::LifeTime::POINTER
                 ? static_cast<uint8_t*>(const_cast<void*>(argument.location.pointer))
                 : poolData(request, argument.location.poolIndex) + argument.location.offset;
    t.length = argument.location.length;
  }
  // Outputs given more precise dimensions by the request use them as their declaration.
  std::vector<std::vector<uint32_t>> declared(main.operands.size());
  for (size_t i = 0; i < main.operands.size(); ++i) declared[i] = main.operands[i].dimensions;
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    if (!request.outputs[i].dimensions.empty()) {
      declared[main.outputIndexes[i]] = request.outputs[i].dimensions;
    }
  }

  // Where each model output's request argument lives, if anywhere.
  std::vector<uint8_t*> outputDestination(main.operands.size(), nullptr);
  std::vector<uint64_t> outputCapacity(main.operands.size(), 0);
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    const hal::Request::Argument& argument = request.outputs[i];
    outputDestination[main.outputIndexes[i]] =
        argument.lifetime == hal::Request::Argument::LifeTime::POINTER
            ? static_cast<uint8_t*>(const_cast<void*>(argument.location.pointer))
            : poolData(request, argument.location.poolIndex) + argument.location.offset;
    outputCapacity[main.outputIndexes[i]] = argument.location.length;
  }
  std::vector<std::unique_ptr<uint8_t[]>> storage(main.operands.size());
  ExecutionReport report;
  for (size_t op = 0; op < main.operations.size(); ++op) {
    const hal::Operation& operation = main.operations[op];
    const OperationKernel* kernel = findKernel(operation.type);
    OperationContext context = makeContext(operation, tensors);
    if (states != nullptr) context.setState(&states[op]);
    LoweredOperation lowered(*kernel, context);
    auto failed = [&](const hal::Error& error) {
      hal::Error e = error;
      e.message = "operations[" + std::to_string(op) + "] " + e.message;
      return e;
    };
    // Validated again with the real shapes, which may have been unknown at preparation.
    if (Status status = lowered.validate(); !status.ok()) return failed(status.error());
    if (Status status = lowered.prepare(); !status.ok()) return failed(status.error());
    for (uint32_t index : operation.outputs) {
      Tensor& t = tensors[index];
      if (!isCompatible(declared[index], t.dimensions)) {
        return makeError(ErrorStatus::INVALID_ARGUMENT)
               << "operations[" << op << "] computes dimensions " << hal::toString(t.dimensions)
               << " for operand " << index << ", which the model declares as "
               << hal::toString(declared[index]);
      }
      const auto size = hal::sizeOfData(t.type, t.dimensions);
      if (!size.has_value()) {
        return makeError(ErrorStatus::INVALID_ARGUMENT)
               << "operations[" << op << "] output " << index << " of dimensions "
               << hal::toString(t.dimensions) << " is too large";
      }
      // A model output whose request buffer has room is written in place, saving a copy.
      if (uint8_t* destination = outputDestination[index];
          destination != nullptr && *size <= outputCapacity[index]) {
        t.data = destination;
        t.length = *size;
        continue;
      }
      // Kernels write every element of their outputs, so the storage need not be cleared.
      storage[index].reset(new (std::nothrow) uint8_t[*size == 0 ? 1 : *size]);
      if (storage[index] == nullptr) {
        return makeError(ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT)
               << "cannot allocate " << *size << " bytes for operand " << index;
      }
      t.data = storage[index].get();
      t.length = *size;
    }
    const auto kernelStart = std::chrono::steady_clock::now();
    if (Status status = lowered.execute(); !status.ok()) return failed(status.error());
    report.kernelNanoseconds += std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::steady_clock::now() - kernelStart)
                                    .count();
    if (withTiming) {
      const auto timingStart = std::chrono::steady_clock::now();
      OperationWork work = lowered.work();
      addOperandBytes(context, &work);
      hal::OperationProfile timing = estimateOperation(work, operation.type, npu);
      timing.operationIndex = static_cast<uint32_t>(op);
      timing.startCycle = report.profile.totalCycles;
      report.profile.totalCycles += timing.totalCycles;
      report.profile.operations.push_back(timing);
      report.timingModelNanoseconds += std::chrono::duration_cast<std::chrono::nanoseconds>(
                                           std::chrono::steady_clock::now() - timingStart)
                                           .count();
    }
  }

  bool sufficient = true;
  report.outputShapes.resize(request.outputs.size());
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    const Tensor& t = tensors[main.outputIndexes[i]];
    const uint64_t needed = hal::sizeOfData(t.type, t.dimensions).value_or(UINT32_MAX);
    report.outputShapes[i].dimensions = t.dimensions;
    report.outputShapes[i].isSufficient = needed <= request.outputs[i].location.length;
    sufficient = sufficient && report.outputShapes[i].isSufficient;
  }
  if (!sufficient) {
    hal::Error error = makeError(ErrorStatus::OUTPUT_INSUFFICIENT_SIZE)
                       << "an output buffer is too small for its result";
    error.outputShapes = report.outputShapes;
    return error;
  }
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    const Tensor& t = tensors[main.outputIndexes[i]];
    uint8_t* destination = outputDestination[main.outputIndexes[i]];
    if (t.length && t.data != destination) std::memcpy(destination, t.data, t.length);
  }
  return report;
}

}  // namespace nnremote::sim
