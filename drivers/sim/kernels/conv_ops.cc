// CONV_2D and DEPTHWISE_CONV_2D, NHWC, with explicit or implicit padding, strides and dilation.
// Quantized forms accumulate in int32 (int64 where an output sums too many products for it) and
// requantize with TFLite's fixed-point multiplier.
#include <cstdint>
#include <limits>

#include "drivers/sim/kernels/conv_quantization.h"
#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"
#include "drivers/sim/kernels/window.h"
#include "drivers/sim/kernels/xnnpack_ops.h"

namespace nnremote::sim {
namespace {

// Where each parameter sits; the two operations differ only by DEPTHWISE's depth multiplier.
struct ConvOperands {
  bool explicitPadding = false;
  size_t window = 3;
  size_t depthMultiplier = 0;  // depthwise only
  size_t activation = 0;
  size_t layout = 0;
  size_t dilation = 0;  // width; height follows
};

ConvOperands convOperands(const OperationContext& context, bool depthwise) {
  ConvOperands ops;
  // NNAPI's rule, which hal/operations/convolution.cc checks: padding is explicit only with 10
  // or more inputs (DEPTHWISE_CONV_2D: 11), and then only if input 7 (8) is INT32, not the BOOL
  // layout flag of the implicit form with dilation. Fewer inputs never are, whatever the types.
  const size_t probe = depthwise ? 8 : 7;
  ops.explicitPadding = context.inputCount() >= probe + 3 && context.inputType(probe) == OperandType::INT32;
  size_t next = ops.window + windowOperandCount(ops.explicitPadding);
  if (depthwise) ops.depthMultiplier = next++;
  ops.activation = next++;
  ops.layout = next++;
  ops.dilation = next;
  return ops;
}

Status validateConvCommon(const OperationContext& context, bool depthwise) {
  const ConvOperands ops = convOperands(context, depthwise);
  NN_RETURN_IF_ERROR(validateConvOperandTypes(context, depthwise ? 3 : 0));
  NN_RETURN_IF_ERROR(validateWindowOperands(context, ops.window, ops.explicitPadding));
  NN_RETURN_IF_ERROR(expectFusedActivation(context, ops.activation));
  NN_RETURN_IF_ERROR(expectNhwc(context, ops.layout));
  const Tensor& input = context.input(0);
  const Tensor& filter = context.input(1);
  const Tensor& bias = context.input(2);
  if (input.rank() != 4 || filter.rank() != 4 || bias.rank() != 1) {
    return unsupported(context) << "input and filter must have rank 4 and bias rank 1";
  }
  return {};
}

Status validateConv(const OperationContext& context) { return validateConvCommon(context, false); }
Status validateDepthwise(const OperationContext& context) {
  return validateConvCommon(context, true);
}

struct ConvGeometry {
  uint32_t batches, inHeight, inWidth, inDepth;
  uint32_t outHeight, outWidth, outDepth;
  uint32_t depthMultiplier = 1;
  Window window;
  FusedActivation activation;
};

Status readGeometry(const OperationContext& context, bool depthwise, ConvGeometry* g) {
  const ConvOperands ops = convOperands(context, depthwise);
  const Tensor& input = context.input(0);
  const Tensor& filter = context.input(1);
  g->batches = input.dim(0);
  g->inHeight = input.dim(1);
  g->inWidth = input.dim(2);
  g->inDepth = input.dim(3);
  g->window.filterHeight = filter.dim(1);
  g->window.filterWidth = filter.dim(2);
  if (ops.dilation < context.inputCount()) {
    const int32_t dw = context.scalar<int32_t>(ops.dilation);
    const int32_t dh = context.scalar<int32_t>(ops.dilation + 1);
    if (dw <= 0 || dh <= 0) return unsupported(context) << "dilation factors must be positive";
    g->window.dilationWidth = dw;
    g->window.dilationHeight = dh;
  }
  readWindow(context, ops.window, ops.explicitPadding, g->inWidth, g->inHeight, &g->window);
  g->activation = static_cast<FusedActivation>(context.scalar<int32_t>(ops.activation));
  if (depthwise) {
    const int32_t multiplier = context.scalar<int32_t>(ops.depthMultiplier);
    g->outDepth = filter.dim(3);
    if (filter.dim(0) != 1 || multiplier <= 0 || g->outDepth != g->inDepth * uint32_t(multiplier)) {
      return unsupported(context) << "filter " << hal::toString(filter.dimensions)
                                  << " does not match input depth " << g->inDepth
                                  << " x depth multiplier " << multiplier;
    }
    g->depthMultiplier = multiplier;
  } else {
    g->outDepth = filter.dim(0);
    if (filter.dim(3) != g->inDepth) {
      return unsupported(context) << "filter depth " << filter.dim(3) << " differs from input depth "
                                  << g->inDepth;
    }
  }
  NN_RETURN_IF_ERROR(expectBiasPerOutputChannel(context, g->outDepth));
  g->outHeight = outputSize(g->inHeight, g->window.filterHeight, g->window.dilationHeight,
                            g->window.strideHeight, g->window.height);
  g->outWidth = outputSize(g->inWidth, g->window.filterWidth, g->window.dilationWidth,
                           g->window.strideWidth, g->window.width);
  return {};
}

template <bool kDepthwise>
Status prepareConv(OperationContext& context) {
  ConvGeometry g;
  NN_RETURN_IF_ERROR(readGeometry(context, kDepthwise, &g));
  context.output(0).dimensions = {g.batches, g.outHeight, g.outWidth, g.outDepth};
  return {};
}

// Visits each filter tap that lands inside the input for one output pixel.
template <typename Fn>
inline void forEachTap(const ConvGeometry& g, uint32_t oy, uint32_t ox, Fn&& fn) {
  const int64_t y0 = windowStart(oy, g.window.strideHeight, g.window.height.before);
  const int64_t x0 = windowStart(ox, g.window.strideWidth, g.window.width.before);
  for (uint32_t fy = 0; fy < g.window.filterHeight; ++fy) {
    const int64_t iy = y0 + int64_t{fy} * g.window.dilationHeight;
    if (iy < 0 || iy >= int64_t{g.inHeight}) continue;
    for (uint32_t fx = 0; fx < g.window.filterWidth; ++fx) {
      const int64_t ix = x0 + int64_t{fx} * g.window.dilationWidth;
      if (ix < 0 || ix >= int64_t{g.inWidth}) continue;
      fn(fy, fx, uint32_t(iy), uint32_t(ix));
    }
  }
}

// Accumulator arithmetic: float, or int32 on zero-point-corrected uint8.
template <typename T>
struct ConvArithmetic;

template <>
struct ConvArithmetic<float> {
  static float value(float x, int32_t) { return x; }
};

template <>
struct ConvArithmetic<uint8_t> {
  static int32_t value(uint8_t x, int32_t zeroPoint) { return int32_t(x) - zeroPoint; }
};

// Visits every output pixel: clears the accumulators, lets `accumulate(acc, pixel, fy, fx)` add
// each in-bounds filter tap (pixel points at the input channels), then stores every channel.
template <typename T, typename Acc, typename Accumulate, typename Store>
void forEachOutputPixel(const OperationContext& context, const ConvGeometry& g, Accumulate&& accumulate,
                        Store&& store) {
  const T* in = context.input(0).as<T>();
  std::vector<Acc> acc(g.outDepth);
  for (uint32_t b = 0; b < g.batches; ++b) {
    for (uint32_t oy = 0; oy < g.outHeight; ++oy) {
      for (uint32_t ox = 0; ox < g.outWidth; ++ox) {
        std::fill(acc.begin(), acc.end(), Acc{0});
        forEachTap(g, oy, ox, [&](uint32_t fy, uint32_t fx, uint32_t iy, uint32_t ix) {
          accumulate(acc, in + ((size_t(b) * g.inHeight + iy) * g.inWidth + ix) * g.inDepth, fy, fx);
        });
        const size_t outBase = ((size_t(b) * g.outHeight + oy) * g.outWidth + ox) * g.outDepth;
        for (uint32_t oc = 0; oc < g.outDepth; ++oc) store(outBase + oc, oc, acc[oc]);
      }
    }
  }
}

// acc[k][i] += x[k] * w[i] for four rows k.
template <typename Acc>
NNREMOTE_VECTOR_CLONES void multiplyAccumulate4(const Acc* __restrict__ w, const Acc x[4], Acc* __restrict__ a0,
                                                Acc* __restrict__ a1, Acc* __restrict__ a2, Acc* __restrict__ a3,
                                                uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    a0[i] += x[0] * w[i];
    a1[i] += x[1] * w[i];
    a2[i] += x[2] * w[i];
    a3[i] += x[3] * w[i];
  }
}

// acc[i] += x * w[i].
template <typename Acc>
NNREMOTE_VECTOR_CLONES void multiplyAccumulate(const Acc* __restrict__ w, Acc x, Acc* __restrict__ a, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) a[i] += x * w[i];
}

