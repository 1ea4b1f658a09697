#include "accelerator_sim/graph_executor.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>

#include "accelerator_sim/extensions/extension_registry.h"
#include "accelerator_sim/npu_config.h"
#include "accelerator_sim/operand_lowering.h"
#include "accelerator_sim/operation_registry.h"
#include "hal/operand_types.h"

namespace nnremote::sim {
namespace {

using hal::ErrorStatus;
using hal::makeError;
using LifeTime = hal::Operand::LifeTime;
using Subgraph = hal::Model::Subgraph;

OperationContext makeContext(const hal::Operation& operation, std::vector<Tensor>& tensors) {
  std::vector<Tensor*> inputs, outputs;
  inputs.reserve(operation.inputs.size());
  for (uint32_t i : operation.inputs) inputs.push_back(&tensors[i]);
  for (uint32_t i : operation.outputs) outputs.push_back(&tensors[i]);
  return OperationContext(operation.type, std::move(inputs), std::move(outputs));
}

bool isControlFlow(OperationType type) { return type == OperationType::IF || type == OperationType::WHILE; }

const Subgraph& subgraphAt(const hal::Model& model, int index) {
  return index < 0 ? model.main : model.referenced[index];
}

// The referenced subgraph a SUBGRAPH operand names.
uint32_t referencedIndex(const Tensor& t) { return static_cast<uint32_t>(t.subgraph); }

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

// Every operation of `subgraph` (and of the subgraphs its IF and WHILE operations call) checked
// with its kernel; one entry per operation of `subgraph`.
std::vector<Status> checkSubgraph(const hal::Model& model, int subgraphIndex, std::vector<int>& checking);

Status checkReferenced(const hal::Model& model, uint32_t index, std::vector<int>& checking) {
  for (int onPath : checking) {
    if (onPath == int(index)) return {};  // validateModel rules out cycles; nothing new to check
  }
  checking.push_back(int(index));
  const std::vector<Status> results = checkSubgraph(model, int(index), checking);
  checking.pop_back();
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

std::vector<Status> checkSubgraph(const hal::Model& model, int subgraphIndex, std::vector<int>& checking) {
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
        if (operand.type == OperandType::SUBGRAPH) status = checkReferenced(model, referencedIndex(operand), checking);
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
    OperationContext context = makeContext(operation, tensors);
    results.push_back(LoweredOperation(*kernel, context).validate());
  }
  return results;
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
    if (npu.has_parameter_cache()) placeConstantsInCache();
    if (npu.has_host_link()) findHostTransfers();
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
      if (subgraphIndex < 0 && op < crossingInputsOf_.size()) {
        for (uint32_t input : crossingInputsOf_[op]) work.hostInputBytes += tensors[input].elementCount() * tensors[input].elementBytes;
        for (uint32_t output : operation.outputs) {
          if (writesCrossingOutputs_[op] && modelOutputs_.count(output)) {
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
    if (condition.data == nullptr || condition.isOmitted || condition.elementCount() != 1) {
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

  // The parameter cache's contents: main's operations in order, each resident if its constants
  // (not counted again when shared) still fit; the first that does not fit, and every later one,
  // streams. Referenced subgraphs' constants always stream.
  void placeConstantsInCache() {
    const uint64_t capacity = uint64_t{npu_.parameter_cache().capacity_kib()} * 1024;
    std::vector<bool> placed(model_.main.operands.size(), false);
    uint64_t used = 0;
    bool full = false;
    for (const hal::Operation& operation : model_.main.operations) {
      uint64_t bytes = 0;
      for (uint32_t input : operation.inputs) {
        const hal::Operand& operand = model_.main.operands[input];
        const bool constant = operand.lifetime == hal::Operand::LifeTime::CONSTANT_COPY ||
                              operand.lifetime == hal::Operand::LifeTime::CONSTANT_REFERENCE ||
                              operand.lifetime == hal::Operand::LifeTime::POINTER;
        if (!constant || !hal::isTensor(operand.type) || placed[input]) continue;
        bytes += operand.location.length;
        placed[input] = true;
      }
      full = full || used + bytes > capacity;
      if (!full) used += bytes;
      residentConstants_.push_back(!full);
    }
  }

  // What crosses the host link before each main operation runs, and the model's outputs. The
  // model's inputs start in host memory. An NPU operation needs brought over the inputs it is the
  // first NPU operation to read; an operation the host's CPU runs (NpuConfig.host_cpu), the
  // NPU's results it is the first host operation to read. Results the host CPU writes are in
  // host memory, so its model outputs cost nothing more.
  void findHostTransfers() {
    const auto& main = model_.main;
    std::vector<bool> onHost(main.operands.size(), false), onDevice(main.operands.size(), false);
    for (uint32_t input : main.inputIndexes) onHost[input] = true;
    modelOutputs_.insert(main.outputIndexes.begin(), main.outputIndexes.end());
    for (const hal::Operation& operation : main.operations) {
      const bool hostCpu = runsOnHostCpu(npu_, operation.type);
      std::vector<bool>& here = hostCpu ? onHost : onDevice;
      std::vector<uint32_t> crossing;
      for (uint32_t input : operation.inputs) {
        if (!producedAtRunTime(main.operands[input].lifetime) || here[input]) continue;
        crossing.push_back(input);
        here[input] = true;
      }
      crossingInputsOf_.push_back(std::move(crossing));
      for (uint32_t output : operation.outputs) {
        here[output] = true;
        // An NPU operation's model outputs cross back to the host as it writes them.
        if (!hostCpu && modelOutputs_.count(output)) onHost[output] = true;
      }
      writesCrossingOutputs_.push_back(!hostCpu);
    }
  }

  static bool producedAtRunTime(hal::Operand::LifeTime lifetime) {
    return lifetime == hal::Operand::LifeTime::SUBGRAPH_INPUT ||
           lifetime == hal::Operand::LifeTime::SUBGRAPH_OUTPUT ||
           lifetime == hal::Operand::LifeTime::TEMPORARY_VARIABLE;
  }

  const hal::Model& model_;
  const NpuConfig& npu_;
  const ExecutionOptions& options_;
  std::vector<bool> residentConstants_;  // per main operation, with a parameter cache
  // Per main operation, with a host link: the inputs that cross it before the operation runs,
  // and whether the model outputs it writes cross back (not when the host CPU ran it).
  std::vector<std::vector<uint32_t>> crossingInputsOf_;
  std::vector<bool> writesCrossingOutputs_;
  std::set<uint32_t> modelOutputs_;
  std::vector<size_t> stateOffsets_;  // per referenced subgraph, after main's operations
  ExecutionReport report_;
  const OutputPlacement* mainPlacement_ = nullptr;
  uint64_t bytesInUse_ = 0;
  bool requestOmitsInputs_ = false;
};

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

std::vector<Status> checkOperations(const hal::Model& model) {
  std::vector<int> checking;
  return checkSubgraph(model, -1, checking);
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
