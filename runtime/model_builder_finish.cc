// ModelBuilder::finish() and what it takes to turn the draft into the complete hal::Model: the
// values too large to copy moved into a pool, the operations sorted into an execution order, and
// the builder with every model it references flattened into one hal::Model.
#include <cstring>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <utility>

#include "hal/operand_types.h"
#include "hal/validation.h"
#include "runtime/constant_values.h"
#include "runtime/extension_prefixes.h"
#include "runtime/model_builder.h"

namespace nnremote::runtime {

using hal::Operand;
using LifeTime = hal::Operand::LifeTime;

// Builds the complete hal::Model of a finished builder: its main subgraph and, once each, every
// builder it reaches through SUBGRAPH operands, with their constants gathered into one model.
class ModelBuilder::Flattener {
 public:
  hal::Model run(const ModelBuilder& main) {
    model_.main = adopt(main);
    model_.relaxComputationFloat32toFloat16 = main.draft_.relaxComputationFloat32toFloat16;
    return std::move(model_);
  }

 private:
  hal::Model::Subgraph adopt(const ModelBuilder& builder) {
    hal::Model::Subgraph subgraph = builder.draft_.main;
    for (Operand& operand : subgraph.operands) {
      hal::DataLocation& location = operand.location;
      switch (operand.lifetime) {
        case LifeTime::CONSTANT_COPY:
          location.offset = appendAligned(model_.operandValues, builder.draft_.operandValues.data() + location.offset,
                                          location.length);
          break;
        case LifeTime::CONSTANT_REFERENCE:
          location.poolIndex = poolIndex(builder.draft_.pools[location.poolIndex]);
          break;
        case LifeTime::SUBGRAPH:
          location.offset = subgraphIndex(*builder.referencedModels_[location.offset]);
          break;
        default:
          break;
      }
      noteExtension(static_cast<int32_t>(operand.type));
    }
    for (const hal::Operation& operation : subgraph.operations) noteExtension(static_cast<int32_t>(operation.type));
    return subgraph;
  }

  uint32_t subgraphIndex(const ModelBuilder& builder) {
    const auto [it, added] = subgraphs_.emplace(&builder, static_cast<uint32_t>(model_.referenced.size()));
    const uint32_t index = it->second;
    if (added) {
      model_.referenced.emplace_back();  // reserves the index before the subgraphs it reaches
      hal::Model::Subgraph subgraph = adopt(builder);
      model_.referenced[index] = std::move(subgraph);
    }
    return index;
  }

  uint32_t poolIndex(const hal::SharedMemory& memory) {
    const auto [it, added] = pools_.emplace(memory.get(), static_cast<uint32_t>(model_.pools.size()));
    if (added) model_.pools.push_back(memory);
    return it->second;
  }

  void noteExtension(int32_t code) {
    if (!hal::isExtension(code) || !prefixes_.insert(prefixOf(code)).second) return;
    if (auto name = ExtensionPrefixes::get().nameOf(prefixOf(code))) {
      model_.extensionNameToPrefix.push_back({*name, prefixOf(code)});
    }
  }

