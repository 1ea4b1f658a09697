// AVERAGE_POOL_2D and MAX_POOL_2D, NHWC. The average counts only taps inside the input, as the
// NNAPI reference does.
#include <cstdint>
#include <limits>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"
#include "drivers/sim/kernels/window.h"
#include "drivers/sim/kernels/xnnpack_ops.h"

namespace nnremote::sim {
namespace {

// Implicit padding: input, scheme, stride w/h, filter w/h, activation, [layout] (7 or 8).
// Explicit padding: input, pad l/r/t/b, stride w/h, filter w/h, activation, [layout] (10 or 11).
bool isExplicit(const OperationContext& context) { return context.inputCount() >= 10; }

size_t filterOperand(const OperationContext& context) {
  return 1 + windowOperandCount(isExplicit(context));
}

Status validatePool(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, context.inputType(0)));
  NN_RETURN_IF_ERROR(validateWindowOperands(context, 1, isExplicit(context)));
  const size_t filter = filterOperand(context);
  NN_RETURN_IF_ERROR(expectFusedActivation(context, filter + 2));
  NN_RETURN_IF_ERROR(expectNhwc(context, filter + 3));
  if (context.input(0).rank() != 4) return unsupported(context) << "input must have rank 4";
  return expectSameQuantizationAsInput(context);
}

struct PoolGeometry {
  uint32_t batches, inHeight, inWidth, depth, outHeight, outWidth;
  Window window;
  FusedActivation activation;
};

Status readGeometry(const OperationContext& context, PoolGeometry* g) {
  const Tensor& input = context.input(0);
  g->batches = input.dim(0);
  g->inHeight = input.dim(1);
  g->inWidth = input.dim(2);
  g->depth = input.dim(3);
  const size_t filter = filterOperand(context);
  const int32_t fw = context.scalar<int32_t>(filter);
  const int32_t fh = context.scalar<int32_t>(filter + 1);
  if (fw <= 0 || fh <= 0) return unsupported(context) << "filter size must be positive";
  g->window.filterWidth = fw;
  g->window.filterHeight = fh;
  readWindow(context, 1, isExplicit(context), g->inWidth, g->inHeight, &g->window);
  g->activation = static_cast<FusedActivation>(context.scalar<int32_t>(filter + 2));
  g->outHeight = outputSize(g->inHeight, fh, 1, g->window.strideHeight, g->window.height);
  g->outWidth = outputSize(g->inWidth, fw, 1, g->window.strideWidth, g->window.width);
  return {};
}

Status preparePool(OperationContext& context) {
  PoolGeometry g;
  NN_RETURN_IF_ERROR(readGeometry(context, &g));
  context.output(0).dimensions = {g.batches, g.outHeight, g.outWidth, g.depth};
  return {};
}

// Visits the window of every output pixel: accumulate(acc, pixel) once per tap inside the
// input, on `depth` channels at a time, then emit(outputOffset, acc, tapCount).
template <typename T, typename Acc, typename Accumulate, typename Emit>
void runPool(const OperationContext& context, const PoolGeometry& g, Acc init, Accumulate accumulate, Emit emit) {
  const T* in = context.input(0).as<T>();
  std::vector<Acc> acc(g.depth);
  for (uint32_t b = 0; b < g.batches; ++b) {
    for (uint32_t oy = 0; oy < g.outHeight; ++oy) {
      const int64_t y0 = windowStart(oy, g.window.strideHeight, g.window.height.before);
      const int64_t yBegin = std::max<int64_t>(0, y0);
      const int64_t yEnd = std::min<int64_t>(g.inHeight, y0 + g.window.filterHeight);
      for (uint32_t ox = 0; ox < g.outWidth; ++ox) {
        const int64_t x0 = windowStart(ox, g.window.strideWidth, g.window.width.before);
        const int64_t xBegin = std::max<int64_t>(0, x0);
        const int64_t xEnd = std::min<int64_t>(g.inWidth, x0 + g.window.filterWidth);
        std::fill(acc.begin(), acc.end(), init);
        for (int64_t iy = yBegin; iy < yEnd; ++iy) {
          for (int64_t ix = xBegin; ix < xEnd; ++ix) {
            accumulate(acc.data(), in + ((size_t(b) * g.inHeight + iy) * g.inWidth + ix) * g.depth);
          }
        }
        // At most the input's pixels: within int32.
        const auto count =
            static_cast<int32_t>(std::max<int64_t>(0, yEnd - yBegin) * std::max<int64_t>(0, xEnd - xBegin));
        emit(((size_t(b) * g.outHeight + oy) * g.outWidth + ox) * g.depth, acc.data(), count);
      }
    }
  }
}

