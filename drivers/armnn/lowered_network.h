// A hal model (or some of its operations) lowered to an Arm NN network, with which operands its
// inputs and outputs are bound to.
#ifndef NNREMOTE_DRIVERS_ARMNN_LOWERED_NETWORK_H_
#define NNREMOTE_DRIVERS_ARMNN_LOWERED_NETWORK_H_

#include <armnn/INetwork.hpp>

#include <cstdint>
#include <vector>

namespace nnremote::armnn {

struct LoweredNetwork {
  ::armnn::INetworkPtr network{nullptr, nullptr};
  // Binding ids are positions: network input i is bound as i and holds operand inputOperands[i],
  // in the order the lowering first read them (a model input nothing reads is not bound). Output
  // i is outputOperands[i]: for the whole model, the model's outputs in order.
  std::vector<uint32_t> inputOperands;
  std::vector<uint32_t> outputOperands;
};

}  // namespace nnremote::armnn

#endif  // NNREMOTE_DRIVERS_ARMNN_LOWERED_NETWORK_H_