// A 1x1 convolution with stride 1 and no padding is a matrix product: pixels x input channels
// times input channels x output channels.
bool isPointwise(const ConvGeometry& g) {
  const Window& w = g.window;
  return w.filterHeight == 1 && w.filterWidth == 1 && w.strideHeight == 1 && w.strideWidth == 1 &&
         w.height.before == 0 && w.height.after == 0 && w.width.before == 0 && w.width.after == 0 &&
         g.outHeight == g.inHeight && g.outWidth == g.inWidth;
}

// The product in blocks of four pixels, so each row of weights is loaded once per block; each
// output still sums over input channels in order.
template <typename T, typename Acc, typename Store>
void runPointwise(const T* in, size_t pixels, uint32_t inDepth, int32_t inZero, const Acc* weights,
                  uint32_t outDepth, Store&& store) {
  constexpr size_t kBlock = 4;
  std::vector<Acc> acc(kBlock * outDepth);
  for (size_t p0 = 0; p0 < pixels; p0 += kBlock) {
    const size_t count = std::min(kBlock, pixels - p0);
    std::fill(acc.begin(), acc.end(), Acc{0});
    Acc* __restrict__ a0 = acc.data();
    Acc* __restrict__ a1 = a0 + outDepth;
    Acc* __restrict__ a2 = a1 + outDepth;
    Acc* __restrict__ a3 = a2 + outDepth;
    const T* row0 = in + p0 * inDepth;
    // Missing pixels of the last block read pixel p0 again; their sums are never stored.
    const T* row1 = count > 1 ? row0 + inDepth : row0;
    const T* row2 = count > 2 ? row0 + 2 * inDepth : row0;
    const T* row3 = count > 3 ? row0 + 3 * inDepth : row0;
    for (uint32_t ic = 0; ic < inDepth; ++ic) {
      const Acc x[4] = {ConvArithmetic<T>::value(row0[ic], inZero), ConvArithmetic<T>::value(row1[ic], inZero),
                        ConvArithmetic<T>::value(row2[ic], inZero), ConvArithmetic<T>::value(row3[ic], inZero)};
      multiplyAccumulate4(weights + size_t(ic) * outDepth, x, a0, a1, a2, a3, outDepth);
    }
    for (size_t k = 0; k < count; ++k) {
      for (uint32_t oc = 0; oc < outDepth; ++oc) store((p0 + k) * outDepth + oc, oc, acc[k * outDepth + oc]);
    }
  }
}

