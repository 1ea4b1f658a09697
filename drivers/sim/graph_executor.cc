#include "drivers/sim/graph_executor.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>

#include "drivers/sim/data_residency.h"
#include "drivers/sim/extensions/extension_registry.h"
#include "drivers/sim/graph_utils.h"
#include "drivers/sim/npu_config.h"
#include "drivers/sim/operand_lowering.h"
#include "drivers/sim/operation_registry.h"
#include "hal/operand_types.h"

namespace nnremote::sim {
namespace {

using hal::ErrorStatus;
using hal::makeError;
using Subgraph = hal::Model::Subgraph;

// Dimensions the model fixed must agree with what the operation computed.
bool isCompatible(const std::vector<uint32_t>& declared, const std::vector<uint32_t>& actual) {
  if (declared.empty()) return true;
  if (declared.size() != actual.size()) return false;
  for (size_t i = 0; i < declared.size(); ++i) {
    if (declared[i] != 0 && declared[i] != actual[i]) return false;
  }
  return true;
}

// Whether elements of `elementBytes` can be read and written through typed pointers at `data`.
bool isAligned(const uint8_t* data, uint32_t elementBytes) {
  const uintptr_t alignment = std::min<uint32_t>(std::max<uint32_t>(elementBytes, 1), 8);
  return reinterpret_cast<uintptr_t>(data) % alignment == 0;
}

uint8_t* poolData(const hal::Request& request, uint32_t poolIndex) {
  return std::get<hal::SharedMemory>(request.pools[poolIndex])->data();
}

// The bytes an operation reads (split into activations and constants) and writes.
void addOperandBytes(const OperationContext& context, OperationWork* work) {
  for (size_t i = 0; i < context.inputCount(); ++i) {
    const Tensor& t = context.input(i);
    if (t.isOmitted || !hal::isTensor(t.type)) continue;
    const uint64_t bytes = t.elementCount() * t.elementBytes;
    (t.isConstant ? work->weightBytes : work->activationBytes) += bytes;
  }
  for (size_t i = 0; i < context.outputCount(); ++i) {
    const Tensor& t = context.output(i);
    work->outputBytes += t.elementCount() * t.elementBytes;
  }
}

// Adds what `inner` cost to `outer`, an IF or WHILE that ran it.
void accumulate(const hal::OperationProfile& inner, hal::OperationProfile* outer) {
  outer->computeCycles += inner.computeCycles;
  outer->stallCycles += inner.stallCycles;
  outer->overheadCycles += inner.overheadCycles;
  outer->totalCycles += inner.totalCycles;
  outer->macs += inner.macs;
  outer->dramReadBytes += inner.dramReadBytes;
  outer->dramWriteBytes += inner.dramWriteBytes;
  outer->sramReadBytes += inner.sramReadBytes;
  outer->sramWriteBytes += inner.sramWriteBytes;
  outer->dramCycles += inner.dramCycles;
}

// Where one subgraph run puts its outputs: in place in the request's buffers for main's
// outputs that fit, else in storage the run owns.
struct OutputPlacement {
  std::vector<std::vector<uint32_t>> declared;  // per operand
  std::vector<uint8_t*> destination;            // per operand; null if none
  std::vector<uint64_t> capacity;               // per operand
};

class GraphRunner {
 public:
  GraphRunner(const hal::Model& model, const NpuConfig& npu, const ExecutionOptions& options)
      : model_(model), npu_(npu), options_(options) {
    size_t offset = model.main.operations.size();
    for (const Subgraph& subgraph : model.referenced) {
      stateOffsets_.push_back(offset);
      offset += subgraph.operations.size();
    }
    if (npu.has_parameter_cache()) residentConstants_ = placeConstantsInCache(model, npu);
    if (npu.has_host_link()) hostTransfers_ = findHostTransfers(model, npu);
  }

