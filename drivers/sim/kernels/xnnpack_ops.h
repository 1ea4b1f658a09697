// The fast path of the hot kernels on XNNPACK (Debian's libxnnpack): convolutions (plain,
// depthwise, grouped) and fully connected layers with constant weights (float32 and per-tensor
// quant8), max pooling (float32 and quant8), average pooling (float32) and quantized ADD, SUB
// and MUL. The operator is built at an operation's first execution (packing its weights) and
// kept in its OperationState for the prepared model's life; it runs on the calling thread.
//
// Semantics: float32 differs from a plain loop only in summation order, well inside the CTS
// fp32 tolerance. quant8 requantizes in fp32 with round-to-nearest-even where the reference uses
// gemmlowp's fixed-point multiplier; the two agree or differ by one unit, the CTS quant8
// tolerance. Each function returns false when XNNPACK does not apply (no operation state,
// weights supplied at execution time, per-channel quantization, a scale XNNPACK refuses); the
// caller then computes the operation itself.
#ifndef NNREMOTE_DRIVERS_SIM_KERNELS_XNNPACK_OPS_H_
#define NNREMOTE_DRIVERS_SIM_KERNELS_XNNPACK_OPS_H_

#include "drivers/sim/kernels/kernel_utils.h"

namespace nnremote::sim {

// A 2-D convolution's geometry in XNNPACK's terms. Input 0 is the NHWC feature map, input 1 the
// filter ([out, kh, kw, in / groups], or [1, kh, kw, channels * multiplier] when `depthwise`),
// input 2 the bias and output 0 the NHWC result.
struct XnnpackConvolution {
  Window window;  // padding, filter size, strides, dilation
  uint32_t groups = 1, groupInputChannels = 0, groupOutputChannels = 0;
  bool depthwise = false;
  FusedActivation activation = FusedActivation::NONE;
};
bool runConvolutionOnXnnpack(OperationContext& context, const XnnpackConvolution& convolution);

// FULLY_CONNECTED: input 0 viewed as [batches, inputSize], weights [units, inputSize], bias.
bool runFullyConnectedOnXnnpack(OperationContext& context, uint32_t batches, FusedActivation activation);

// MAX_POOL_2D (float32, quant8) and AVERAGE_POOL_2D (float32; the average counts only taps
// inside the input, as NNAPI's does) on the NHWC input 0.
struct XnnpackPooling {
  Window window;  // padding, pool size, strides (no dilation)
  bool max = true;
  FusedActivation activation = FusedActivation::NONE;
};
bool runPoolingOnXnnpack(OperationContext& context, const XnnpackPooling& pooling);

// Quantized (TENSOR_QUANT8_ASYMM) ADD, SUB and MUL of inputs 0 and 1, with NumPy broadcasting.
enum class XnnpackBinary { ADD, SUBTRACT, MULTIPLY };
bool runQuantizedBinaryOnXnnpack(OperationContext& context, XnnpackBinary operation, FusedActivation activation);

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_KERNELS_XNNPACK_OPS_H_
