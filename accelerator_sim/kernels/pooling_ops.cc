// AVERAGE_POOL_2D and MAX_POOL_2D, NHWC. The average counts only taps inside the input, as the
// NNAPI reference does.
#include "accelerator_sim/kernels/kernel_utils.h"
#include "accelerator_sim/kernels/kernels.h"
#include "accelerator_sim/kernels/window.h"

namespace nnremote::sim {
namespace {

// Implicit padding: input, scheme, stride w/h, filter w/h, activation, [layout] (7 or 8).
// Explicit padding: input, pad l/r/t/b, stride w/h, filter w/h, activation, [layout] (10 or 11).
bool isExplicit(const OperationContext& context) { return context.inputCount() >= 10; }

size_t filterOperand(const OperationContext& context) {
  return 1 + windowOperandCount(isExplicit(context));
}

Status validatePool(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectCounts(context, {7, 8, 10, 11}, 1));
  NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, context.inputType(0)));
  NN_RETURN_IF_ERROR(expectSameTypeAsFirst(context, {}));
  NN_RETURN_IF_ERROR(validateWindowOperands(context, 1, isExplicit(context)));
  const size_t filter = filterOperand(context);
  NN_RETURN_IF_ERROR(expectScalar(context, filter, OperandType::INT32));
  NN_RETURN_IF_ERROR(expectScalar(context, filter + 1, OperandType::INT32));
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

// Calls reduce(sum/max state) over the window of every output element, then emit(index, count).
template <typename T, typename Init, typename Step, typename Emit>
void runPool(const OperationContext& context, const PoolGeometry& g, Init init, Step step,
             Emit emit) {
  const T* in = context.input(0).as<T>();
  using Acc = decltype(init());
  std::vector<Acc> acc(g.depth);
  for (uint32_t b = 0; b < g.batches; ++b) {
    for (uint32_t oy = 0; oy < g.outHeight; ++oy) {
      const int32_t y0 = int32_t(oy * g.window.strideHeight) - int32_t(g.window.height.before);
      const int32_t yBegin = std::max(0, y0);
      const int32_t yEnd = std::min(int32_t(g.inHeight), y0 + int32_t(g.window.filterHeight));
      for (uint32_t ox = 0; ox < g.outWidth; ++ox) {
        const int32_t x0 = int32_t(ox * g.window.strideWidth) - int32_t(g.window.width.before);
        const int32_t xBegin = std::max(0, x0);
        const int32_t xEnd = std::min(int32_t(g.inWidth), x0 + int32_t(g.window.filterWidth));
        std::fill(acc.begin(), acc.end(), init());
        for (int32_t iy = yBegin; iy < yEnd; ++iy) {
          for (int32_t ix = xBegin; ix < xEnd; ++ix) {
            const T* pixel = in + ((size_t(b) * g.inHeight + iy) * g.inWidth + ix) * g.depth;
            for (uint32_t c = 0; c < g.depth; ++c) acc[c] = step(acc[c], pixel[c]);
          }
        }
        const int32_t count = std::max(0, yEnd - yBegin) * std::max(0, xEnd - xBegin);
        const size_t base = ((size_t(b) * g.outHeight + oy) * g.outWidth + ox) * g.depth;
        for (uint32_t c = 0; c < g.depth; ++c) emit(base + c, acc[c], count);
      }
    }
  }
}

template <bool kAverage>
Status executePool(OperationContext& context) {
  PoolGeometry g;
  NN_RETURN_IF_ERROR(readGeometry(context, &g));
  Tensor& output = context.output(0);
  if (context.inputType(0) == OperandType::TENSOR_FLOAT32) {
    float* out = output.asMutable<float>();
    const FloatRange range = activationRange(g.activation);
    auto clamp = [&](float v) { return std::min(range.max, std::max(range.min, v)); };
    if (kAverage) {
      runPool<float>(context, g, [] { return 0.0f; }, [](float a, float x) { return a + x; },
                     [&](size_t i, float sum, int32_t n) { out[i] = clamp(n ? sum / n : 0.0f); });
    } else {
      runPool<float>(context, g, [] { return std::numeric_limits<float>::lowest(); },
                     [](float a, float x) { return std::max(a, x); },
                     [&](size_t i, float m, int32_t) { out[i] = clamp(m); });
    }
    return {};
  }
  uint8_t* out = output.asMutable<uint8_t>();
  const QuantRange range = activationRange(g.activation, output);
  auto clamp = [&](int32_t v) {
    return static_cast<uint8_t>(std::min(range.max, std::max(range.min, v)));
  };
  if (kAverage) {
    runPool<uint8_t>(context, g, [] { return int32_t{0}; },
                     [](int32_t a, uint8_t x) { return a + int32_t(x); },
                     [&](size_t i, int32_t sum, int32_t n) {
                       out[i] = clamp(n ? (sum + n / 2) / n : 0);
                     });
  } else {
    runPool<uint8_t>(context, g, [] { return int32_t{0}; },
                     [](int32_t a, uint8_t x) { return std::max(a, int32_t(x)); },
                     [&](size_t i, int32_t m, int32_t) { out[i] = clamp(m); });
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
const OperationKernel kMaxPool2dKernel = {&validatePool, &preparePool, &executePool<false>,
                                          &poolWork, &poolLayout};

}  // namespace nnremote::sim
