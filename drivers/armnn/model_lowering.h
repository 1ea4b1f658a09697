// hal::Model to ::armnn::INetwork, for the operations this backend lowers (docs/backends.md lists
// them). A model or operation outside that set is refused here with the reason; whether Arm NN
// then runs what was lowered on a given Arm NN backend is Arm NN's own answer (::armnn::Optimize).
#ifndef NNREMOTE_DRIVERS_ARMNN_MODEL_LOWERING_H_
#define NNREMOTE_DRIVERS_ARMNN_MODEL_LOWERING_H_

#include <armnn/INetwork.hpp>

#include <vector>

#include "hal/result.h"
#include "hal/types.h"

namespace nnremote::armnn {

struct LoweredNetwork {
  ::armnn::INetworkPtr network{nullptr, nullptr};
  // Binding ids are positions: network input i is bound as i and holds operand inputOperands[i],
  // in the order the lowering first read them (a model input nothing reads is not bound). Output
  // i is outputOperands[i]: for the whole model, the model's outputs in order.
  std::vector<uint32_t> inputOperands;
  std::vector<uint32_t> outputOperands;
};

// The whole main subgraph.
hal::Result<LoweredNetwork> lowerModel(const hal::Model& model);

// One operation alone: its tensor inputs that are not constants become network inputs, and its
// outputs network outputs. What getSupportedOperations asks Arm NN about.
hal::Result<LoweredNetwork> lowerOperation(const hal::Model& model, size_t operationIndex);

}  // namespace nnremote::armnn

#endif  // NNREMOTE_DRIVERS_ARMNN_MODEL_LOWERING_H_
