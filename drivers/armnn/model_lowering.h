// hal::Model to ::armnn::INetwork, for the operations this backend lowers (docs/backends.md lists
// them). A model or operation outside that set is refused here with the reason; whether Arm NN
// then runs what was lowered on a given Arm NN backend is Arm NN's own answer (::armnn::Optimize).
#ifndef NNREMOTE_DRIVERS_ARMNN_MODEL_LOWERING_H_
#define NNREMOTE_DRIVERS_ARMNN_MODEL_LOWERING_H_

#include <cstddef>

#include "drivers/armnn/lowered_network.h"
#include "hal/result.h"
#include "hal/types.h"

namespace nnremote::armnn {

// The whole main subgraph.
hal::Result<LoweredNetwork> lowerModel(const hal::Model& model);

// One operation alone: its tensor inputs that are not constants become network inputs, and its
// outputs network outputs. What getSupportedOperations asks Arm NN about.
hal::Result<LoweredNetwork> lowerOperation(const hal::Model& model, size_t operationIndex);

}  // namespace nnremote::armnn

#endif  // NNREMOTE_DRIVERS_ARMNN_MODEL_LOWERING_H_