// `w` holds the filter's values, zero point already removed for quantized filters. They are
// transposed to [tap][input channel][output channel] first, so the innermost loop runs along
// output channels with one accumulator each: contiguous, independent, and vectorized by the
// compiler, while every output still sums its products in (tap, input channel) order.
template <typename T, typename Acc, typename W, typename Store>
void runConv(const OperationContext& context, const ConvGeometry& g, const W* w, Store&& store) {
  const int32_t inZero = context.input(0).zeroPoint;
  const size_t taps = size_t(g.window.filterHeight) * g.window.filterWidth;
  const size_t rows = taps * g.inDepth;
  std::vector<Acc> transposed(rows * g.outDepth);
  for (uint32_t oc = 0; oc < g.outDepth; ++oc) {
    const W* filter = w + size_t(oc) * rows;
    for (size_t r = 0; r < rows; ++r) transposed[r * g.outDepth + oc] = Acc(filter[r]);
  }
  const uint32_t outDepth = g.outDepth;
  if (isPointwise(g)) {
    runPointwise<T>(context.input(0).as<T>(), size_t(g.batches) * g.inHeight * g.inWidth, g.inDepth, inZero,
                    transposed.data(), outDepth, store);
    return;
  }
  auto accumulate = [&](std::vector<Acc>& acc, const T* pixel, uint32_t fy, uint32_t fx) {
    const Acc* tap = transposed.data() + (size_t(fy) * g.window.filterWidth + fx) * g.inDepth * outDepth;
    Acc* __restrict__ sums = acc.data();
    for (uint32_t ic = 0; ic < g.inDepth; ++ic) {
      multiplyAccumulate(tap + size_t(ic) * outDepth, Acc(ConvArithmetic<T>::value(pixel[ic], inZero)), sums, outDepth);
    }
  };
  forEachOutputPixel<T, Acc>(context, g, accumulate, store);
}

