#include "runtime/partitioning.h"

#include <map>
#include <set>

#include "hal/operand_types.h"

namespace nnremote::runtime {
namespace {

using LifeTime = hal::Operand::LifeTime;

// The operations of main in steps: each step one device's, in an order the dependencies allow.
std::vector<std::vector<uint32_t>> groupOperations(const hal::Model::Subgraph& main,
                                                   const std::vector<const RuntimeDevice*>& deviceOf) {
  const size_t count = main.operations.size();
  std::vector<int64_t> producer(main.operands.size(), -1);
  for (size_t op = 0; op < count; ++op) {
    for (uint32_t output : main.operations[op].outputs) producer[output] = int64_t(op);
  }
  std::vector<std::vector<uint32_t>> consumers(count);
  std::vector<size_t> waitingFor(count, 0);
  for (size_t op = 0; op < count; ++op) {
    std::set<uint32_t> producers;
    for (uint32_t input : main.operations[op].inputs) {
      if (producer[input] >= 0) producers.insert(uint32_t(producer[input]));
    }
    waitingFor[op] = producers.size();
    for (uint32_t from : producers) consumers[from].push_back(uint32_t(op));
  }
  // Per device, the operations whose inputs are all computed, lowest index first.
  std::map<const RuntimeDevice*, std::set<uint32_t>> ready;
  for (size_t op = 0; op < count; ++op) {
    if (waitingFor[op] == 0) ready[deviceOf[op]].insert(uint32_t(op));
  }
  std::vector<std::vector<uint32_t>> steps;
  const RuntimeDevice* current = nullptr;
  for (size_t placed = 0; placed < count; ++placed) {
    if (current == nullptr || ready[current].empty()) {
      // The next step goes to the device with the earliest operation that can run.
      uint32_t earliest = UINT32_MAX;
      for (const auto& [device, operations] : ready) {
        if (!operations.empty() && *operations.begin() < earliest) {
          earliest = *operations.begin();
          current = device;
        }
      }
      steps.emplace_back();
    }
    const uint32_t op = *ready[current].begin();
    ready[current].erase(ready[current].begin());
    steps.back().push_back(op);
    for (uint32_t next : consumers[op]) {
      if (--waitingFor[next] == 0) ready[deviceOf[next]].insert(next);
    }
  }
  return steps;
}

}  // namespace

hal::Result<std::vector<PartitionStep>> partitionModel(const hal::Model& model,
                                                       const std::vector<const RuntimeDevice*>& deviceOf) {
  const hal::Model::Subgraph& main = model.main;
  const std::vector<std::vector<uint32_t>> groups = groupOperations(main, deviceOf);
  std::vector<size_t> stepOf(main.operations.size());
  for (size_t s = 0; s < groups.size(); ++s) {
    for (uint32_t op : groups[s]) stepOf[op] = s;
  }
  // Whether an operand is read by a step other than `step`.
  std::vector<std::set<size_t>> readBy(main.operands.size());
  for (size_t op = 0; op < main.operations.size(); ++op) {
    for (uint32_t input : main.operations[op].inputs) readBy[input].insert(stepOf[op]);
  }
  auto readElsewhere = [&](uint32_t operand, size_t step) {
    return readBy[operand].size() > 1 || (readBy[operand].size() == 1 && *readBy[operand].begin() != step);
  };

  std::vector<PartitionStep> steps;
  for (size_t s = 0; s < groups.size(); ++s) {
    PartitionStep step;
    step.device = deviceOf[groups[s].front()];
    step.operations = groups[s];
    std::set<uint32_t> used, produced;
    for (uint32_t op : groups[s]) {
      const hal::Operation& operation = main.operations[op];
      used.insert(operation.inputs.begin(), operation.inputs.end());
      used.insert(operation.outputs.begin(), operation.outputs.end());
      produced.insert(operation.outputs.begin(), operation.outputs.end());
    }
    hal::Model& part = step.model;
    std::map<uint32_t, uint32_t> renumbered;
    bool callsSubgraphs = false;
    for (uint32_t index : used) {  // ascending: the step's inputs and outputs in operand order
      hal::Operand operand = main.operands[index];
      const bool crosses = (produced.count(index) && (operand.lifetime == LifeTime::SUBGRAPH_OUTPUT ||
                                                       readElsewhere(index, s))) ||
                           (!produced.count(index) && (operand.lifetime == LifeTime::SUBGRAPH_INPUT ||
                                                        operand.lifetime == LifeTime::SUBGRAPH_OUTPUT ||
                                                        operand.lifetime == LifeTime::TEMPORARY_VARIABLE));
      if (crosses && hal::isExtension(operand.type) && operand.lifetime != LifeTime::SUBGRAPH_INPUT &&
          operand.lifetime != LifeTime::SUBGRAPH_OUTPUT) {
        return hal::invalidArgument() << "operand " << index
                                      << " is of an extension type and would pass between devices";
      }
      if (produced.count(index)) {
        operand.lifetime = crosses ? LifeTime::SUBGRAPH_OUTPUT : LifeTime::TEMPORARY_VARIABLE;
      } else if (crosses) {
        operand.lifetime = LifeTime::SUBGRAPH_INPUT;
      }
      callsSubgraphs = callsSubgraphs || operand.lifetime == LifeTime::SUBGRAPH;
      const uint32_t renumber = uint32_t(part.main.operands.size());
      renumbered[index] = renumber;
      if (operand.lifetime == LifeTime::SUBGRAPH_INPUT) {
        part.main.inputIndexes.push_back(renumber);
        step.inputs.push_back(index);
      } else if (operand.lifetime == LifeTime::SUBGRAPH_OUTPUT) {
        part.main.outputIndexes.push_back(renumber);
        step.outputs.push_back(index);
      }
      part.main.operands.push_back(std::move(operand));
    }
    for (uint32_t op : groups[s]) {
      hal::Operation operation = main.operations[op];
      for (uint32_t& input : operation.inputs) input = renumbered[input];
      for (uint32_t& output : operation.outputs) output = renumbered[output];
      part.main.operations.push_back(std::move(operation));
    }
    // Constants keep their offsets: every step carries the model's values (small: the NDK copies
    // only values up to 128 bytes into the model) and its pools (shared memory, not copied).
    part.operandValues = model.operandValues;
    part.pools = model.pools;
    if (callsSubgraphs) part.referenced = model.referenced;
    part.relaxComputationFloat32toFloat16 = model.relaxComputationFloat32toFloat16;
    part.extensionNameToPrefix = model.extensionNameToPrefix;
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace nnremote::runtime