  ExecutionReport& report() { return report_; }
  // Device memory already taken when main's first operation runs.
  void setBytesInUse(uint64_t bytes) { bytesInUse_ = bytes; }
  // Main's placement: tensors placed with it count towards device memory until the end.
  void setMainPlacement(const OutputPlacement* placement) { mainPlacement_ = placement; }

  // Runs the operations of subgraph `subgraphIndex` over `tensors`, whose inputs and constants
  // are bound. With `cost`, each operation's profile is added to it (the enclosing IF or WHILE);
  // without, it is reported as one of main's operations.
  Status run(int subgraphIndex, std::vector<Tensor>& tensors, std::vector<std::unique_ptr<uint8_t[]>>& storage,
             const OutputPlacement& placement, hal::OperationProfile* cost) {
    const Subgraph& subgraph = subgraphAt(model_, subgraphIndex);
    for (size_t op = 0; op < subgraph.operations.size(); ++op) {
      const hal::Operation& operation = subgraph.operations[op];
      hal::OperationProfile profile;
      profile.operationIndex = static_cast<uint32_t>(op);
      profile.type = operation.type;
      Status status = isControlFlow(operation.type)
                          ? runControlFlow(operation, tensors, storage, placement, &profile)
                          : runKernel(subgraphIndex, op, operation, tensors, storage, placement, &profile);
      if (!status.ok()) {
        hal::Error error = status.error();
        // The request was checked before the graph ran, so an operation that cannot run on the
        // shapes and values it meets failed to execute, as Android's CpuExecutor (OP_FAILED) has it.
        if (error.code == ErrorStatus::INVALID_ARGUMENT) error.code = ErrorStatus::GENERAL_FAILURE;
        const std::string where = subgraphIndex < 0 ? "" : "referenced[" + std::to_string(subgraphIndex) + "].";
        error.message = where + "operations[" + std::to_string(op) + "] " + error.message;
        return error;
      }
      if (!options_.withTiming) continue;
      if (cost != nullptr) {
        accumulate(profile, cost);
      } else {
        profile.startCycle = report_.profile.totalCycles;
        report_.profile.totalCycles += profile.totalCycles;
        report_.profile.operations.push_back(profile);
      }
    }
    return {};
  }

  // A request that omits an input (NO_VALUE) shows kernels what preparation did not.
  void setRequestOmitsInputs(bool omits) { requestOmitsInputs_ = omits; }

 private:
  bool isSettled(int subgraphIndex, size_t op) const {
    return subgraphIndex < 0 && !requestOmitsInputs_ && options_.settled != nullptr && op < options_.settled->size() &&
           (*options_.settled)[op];
  }

  OperationState* stateFor(int subgraphIndex, size_t op) {
    if (options_.states == nullptr) return nullptr;
    return &options_.states[subgraphIndex < 0 ? op : stateOffsets_[subgraphIndex] + op];
  }