template <typename T, typename Acc, typename W, typename Store>
void runDepthwise(const OperationContext& context, const ConvGeometry& g, const W* w, Store&& store) {
  const int32_t inZero = context.input(0).zeroPoint;
  const uint32_t outDepth = g.outDepth, multiplier = g.depthMultiplier;
  auto accumulate = [&](std::vector<Acc>& acc, const T* pixel, uint32_t fy, uint32_t fx) {
    const W* __restrict__ tap = w + (size_t(fy) * g.window.filterWidth + fx) * outDepth;
    Acc* __restrict__ sums = acc.data();
    if (multiplier == 1) {  // the common case, kept free of divisions so it vectorizes
      for (uint32_t oc = 0; oc < outDepth; ++oc) sums[oc] += ConvArithmetic<T>::value(pixel[oc], inZero) * tap[oc];
      return;
    }
    for (uint32_t oc = 0; oc < outDepth; ++oc) {
      sums[oc] += ConvArithmetic<T>::value(pixel[oc / multiplier], inZero) * tap[oc];
    }
  };
  forEachOutputPixel<T, Acc>(context, g, accumulate, store);
}

XnnpackConvolution asXnnpack(const ConvGeometry& g, bool depthwise) {
  XnnpackConvolution c;
  c.window = g.window;
  c.groups = depthwise ? g.inDepth : 1;
  c.groupInputChannels = depthwise ? 1 : g.inDepth;
  c.groupOutputChannels = depthwise ? g.depthMultiplier : g.outDepth;
  c.depthwise = depthwise;
  c.activation = g.activation;
  return c;
}

