// Types and requantization shared by the convolution family (CONV_2D, DEPTHWISE_CONV_2D,
// GROUPED_CONV_2D, TRANSPOSE_CONV_2D): float32, or quant8 input with a quant8 filter (one scale)
// or a TENSOR_QUANT8_SYMM_PER_CHANNEL filter (one scale per output channel).
#ifndef NNREMOTE_DRIVERS_SIM_KERNELS_CONV_QUANTIZATION_H_
#define NNREMOTE_DRIVERS_SIM_KERNELS_CONV_QUANTIZATION_H_

#include <vector>

#include "drivers/sim/kernels/kernel_utils.h"

namespace nnremote::sim {

// Checks input 0, the filter (input 1) and the bias (input 2). `channelDim` is the filter
// dimension per-channel scales must run along (0, or 3 for depthwise).
Status validateConvOperandTypes(const OperationContext& context, uint32_t channelDim);

// Filter values with the zero point removed, as int32, and the output requantization for each
// output channel.
struct QuantizedFilter {
  std::vector<int32_t> values;
  std::vector<QuantizedMultiplier> multipliers;
};
QuantizedFilter quantizedFilter(const OperationContext& context, uint32_t outputChannels,
                                uint32_t channelDim);

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_KERNELS_CONV_QUANTIZATION_H_
