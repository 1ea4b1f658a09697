// The padding/stride operand layout shared by CONV_2D, DEPTHWISE_CONV_2D and the 2-D pools.
#ifndef NNREMOTE_DRIVERS_SIM_KERNELS_WINDOW_H_
#define NNREMOTE_DRIVERS_SIM_KERNELS_WINDOW_H_

#include "drivers/sim/kernels/kernel_utils.h"

namespace nnremote::sim {

// Explicit padding spends 6 INT32 operands from `first` (left, right, top, bottom, stride w,
// stride h); implicit padding spends 3 (scheme, stride w, stride h).
inline size_t windowOperandCount(bool explicitPadding) { return explicitPadding ? 6 : 3; }

// Checks the padding and stride operands: INT32 scalars, known scheme, positive strides.
Status validateWindowOperands(const OperationContext& context, size_t first, bool explicitPadding);

// Where output position `o`'s window starts in the input: negative inside the leading padding.
// In 64 bits, as is all arithmetic on positions: a stride and a padding may each be near
// INT32_MAX, and their 32-bit products overflowed (found by the fuzzers).
inline int64_t windowStart(uint32_t o, uint32_t stride, uint32_t paddingBefore) {
  return int64_t{o} * stride - paddingBefore;
}

// Reads padding and strides; filter size and dilation must already be set in `window`.
void readWindow(const OperationContext& context, size_t first, bool explicitPadding,
                uint32_t inWidth, uint32_t inHeight, Window* window);

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_KERNELS_WINDOW_H_