  // Gives the operation's outputs (whose dimensions are set) memory: in place in the request
  // where `placement` allows, else in `storage`.
  Status allocateOutputs(const hal::Operation& operation, std::vector<Tensor>& tensors,
                         std::vector<std::unique_ptr<uint8_t[]>>& storage, const OutputPlacement& placement) {
    for (uint32_t index : operation.outputs) {
      Tensor& t = tensors[index];
      if (!isCompatible(placement.declared[index], t.dimensions)) {
        return makeError(ErrorStatus::INVALID_ARGUMENT)
               << "computes dimensions " << hal::toString(t.dimensions) << " for operand " << index
               << ", which the model declares as " << hal::toString(placement.declared[index]);
      }
      const auto size = t.byteSize();
      if (!size.has_value()) {
        return makeError(ErrorStatus::INVALID_ARGUMENT)
               << "output " << index << " of dimensions " << hal::toString(t.dimensions) << " is too large";
      }
      NN_RETURN_IF_ERROR(reserveDeviceMemory(index, t, *size, placement));
      // A model output whose request buffer has room is written in place, saving a copy.
      // (Kernels write elements through typed pointers, so only an aligned buffer will do.)
      if (uint8_t* destination = placement.destination[index];
          destination != nullptr && *size <= placement.capacity[index] && isAligned(destination, t.elementBytes)) {
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
    return {};
  }

  // Refuses, before allocating, a tensor that does not fit in the device's memory. Main's
  // tensors add up (they live until the execution ends); a referenced subgraph's are checked one
  // at a time, since a loop's iterations reuse the memory.
  Status reserveDeviceMemory(uint32_t index, const Tensor& t, uint64_t size, const OutputPlacement& placement) {
    const uint64_t capacity = options_.deviceMemoryBytes;
    if (capacity == 0) return {};
    const bool inMain = &placement == mainPlacement_;
    const uint64_t inUse = inMain ? bytesInUse_ : options_.residentBytes;
    if (inUse + size > capacity) {
      return makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
             << "needs " << size << " bytes for operand " << index << " of dimensions "
             << hal::toString(t.dimensions) << ", but " << inUse << " of the device's " << capacity
             << " bytes of memory are in use (dram.capacity_mib = " << (capacity >> 20) << ")";
    }
    if (inMain) bytesInUse_ += size;
    return {};
  }

  Status runKernel(int subgraphIndex, size_t op, const hal::Operation& operation, std::vector<Tensor>& tensors,
                   std::vector<std::unique_ptr<uint8_t[]>>& storage, const OutputPlacement& placement,
                   hal::OperationProfile* profile) {
    const OperationKernel* kernel = findKernel(model_, operation.type);
    OperationContext context = makeContext(operation, tensors);
    context.setState(stateFor(subgraphIndex, op));
    LoweredOperation lowered(*kernel, context);
    // Checked again with the real shapes and values, unless preparation already saw them all.
    if (!isSettled(subgraphIndex, op)) NN_RETURN_IF_ERROR(lowered.validate());
    NN_RETURN_IF_ERROR(lowered.prepare());
    NN_RETURN_IF_ERROR(allocateOutputs(operation, tensors, storage, placement));
    const auto kernelStart = std::chrono::steady_clock::now();
    NN_RETURN_IF_ERROR(lowered.execute());
    report_.kernelNanoseconds +=
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - kernelStart).count();
    if (options_.withTiming) {
      const auto timingStart = std::chrono::steady_clock::now();
      OperationWork work = lowered.work();
      addOperandBytes(context, &work);
      work.weightsResident = subgraphIndex < 0 && op < residentConstants_.size() && residentConstants_[op];
      if (subgraphIndex < 0 && op < hostTransfers_.crossingInputsOf.size()) {
        for (uint32_t input : hostTransfers_.crossingInputsOf[op]) {
          work.hostInputBytes += tensors[input].elementCount() * tensors[input].elementBytes;
        }
        for (uint32_t output : operation.outputs) {
          if (hostTransfers_.writesCrossingOutputs[op] && hostTransfers_.modelOutputs.count(output)) {
            work.hostOutputBytes += tensors[output].elementCount() * tensors[output].elementBytes;
          }
        }
      }
      const hal::OperationProfile timing = estimateOperation(work, operation.type, npu_);
      if (timing.unit == hal::ProfileUnit::HOST) report_.profile.hostCpuCycles += timing.totalCycles;
      const uint32_t index = profile->operationIndex;
      *profile = timing;
      profile->operationIndex = index;
      report_.timingModelNanoseconds +=
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - timingStart)
              .count();
    }
    return {};
  }