// The per-channel loops, vectorized.
template <typename T, typename Acc>
NNREMOTE_VECTOR_CLONES void addRow(Acc* __restrict__ acc, const T* __restrict__ pixel, uint32_t n) {
  for (uint32_t c = 0; c < n; ++c) acc[c] += pixel[c];
}
template <typename T>
NNREMOTE_VECTOR_CLONES void maxRow(T* __restrict__ acc, const T* __restrict__ pixel, uint32_t n) {
  for (uint32_t c = 0; c < n; ++c) acc[c] = std::max(acc[c], pixel[c]);
}
NNREMOTE_VECTOR_CLONES void averageRow(const float* __restrict__ sum, float* __restrict__ out, uint32_t n,
                                       int32_t count, FloatRange range) {
  for (uint32_t c = 0; c < n; ++c) out[c] = std::min(range.max, std::max(range.min, count ? sum[c] / count : 0.0f));
}
// (sum + count / 2) / count, rounded down as the reference's integer division, without that
// division (which does not vectorize): adding 1/2 keeps the floor exact despite 1/count's rounding.
template <typename Sum>
NNREMOTE_VECTOR_CLONES void averageRow(const Sum* __restrict__ sum, uint8_t* __restrict__ out, uint32_t n,
                                       int32_t count, QuantRange range) {
  const double inverse = count ? 1.0 / count : 0.0;
  for (uint32_t c = 0; c < n; ++c) {
    const int32_t average = int32_t((double(sum[c]) + count / 2 + 0.5) * inverse);
    out[c] = uint8_t(std::min(range.max, std::max(range.min, average)));
  }
}
template <typename T, typename Range>
NNREMOTE_VECTOR_CLONES void clampRow(const T* __restrict__ value, T* __restrict__ out, uint32_t n, Range range) {
  for (uint32_t c = 0; c < n; ++c) out[c] = T(std::min<decltype(range.max)>(range.max, std::max<decltype(range.min)>(range.min, value[c])));
}

// The quantized average, its window sums in `Sum`.
template <typename Sum>
void averageQuantized(OperationContext& context, const PoolGeometry& g, uint8_t* out, QuantRange range) {
  const uint32_t depth = g.depth;
  runPool<uint8_t>(
      context, g, Sum{0}, [&](Sum* acc, const uint8_t* pixel) { addRow(acc, pixel, depth); },
      [&](size_t base, const Sum* sum, int32_t n) { averageRow(sum, out + base, depth, n, range); });
}

template <bool kAverage>
Status executePool(OperationContext& context) {
  PoolGeometry g;
  NN_RETURN_IF_ERROR(readGeometry(context, &g));
  if (runPoolingOnXnnpack(context, {g.window, /*max=*/!kAverage, g.activation})) return {};
  Tensor& output = context.output(0);
  const uint32_t depth = g.depth;
  if (context.inputType(0) == OperandType::TENSOR_FLOAT32) {
    float* out = output.asMutable<float>();
    const FloatRange range = activationRange(g.activation);
    if (kAverage) {
      runPool<float>(context, g, 0.0f, [&](float* acc, const float* pixel) { addRow(acc, pixel, depth); },
                     [&](size_t base, const float* sum, int32_t n) { averageRow(sum, out + base, depth, n, range); });
    } else {
      runPool<float>(context, g, std::numeric_limits<float>::lowest(),
                     [&](float* acc, const float* pixel) { maxRow(acc, pixel, depth); },
                     [&](size_t base, const float* m, int32_t) { clampRow(m, out + base, depth, range); });
    }
    return {};
  }
  uint8_t* out = output.asMutable<uint8_t>();
  const QuantRange range = activationRange(g.activation, output);
  if (kAverage) {
    // A window's sum is at most 255 per tap inside the input: 32 bits unless the input has more
    // than 2^31 / 255 pixels (a legal shape), which sums in 64.
    constexpr uint64_t kMaxPixelsFor32Bits = std::numeric_limits<int32_t>::max() / 255;
    if (uint64_t{g.inHeight} * g.inWidth <= kMaxPixelsFor32Bits) {
      averageQuantized<int32_t>(context, g, out, range);
    } else {
      averageQuantized<int64_t>(context, g, out, range);
    }
  } else {
    runPool<uint8_t>(context, g, uint8_t{0}, [&](uint8_t* acc, const uint8_t* pixel) { maxRow(acc, pixel, depth); },
                     [&](size_t base, const uint8_t* m, int32_t) { clampRow(m, out + base, depth, range); });
  }
  return {};
}

int poolLayout(const OperationContext& context) { return int(filterOperand(context) + 3); }

// One vector-lane operation per output element and window tap, as in Vela's pooling blocks.
OperationWork poolWork(const OperationContext& context) {
  const size_t filter = filterOperand(context);
  const uint64_t window = uint64_t(context.scalar<int32_t>(filter)) * context.scalar<int32_t>(filter + 1);
  OperationWork work;
  work.vectorElements = context.output(0).elementCount() * window;
  return work;
}

}  // namespace

const OperationKernel kAveragePool2dKernel = {&validatePool, &preparePool, &executePool<true>,
                                              &poolWork, &poolLayout};
NNREMOTE_REGISTER_KERNEL(OperationType::AVERAGE_POOL_2D, kAveragePool2dKernel);
const OperationKernel kMaxPool2dKernel = {&validatePool, &preparePool, &executePool<false>,
                                          &poolWork, &poolLayout};
NNREMOTE_REGISTER_KERNEL(OperationType::MAX_POOL_2D, kMaxPool2dKernel);

}  // namespace nnremote::sim
