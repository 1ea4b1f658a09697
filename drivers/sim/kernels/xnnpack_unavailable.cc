// Builds without XNNPACK (aarch64 cross builds; drivers/sim/BUILD): the fast path never
// applies, so every kernel computes its operation itself, as it does whenever XNNPACK declines.
#include "drivers/sim/kernels/xnnpack_ops.h"

namespace nnremote::sim {

bool runConvolutionOnXnnpack(OperationContext&, const XnnpackConvolution&) { return false; }
bool runFullyConnectedOnXnnpack(OperationContext&, uint32_t, FusedActivation) { return false; }
bool runPoolingOnXnnpack(OperationContext&, const XnnpackPooling&) { return false; }
bool runQuantizedBinaryOnXnnpack(OperationContext&, XnnpackBinary, FusedActivation) { return false; }

}  // namespace nnremote::sim