  // Runs referenced subgraph `index` on `inputs` and returns its outputs, whose data lives in
  // `storage` (or, for outputs that are inputs passed through, in the inputs' memory).
  Status call(uint32_t index, const std::vector<const Tensor*>& inputs, std::vector<Tensor>* outputs,
              std::vector<std::unique_ptr<uint8_t[]>>& storage, hal::OperationProfile* cost) {
    const Subgraph& subgraph = model_.referenced[index];
    std::vector<Tensor> tensors = staticTensors(model_, subgraph);
    for (size_t i = 0; i < subgraph.inputIndexes.size(); ++i) {
      Tensor& t = tensors[subgraph.inputIndexes[i]];
      const Tensor& given = *inputs[i];
      t.dimensions = given.dimensions;
      t.data = given.data;
      t.length = given.length;
      t.isOmitted = given.isOmitted;
    }
    storage.clear();
    storage.resize(subgraph.operands.size());
    OutputPlacement placement;
    placement.declared.resize(subgraph.operands.size());
    for (size_t i = 0; i < subgraph.operands.size(); ++i) placement.declared[i] = subgraph.operands[i].dimensions;
    placement.destination.assign(subgraph.operands.size(), nullptr);
    placement.capacity.assign(subgraph.operands.size(), 0);
    NN_RETURN_IF_ERROR(run(int(index), tensors, storage, placement, cost));
    outputs->clear();
    for (uint32_t output : subgraph.outputIndexes) outputs->push_back(tensors[output]);
    return {};
  }

  // Copies a subgraph's results into the operation's outputs.
  Status storeResults(const hal::Operation& operation, const std::vector<Tensor>& results,
                      std::vector<Tensor>& tensors, std::vector<std::unique_ptr<uint8_t[]>>& storage,
                      const OutputPlacement& placement) {
    for (size_t i = 0; i < operation.outputs.size(); ++i) tensors[operation.outputs[i]].dimensions = results[i].dimensions;
    NN_RETURN_IF_ERROR(allocateOutputs(operation, tensors, storage, placement));
    for (size_t i = 0; i < operation.outputs.size(); ++i) {
      Tensor& out = tensors[operation.outputs[i]];
      if (out.length != 0 && results[i].data != nullptr) std::memcpy(out.data, results[i].data, out.length);
    }
    return {};
  }

  // The condition's value: a TENSOR_BOOL8 of one element.
  static Status readCondition(const Tensor& condition, bool* value) {
    if (condition.isOmitted || condition.data == nullptr) {
      return makeError(ErrorStatus::INVALID_ARGUMENT) << "the condition has no value (it is omitted)";
    }
    if (condition.elementCount() != 1) {
      return makeError(ErrorStatus::INVALID_ARGUMENT)
             << "the condition must be a TENSOR_BOOL8 of one element, has dimensions "
             << hal::toString(condition.dimensions);
    }
    *value = condition.data[0] != 0;
    return {};
  }

  // The sequencer reads the condition back from device memory before it can branch, and each
  // branch it takes is an operation to start.
  void chargeDecision(hal::OperationProfile* profile) const {
    if (!options_.withTiming) return;
    const uint64_t latency = npu_.dram().latency_cycles();
    profile->computeCycles += latency;
    profile->overheadCycles += npu_.operation_overhead_cycles();
    profile->totalCycles += latency + npu_.operation_overhead_cycles();
    profile->dramReadBytes += 1;
  }

  Status runControlFlow(const hal::Operation& operation, std::vector<Tensor>& tensors,
                        std::vector<std::unique_ptr<uint8_t[]>>& storage, const OutputPlacement& placement,
                        hal::OperationProfile* profile) {
    profile->unit = hal::ProfileUnit::OTHER;
    std::vector<std::unique_ptr<uint8_t[]>> calleeStorage;
    std::vector<Tensor> results;
    if (operation.type == OperationType::IF) {
      bool condition = false;
      NN_RETURN_IF_ERROR(readCondition(tensors[operation.inputs[0]], &condition));
      chargeDecision(profile);
      const uint32_t branch = referencedIndex(tensors[operation.inputs[condition ? 1 : 2]]);
      std::vector<const Tensor*> inputs;
      for (size_t i = 3; i < operation.inputs.size(); ++i) inputs.push_back(&tensors[operation.inputs[i]]);
      NN_RETURN_IF_ERROR(call(branch, inputs, &results, calleeStorage, profile));
      return storeResults(operation, results, tensors, storage, placement);
    }
    return runWhile(operation, tensors, storage, placement, profile);
  }