  hal::Model model_;
  std::map<const ModelBuilder*, uint32_t> subgraphs_;
  std::map<const hal::Memory*, uint32_t> pools_;
  std::set<uint16_t> prefixes_;
};

// The values too large to copy at setOperandValue, copied now into one pool of this model.
int ModelBuilder::moveLargeValuesIntoPool() {
  size_t size = 0;
  for (const Operand& operand : draft_.main.operands) {
    if (operand.lifetime == LifeTime::POINTER) size = alignUp(size, operand.location.length) + operand.location.length;
  }
  if (size == 0) return ANEURALNETWORKS_NO_ERROR;
  if (size > kMaxValueLength) {
    return refuse("finish", ANEURALNETWORKS_OUT_OF_MEMORY,
                  "the values given by pointer total " + std::to_string(size) + " bytes, above the 4 GiB of one pool");
  }
  // Heap memory, not POSIX shared memory: a shm object sized past a full /dev/shm faults on first
  // write. The proxy driver sends a heap pool by value.
  hal::Result<hal::SharedMemory> pool = hal::createHeapMemory(size);
  if (!pool.ok()) return refuse("finish", ANEURALNETWORKS_OUT_OF_MEMORY, pool.error().message);
  const auto poolIndex = static_cast<uint32_t>(draft_.pools.size());
  draft_.pools.push_back(*pool);
  size_t offset = 0;
  for (Operand& operand : draft_.main.operands) {
    if (operand.lifetime != LifeTime::POINTER) continue;
    const uint32_t length = operand.location.length;
    offset = alignUp(offset, length);
    std::memcpy((*pool)->data() + offset, operand.location.pointer, length);
    operand.lifetime = LifeTime::CONSTANT_REFERENCE;
    operand.location = {nullptr, poolIndex, static_cast<uint32_t>(offset), length, 0};
    offset += length;
  }
  return ANEURALNETWORKS_NO_ERROR;
}

// Orders the operations so each runs after those writing its inputs (hal requires it; the NDK
// lets operations be added in any order). Among the operations ready to run, the one added first
// goes first, so a model added in a valid order keeps it.
bool ModelBuilder::sortOperations(std::string* why) {
  std::vector<hal::Operation>& operations = draft_.main.operations;
  const std::vector<Operand>& operands = draft_.main.operands;
  std::vector<std::vector<uint32_t>> readers(operands.size());
  std::vector<uint32_t> missingInputs(operations.size(), 0);
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> ready;
  for (uint32_t op = 0; op < operations.size(); ++op) {
    for (uint32_t input : operations[op].inputs) {
      const LifeTime lifetime = operands[input].lifetime;
      if (lifetime == LifeTime::TEMPORARY_VARIABLE || lifetime == LifeTime::SUBGRAPH_OUTPUT) {
        ++missingInputs[op];
        readers[input].push_back(op);
      }
    }
    if (missingInputs[op] == 0) ready.push(op);
  }
  std::vector<bool> written(operands.size(), false);
  std::vector<uint32_t> order;
  while (!ready.empty()) {
    const uint32_t op = ready.top();
    ready.pop();
    order.push_back(op);
    for (uint32_t output : operations[op].outputs) {
      if (written[output]) continue;  // written twice: hal::validateModel says so
      written[output] = true;
      for (uint32_t reader : readers[output]) {
        if (--missingInputs[reader] == 0) ready.push(reader);
      }
    }
  }
  if (order.size() != operations.size()) {
    std::string stuck;
    for (uint32_t op = 0; op < operations.size(); ++op) {
      if (missingInputs[op] != 0) stuck += (stuck.empty() ? "" : ", ") + std::to_string(op);
    }
    *why = "operations [" + stuck + "] can never run: they form a cycle or read an operand no operation writes";
    return false;
  }
  std::vector<hal::Operation> sorted;
  sorted.reserve(operations.size());
  for (uint32_t op : order) sorted.push_back(std::move(operations[op]));
  operations = std::move(sorted);
  operationOrder_ = std::move(order);
  return true;
}

int ModelBuilder::finish() {
  const char* const function = "finish";
  if (finished_) return refuse(function, ANEURALNETWORKS_BAD_STATE, "the model is already finished");
  if (invalid_) return refuse(function, ANEURALNETWORKS_BAD_STATE, "finish() already found the model invalid");
  if (const int code = moveLargeValuesIntoPool(); code != ANEURALNETWORKS_NO_ERROR) return code;
  std::string why;
  if (!sortOperations(&why)) {
    invalid_ = true;
    return refuse(function, ANEURALNETWORKS_BAD_DATA, why);
  }
  hal::Model model = Flattener().run(*this);
  if (hal::Status status = hal::validateModel(model, /*allowPointers=*/false); !status.ok()) {
    invalid_ = true;
    return refuse(function, ANEURALNETWORKS_BAD_DATA, status.error().message);
  }
  finished_ = std::move(model);
  return ANEURALNETWORKS_NO_ERROR;
}

hal::Result<hal::Model> ModelBuilder::model() const {
  if (!finished_) return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "the model is not finished";
  return *finished_;
}

}  // namespace nnremote::runtime
