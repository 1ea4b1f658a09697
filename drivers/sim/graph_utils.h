// What the graph executor's two halves share: graph_preparation.cc checks a model's operations
// once, graph_executor.cc runs them; both walk subgraphs and give kernels the same contexts.
#ifndef NNREMOTE_DRIVERS_SIM_GRAPH_UTILS_H_
#define NNREMOTE_DRIVERS_SIM_GRAPH_UTILS_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "drivers/sim/operation_context.h"
#include "hal/types.h"

namespace nnremote::sim {

// The context a kernel sees for `operation`, over the subgraph's `tensors`.
inline OperationContext makeContext(const hal::Operation& operation, std::vector<Tensor>& tensors) {
  std::vector<Tensor*> inputs, outputs;
  inputs.reserve(operation.inputs.size());
  for (uint32_t i : operation.inputs) inputs.push_back(&tensors[i]);
  for (uint32_t i : operation.outputs) outputs.push_back(&tensors[i]);
  return OperationContext(operation.type, std::move(inputs), std::move(outputs));
}

inline bool isControlFlow(OperationType type) { return type == OperationType::IF || type == OperationType::WHILE; }

// Subgraph `index` of `model`: main for a negative index, else referenced[index].
inline const hal::Model::Subgraph& subgraphAt(const hal::Model& model, int index) {
  return index < 0 ? model.main : model.referenced[index];
}

// The referenced subgraph a SUBGRAPH operand names.
inline uint32_t referencedIndex(const Tensor& t) { return static_cast<uint32_t>(t.subgraph); }

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_GRAPH_UTILS_H_