  // WHILE: m loop-carried values, k loop-state values and n read-only inputs follow the
  // condition and the body; the body maps the m + k + n values to the next m + k.
  Status runWhile(const hal::Operation& operation, std::vector<Tensor>& tensors,
                  std::vector<std::unique_ptr<uint8_t[]>>& storage, const OutputPlacement& placement,
                  hal::OperationProfile* profile) {
    const uint32_t condition = referencedIndex(tensors[operation.inputs[0]]);
    const uint32_t body = referencedIndex(tensors[operation.inputs[1]]);
    const size_t updated = model_.referenced[body].outputIndexes.size();  // m + k
    // The loop's state: values owned here, since the body's results outlive its storage.
    std::vector<Tensor> state;
    std::vector<std::vector<uint8_t>> stateData(operation.inputs.size() - 2);
    for (size_t i = 2; i < operation.inputs.size(); ++i) state.push_back(tensors[operation.inputs[i]]);
    auto adopt = [&](size_t i, const Tensor& value) {
      const uint8_t* from = value.data;
      stateData[i].assign(from, from == nullptr ? from : from + value.length);
      state[i] = value;
      state[i].data = stateData[i].data();
      state[i].isConstant = false;
    };
    for (size_t i = 0; i < updated; ++i) adopt(i, state[i]);

    const auto start = hal::Clock::now();
    std::vector<std::unique_ptr<uint8_t[]>> calleeStorage;
    std::vector<Tensor> results;
    while (true) {
      if (hal::Clock::now() - start > options_.loopTimeout) {
        return makeError(ErrorStatus::MISSED_DEADLINE_TRANSIENT)
               << "WHILE ran longer than the loop timeout of "
               << std::chrono::duration_cast<std::chrono::milliseconds>(options_.loopTimeout).count() << " ms";
      }
      std::vector<const Tensor*> inputs;
      for (const Tensor& t : state) inputs.push_back(&t);
      NN_RETURN_IF_ERROR(call(condition, inputs, &results, calleeStorage, profile));
      bool more = false;
      NN_RETURN_IF_ERROR(readCondition(results[0], &more));
      chargeDecision(profile);
      if (!more) break;
      NN_RETURN_IF_ERROR(call(body, inputs, &results, calleeStorage, profile));
      for (size_t i = 0; i < updated; ++i) adopt(i, results[i]);
    }
    state.resize(operation.outputs.size());
    return storeResults(operation, state, tensors, storage, placement);
  }

