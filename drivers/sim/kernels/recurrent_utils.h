// Helpers the recurrent kernels share (rnn_ops.cc, lstm_ops.cc): activations, optional
// operands and operand-type checks.
#ifndef NNREMOTE_DRIVERS_SIM_KERNELS_RECURRENT_UTILS_H_
#define NNREMOTE_DRIVERS_SIM_KERNELS_RECURRENT_UTILS_H_

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "drivers/sim/kernels/kernel_utils.h"

namespace nnremote::sim {

// NNAPI's recurrent activations: the fused ones plus tanh (4) and sigmoid (6).
inline float activate(int32_t activation, float x) {
  switch (activation) {
    case 1: return std::max(0.0f, x);
    case 2: return std::min(1.0f, std::max(-1.0f, x));
    case 3: return std::min(6.0f, std::max(0.0f, x));
    case 4: return std::tanh(x);
    case 6: return 1.0f / (1.0f + std::exp(-x));
    default: return x;
  }
}

inline bool isRecurrentActivation(int32_t activation) {
  return activation == 0 || activation == 1 || activation == 2 || activation == 3 || activation == 4 ||
         activation == 6;
}

// Whether an optional tensor operand was given (omitted ones have no value or no elements).
inline bool present(const Tensor& t) { return !t.isOmitted && t.data != nullptr && t.elementCount() > 0; }

// Fails unless the given inputs (where not omitted) and every output are TENSOR_FLOAT32.
inline Status expectFloatOperands(const OperationContext& context, std::initializer_list<size_t> inputs) {
  for (size_t i : inputs) {
    if (!context.input(i).isOmitted) NN_RETURN_IF_ERROR(expectInputType(context, i, OperandType::TENSOR_FLOAT32));
  }
  for (size_t i = 0; i < context.outputCount(); ++i) {
    if (context.output(i).type != OperandType::TENSOR_FLOAT32) {
      return unsupported(context) << "outputs must be TENSOR_FLOAT32";
    }
  }
  return {};
}

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_KERNELS_RECURRENT_UTILS_H_
