// Partitioning: a model no single device supports, split into steps that each run on one device,
// as Android's runtime does. Each operation has been given a device (compilation.cc decides
// which); operations are grouped into as few steps as the dependencies allow, and each step
// becomes a model of its own whose inputs and outputs are the tensors that cross between steps
// (or are the whole model's). PartitionedPreparedModel runs the steps in order.
#ifndef NNREMOTE_RUNTIME_PARTITIONING_H_
#define NNREMOTE_RUNTIME_PARTITIONING_H_

#include <cstdint>
#include <vector>

#include "hal/types.h"

namespace nnremote::runtime {

struct RuntimeDevice;

struct PartitionStep {
  const RuntimeDevice* device = nullptr;
  std::vector<uint32_t> operations;  // indexes into the whole model's main, in execution order
  hal::Model model;                  // those operations as a model of their own
  // For each of `model`'s inputs and outputs: the whole model's operand it stands for.
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
};

// Groups the operations of `model`'s main subgraph by `deviceOf` (one entry per operation) into
// steps, switching device only when no further operation of the current one can run yet.
// Refused (INVALID_ARGUMENT) where a tensor of an extension type would cross between steps:
// the runtime cannot size it.
hal::Result<std::vector<PartitionStep>> partitionModel(const hal::Model& model,
                                                       const std::vector<const RuntimeDevice*>& deviceOf);

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_PARTITIONING_H_