  const hal::Model& model_;
  const NpuConfig& npu_;
  const ExecutionOptions& options_;
  std::vector<bool> residentConstants_;  // per main operation, with a parameter cache
  HostTransfers hostTransfers_;          // with a host link
  std::vector<size_t> stateOffsets_;  // per referenced subgraph, after main's operations
  ExecutionReport report_;
  const OutputPlacement* mainPlacement_ = nullptr;
  uint64_t bytesInUse_ = 0;
  bool requestOmitsInputs_ = false;
};

}  // namespace

size_t operationStateCount(const hal::Model& model) {
  size_t count = model.main.operations.size();
  for (const Subgraph& subgraph : model.referenced) count += subgraph.operations.size();
  return count;
}

hal::Result<ExecutionReport> executeGraph(const hal::Model& model, const hal::Request& request,
                                          const NpuConfig& npu, const ExecutionOptions& options) {
  const Subgraph& main = model.main;
  for (size_t i = 0; i < request.pools.size(); ++i) {
    if (!std::holds_alternative<hal::SharedMemory>(request.pools[i])) {
      return makeError(ErrorStatus::INVALID_ARGUMENT)
             << "request.pools[" << i << "] is a device buffer; memory domains are not supported "
             << "by this device yet";
    }
  }
  std::vector<Tensor> tensors = staticTensors(model, main);
  std::vector<std::unique_ptr<uint8_t[]>> alignedInputs;
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    const hal::Request::Argument& argument = request.inputs[i];
    Tensor& t = tensors[main.inputIndexes[i]];
    if (argument.lifetime == hal::Request::Argument::LifeTime::NO_VALUE) {
      t.isOmitted = true;
      continue;
    }
    if (!argument.dimensions.empty()) t.dimensions = argument.dimensions;
    // The HAL's request validation cannot size an extension type; the device can.
    if (hal::isExtension(t.type) && (!t.byteSize().has_value() || *t.byteSize() != argument.location.length)) {
      return makeError(ErrorStatus::INVALID_ARGUMENT)
             << "request.inputs[" << i << "].location.length = " << argument.location.length << " but "
             << extensionOperandTypeName(model, t.type) << " of dimensions " << hal::toString(t.dimensions)
             << " needs " << t.byteSize().value_or(0) << " bytes";
    }
    t.data = argument.lifetime == hal::Request::Argument::LifeTime::POINTER
                 ? static_cast<uint8_t*>(const_cast<void*>(argument.location.pointer))
                 : poolData(request, argument.location.poolIndex) + argument.location.offset;
    t.length = argument.location.length;
    // A client may place an argument at any offset; kernels read elements through typed
    // pointers, so a misaligned one is copied into alignment first.
    if (!isAligned(t.data, t.elementBytes)) {
      alignedInputs.emplace_back(new (std::nothrow) uint8_t[t.length == 0 ? 1 : t.length]);
      if (alignedInputs.back() == nullptr) {
        return makeError(ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT) << "cannot allocate " << t.length << " bytes";
      }
      std::memcpy(alignedInputs.back().get(), t.data, t.length);
      t.data = alignedInputs.back().get();
    }
  }
  // Outputs given more precise dimensions by the request use them as their declaration, and
  // are written in place in the request's buffers when they fit.
  OutputPlacement placement;
  placement.declared.resize(main.operands.size());
  for (size_t i = 0; i < main.operands.size(); ++i) placement.declared[i] = main.operands[i].dimensions;
  placement.destination.assign(main.operands.size(), nullptr);
  placement.capacity.assign(main.operands.size(), 0);
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    const hal::Request::Argument& argument = request.outputs[i];
    const uint32_t index = main.outputIndexes[i];
    if (!argument.dimensions.empty()) placement.declared[index] = argument.dimensions;
    placement.destination[index] =
        argument.lifetime == hal::Request::Argument::LifeTime::POINTER
            ? static_cast<uint8_t*>(const_cast<void*>(argument.location.pointer))
            : poolData(request, argument.location.poolIndex) + argument.location.offset;
    placement.capacity[index] = argument.location.length;
  }

  std::vector<std::unique_ptr<uint8_t[]>> storage(main.operands.size());
  GraphRunner runner(model, npu, options);
  runner.setMainPlacement(&placement);
  runner.setRequestOmitsInputs(std::any_of(request.inputs.begin(), request.inputs.end(), [](const auto& argument) {
    return argument.lifetime == hal::Request::Argument::LifeTime::NO_VALUE;
  }));
  uint64_t inputBytes = 0;
  for (const auto& argument : request.inputs) inputBytes += argument.location.length;
  runner.setBytesInUse(options.residentBytes + inputBytes);
  NN_RETURN_IF_ERROR(runner.run(-1, tensors, storage, placement, nullptr));
  ExecutionReport& report = runner.report();

  bool sufficient = true;
  report.outputShapes.resize(request.outputs.size());
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    const Tensor& t = tensors[main.outputIndexes[i]];
    const uint64_t needed = t.byteSize().value_or(UINT32_MAX);
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
    const uint32_t index = main.outputIndexes[i];
    const Tensor& t = tensors[index];
    uint8_t* destination = placement.destination[index];
    if (t.length && t.data != destination) std::memcpy(destination, t.data, t.length);
  }
  return std::move(report);
}

}  // namespace nnremote::sim