template <bool kDepthwise>
Status executeConv(OperationContext& context) {
  ConvGeometry g;
  NN_RETURN_IF_ERROR(readGeometry(context, kDepthwise, &g));
  if (runConvolutionOnXnnpack(context, asXnnpack(g, kDepthwise))) return {};
  Tensor& output = context.output(0);
  if (context.inputType(0) == OperandType::TENSOR_FLOAT32) {
    const float* bias = context.input(2).as<float>();
    float* out = output.asMutable<float>();
    const FloatRange range = activationRange(g.activation);
    auto store = [&](size_t index, uint32_t oc, float acc) {
      out[index] = std::min(range.max, std::max(range.min, acc + bias[oc]));
    };
    const float* w = context.input(1).as<float>();
    if (kDepthwise)
      runDepthwise<float, float>(context, g, w, store);
    else
      runConv<float, float>(context, g, w, store);
    return {};
  }
  const int32_t* bias = context.input(2).as<int32_t>();
  uint8_t* out = output.asMutable<uint8_t>();
  const QuantRange range = activationRange(g.activation, output);
  const QuantizedFilter filter = quantizedFilter(context, g.outDepth, kDepthwise ? 3 : 0);
  auto store = [&](size_t index, uint32_t oc, int64_t acc) {
    const int32_t q = requantizeSaturating(acc + bias[oc], filter.multipliers[oc], output.zeroPoint);
    out[index] = static_cast<uint8_t>(std::min(range.max, std::max(range.min, q)));
  };
  const int32_t* w = filter.values.data();
  // Each product is at most 255 * 255 in magnitude, so an output sums in 32 bits unless it sums
  // more products than that allows (a legal shape: a filter of many taps or input channels),
  // which it then does in 64.
  constexpr uint64_t kMaxProductsFor32Bits = std::numeric_limits<int32_t>::max() / (255 * 255);
  const uint64_t products = uint64_t{g.window.filterHeight} * g.window.filterWidth * (kDepthwise ? 1 : g.inDepth);
  auto runWith = [&](auto zero) {
    using Acc = decltype(zero);
    if (kDepthwise)
      runDepthwise<uint8_t, Acc>(context, g, w, store);
    else
      runConv<uint8_t, Acc>(context, g, w, store);
  };
  if (products <= kMaxProductsFor32Bits) {
    runWith(int32_t{0});
  } else {
    runWith(int64_t{0});
  }
  return {};
}

// On the array as SCALE-Sim maps it: M output pixels (batch included) x N filters, reducing
// over K = filter height x width x input channels.
OperationWork convWork(const OperationContext& context) {
  const Tensor& filter = context.input(1);
  const Tensor& output = context.output(0);
  GemmWork gemm;
  gemm.m = uint64_t{output.dim(0)} * output.dim(1) * output.dim(2);
  gemm.n = output.dim(3);
  gemm.k = uint64_t{filter.dim(1)} * filter.dim(2) * filter.dim(3);
  gemm.inputElementBytes = hal::elementSize(context.input(0).type);
  gemm.outputElementBytes = hal::elementSize(output.type);
  OperationWork work;
  work.gemms.push_back(gemm);
  return work;
}

// Depthwise convolution has no reduction across channels to fill an array's columns, so it
// runs on the vector unit: one multiply-accumulate per output element and filter tap.
OperationWork depthwiseWork(const OperationContext& context) {
  const Tensor& filter = context.input(1);
  OperationWork work;
  work.vectorElements = context.output(0).elementCount() * filter.dim(1) * filter.dim(2);
  return work;
}

int convLayout(const OperationContext& context) { return int(convOperands(context, false).layout); }
int depthwiseLayout(const OperationContext& context) { return int(convOperands(context, true).layout); }

}  // namespace

const OperationKernel kConv2dKernel = {&validateConv, &prepareConv<false>, &executeConv<false>,
                                       &convWork, &convLayout};
NNREMOTE_REGISTER_KERNEL(OperationType::CONV_2D, kConv2dKernel);
const OperationKernel kDepthwiseConv2dKernel = {&validateDepthwise, &prepareConv<true>,
                                                &executeConv<true>, &depthwiseWork, &depthwiseLayout};
NNREMOTE_REGISTER_KERNEL(OperationType::DEPTHWISE_CONV_2D, kDepthwiseConv2dKernel);

}  // namespace nnremote::sim
