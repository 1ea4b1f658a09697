// GROUPED_CONV_2D and TRANSPOSE_CONV_2D (NHWC; NCHW through lowering), float32 and quant8 with
// one-scale or per-channel filters.
#include "drivers/sim/kernels/conv_quantization.h"
#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"
#include "drivers/sim/kernels/window.h"
#include "drivers/sim/kernels/xnnpack_ops.h"

namespace nnremote::sim {
namespace {

// Writes accumulators (float or int32 with zero points removed) to the output: bias,
// requantization per output channel, fused activation.
class OutputWriter {
 public:
  OutputWriter(const OperationContext& context, FusedActivation activation, uint32_t outputChannels)
      : output_(context.output(0)), quantized_(output_.type == OperandType::TENSOR_QUANT8_ASYMM) {
    if (quantized_) {
      filter_ = quantizedFilter(context, outputChannels, 0);
      qrange_ = activationRange(activation, output_);
      qbias_ = context.input(2).as<int32_t>();
    } else {
      frange_ = activationRange(activation);
      fbias_ = context.input(2).as<float>();
    }
  }
  bool quantized() const { return quantized_; }
  // Filter values for the accumulation: floats, or int32 without zero point.
  const float* floatFilter(const OperationContext& context) const { return context.input(1).as<float>(); }
  const int32_t* quantFilter() const { return filter_.values.data(); }

  void store(size_t index, uint32_t channel, double acc) const {
    if (!quantized_) {
      output_.asMutable<float>()[index] =
          std::min(frange_.max, std::max(frange_.min, float(acc) + fbias_[channel]));
      return;
    }
    const int32_t q = requantizeSaturating(int64_t(acc) + qbias_[channel], filter_.multipliers[channel],
                                           output_.zeroPoint);
    output_.asMutable<uint8_t>()[index] = static_cast<uint8_t>(std::min(qrange_.max, std::max(qrange_.min, q)));
  }

 private:
  Tensor& output_;
  bool quantized_;
  QuantizedFilter filter_;
  QuantRange qrange_{0, 255};
  FloatRange frange_{0, 0};
  const int32_t* qbias_ = nullptr;
  const float* fbias_ = nullptr;
};

// The input value with its zero point removed.
inline double inputValue(const Tensor& input, size_t index) {
  if (input.type == OperandType::TENSOR_QUANT8_ASYMM) return int32_t(input.as<uint8_t>()[index]) - input.zeroPoint;
  return input.as<float>()[index];
}

// ---- GROUPED_CONV_2D: input, filter [Cout, Fh, Fw, Cin/G], bias, padding (4 explicit or 1
// scheme), stride w, stride h, groups, activation, layout (12 or 9 inputs) ---------------------

bool groupedExplicit(const OperationContext& context) { return context.inputCount() == 12; }
size_t groupsOperand(const OperationContext& context) { return 3 + windowOperandCount(groupedExplicit(context)); }

Status validateGrouped(const OperationContext& context) {
  NN_RETURN_IF_ERROR(validateConvOperandTypes(context, 0));
  NN_RETURN_IF_ERROR(validateWindowOperands(context, 3, groupedExplicit(context)));
  const size_t groups = groupsOperand(context);
  NN_RETURN_IF_ERROR(expectFusedActivation(context, groups + 1));
  NN_RETURN_IF_ERROR(expectNhwc(context, groups + 2));
  if (context.input(0).rank() != 4 || context.input(1).rank() != 4) return unsupported(context) << "input and filter must have rank 4";
  return {};
}

struct GroupedGeometry {
  uint32_t batches, inHeight, inWidth, inDepth, outHeight, outWidth, outDepth, groups;
  Window window;
  FusedActivation activation;
};

Status groupedGeometry(const OperationContext& context, GroupedGeometry* g) {
  const Tensor& in = context.input(0);
  const Tensor& filter = context.input(1);
  g->batches = in.dim(0), g->inHeight = in.dim(1), g->inWidth = in.dim(2), g->inDepth = in.dim(3);
  g->outDepth = filter.dim(0);
  g->window.filterHeight = filter.dim(1);
  g->window.filterWidth = filter.dim(2);
  const size_t groups = groupsOperand(context);
  const int32_t count = context.scalar<int32_t>(groups);
  if (count < 1 || g->inDepth % count || g->outDepth % count || filter.dim(3) * uint32_t(count) != g->inDepth) {
    return unsupported(context) << count << " groups do not divide input depth " << g->inDepth
                                << " and output depth " << g->outDepth << " with filter depth " << filter.dim(3);
  }
  NN_RETURN_IF_ERROR(expectBiasPerOutputChannel(context, g->outDepth));
  g->groups = uint32_t(count);
  g->activation = static_cast<FusedActivation>(context.scalar<int32_t>(groups + 1));
  readWindow(context, 3, groupedExplicit(context), g->inWidth, g->inHeight, &g->window);
  g->outHeight = outputSize(g->inHeight, g->window.filterHeight, 1, g->window.strideHeight, g->window.height);
  g->outWidth = outputSize(g->inWidth, g->window.filterWidth, 1, g->window.strideWidth, g->window.width);
  return {};
}

Status prepareGrouped(OperationContext& context) {
  GroupedGeometry g;
  NN_RETURN_IF_ERROR(groupedGeometry(context, &g));
  context.output(0).dimensions = {g.batches, g.outHeight, g.outWidth, g.outDepth};
  return {};
}

template <typename W>
void runGrouped(const OperationContext& context, const GroupedGeometry& g, const W* w, const OutputWriter& writer) {
  const Tensor& in = context.input(0);
  const uint32_t inPerGroup = g.inDepth / g.groups, outPerGroup = g.outDepth / g.groups;
  size_t index = 0;
  for (uint32_t b = 0; b < g.batches; ++b)
    for (uint32_t oy = 0; oy < g.outHeight; ++oy)
      for (uint32_t ox = 0; ox < g.outWidth; ++ox)
        for (uint32_t oc = 0; oc < g.outDepth; ++oc, ++index) {
          const uint32_t firstIn = (oc / outPerGroup) * inPerGroup;
          double acc = 0;
          for (uint32_t fy = 0; fy < g.window.filterHeight; ++fy) {
            const int64_t iy = windowStart(oy, g.window.strideHeight, g.window.height.before) + fy;
            if (iy < 0 || iy >= int64_t{g.inHeight}) continue;
            for (uint32_t fx = 0; fx < g.window.filterWidth; ++fx) {
              const int64_t ix = windowStart(ox, g.window.strideWidth, g.window.width.before) + fx;
              if (ix < 0 || ix >= int64_t{g.inWidth}) continue;
              const size_t pixel = ((size_t(b) * g.inHeight + iy) * g.inWidth + ix) * g.inDepth + firstIn;
              const W* tap = w + ((size_t(oc) * g.window.filterHeight + fy) * g.window.filterWidth + fx) * inPerGroup;
              for (uint32_t ic = 0; ic < inPerGroup; ++ic) acc += inputValue(in, pixel + ic) * double(tap[ic]);
            }
          }
          writer.store(index, oc, acc);
        }
}

Status executeGrouped(OperationContext& context) {
  GroupedGeometry g;
  NN_RETURN_IF_ERROR(groupedGeometry(context, &g));
  XnnpackConvolution convolution;
  convolution.window = g.window;
  convolution.groups = g.groups;
  convolution.groupInputChannels = g.inDepth / g.groups;
  convolution.groupOutputChannels = g.outDepth / g.groups;
  convolution.activation = g.activation;
  if (runConvolutionOnXnnpack(context, convolution)) return {};
  const OutputWriter writer(context, g.activation, g.outDepth);
  if (writer.quantized()) {
    runGrouped(context, g, writer.quantFilter(), writer);
  } else {
    runGrouped(context, g, writer.floatFilter(context), writer);
  }
  return {};
}

OperationWork groupedWork(const OperationContext& context) {
  const Tensor& out = context.output(0);
  const Tensor& filter = context.input(1);
  const uint32_t groups = uint32_t(context.scalar<int32_t>(groupsOperand(context)));
  GemmWork gemm;
  gemm.m = uint64_t{out.dim(0)} * out.dim(1) * out.dim(2);
  gemm.n = out.dim(3) / groups;
  gemm.k = uint64_t{filter.dim(1)} * filter.dim(2) * filter.dim(3);
  gemm.repeat = groups;
  gemm.inputElementBytes = gemm.outputElementBytes = hal::elementSize(out.type);
  OperationWork work;
  work.gemms.push_back(gemm);
  return work;
}

int lastOperand(const OperationContext& context) { return int(context.inputCount()) - 1; }
int outputShapeOperand(const OperationContext& context) { return context.inputCount() == 9 ? 3 : -1; }

// ---- TRANSPOSE_CONV_2D: input, filter [Cout, Fh, Fw, Cin], bias, then either explicit padding
// (l, r, t, b), stride w, stride h, activation, layout (11 inputs), or output shape [4],
// scheme, stride w, stride h, activation, layout (9 inputs) -----------------------------------

bool transposeExplicit(const OperationContext& context) { return context.inputCount() == 11; }

Status validateTransposeConv(const OperationContext& context) {
  NN_RETURN_IF_ERROR(validateConvOperandTypes(context, 0));
  if (transposeExplicit(context)) {
    NN_RETURN_IF_ERROR(validateWindowOperands(context, 3, true));
  } else {
    NN_RETURN_IF_ERROR(validateWindowOperands(context, 4, false));
  }
  NN_RETURN_IF_ERROR(expectFusedActivation(context, context.inputCount() - 2));
  NN_RETURN_IF_ERROR(expectNhwc(context, context.inputCount() - 1));
  if (context.input(0).rank() != 4 || context.input(1).rank() != 4) return unsupported(context) << "input and filter must have rank 4";
  return {};
}

struct TransposeGeometry {
  uint32_t batches, inHeight, inWidth, inDepth, outHeight, outWidth, outDepth;
  uint32_t filterHeight, filterWidth, strideHeight, strideWidth;
  // 64-bit, as are the positions computed with them: a stride and a padding may each be near
  // INT32_MAX (the fuzzers found the 32-bit forms overflowing).
  int64_t padTop, padLeft;
  FusedActivation activation;
};

Status transposeGeometry(const OperationContext& context, TransposeGeometry* g) {
  const Tensor& in = context.input(0);
  const Tensor& filter = context.input(1);
  g->batches = in.dim(0), g->inHeight = in.dim(1), g->inWidth = in.dim(2), g->inDepth = in.dim(3);
  g->outDepth = filter.dim(0), g->filterHeight = filter.dim(1), g->filterWidth = filter.dim(2);
  if (filter.dim(3) != g->inDepth) return unsupported(context) << "filter depth differs from input depth";
  NN_RETURN_IF_ERROR(expectBiasPerOutputChannel(context, g->outDepth));
  g->activation = static_cast<FusedActivation>(context.scalar<int32_t>(context.inputCount() - 2));
  if (transposeExplicit(context)) {
    const int32_t left = context.scalar<int32_t>(3), right = context.scalar<int32_t>(4),
                  top = context.scalar<int32_t>(5), bottom = context.scalar<int32_t>(6);
    g->strideWidth = context.scalar<int32_t>(7);
    g->strideHeight = context.scalar<int32_t>(8);
    g->padLeft = left, g->padTop = top;
    const int64_t h = int64_t(g->inHeight - 1) * g->strideHeight + g->filterHeight - top - bottom;
    const int64_t w = int64_t(g->inWidth - 1) * g->strideWidth + g->filterWidth - left - right;
    if (h <= 0 || w <= 0) return unsupported(context) << "the padding leaves no output";
    g->outHeight = uint32_t(h), g->outWidth = uint32_t(w);
    return {};
  }
  const Tensor& shape = context.input(3);
  if (shape.elementCount() != 4) return unsupported(context) << "output shape must have 4 entries";
  const int32_t* dims = shape.as<int32_t>();
  if (dims[0] != int32_t(g->batches) || dims[3] != int32_t(g->outDepth) || dims[1] <= 0 || dims[2] <= 0) {
    return unsupported(context) << "output shape disagrees with the input batch or filter count";
  }
  g->outHeight = uint32_t(dims[1]), g->outWidth = uint32_t(dims[2]);
  const auto scheme = static_cast<PaddingScheme>(context.scalar<int32_t>(4));
  g->strideWidth = context.scalar<int32_t>(5);
  g->strideHeight = context.scalar<int32_t>(6);
  // The padding that makes the given output size come out; SAME splits it, VALID has none.
  auto head = [&](uint32_t in, uint32_t stride, uint32_t filter, uint32_t out) -> int64_t {
    if (scheme != PaddingScheme::SAME) return 0;
    const int64_t total = std::max<int64_t>(0, int64_t{in - 1} * stride + filter - int64_t{out});
    return total / 2;
  };
  g->padTop = head(g->inHeight, g->strideHeight, g->filterHeight, g->outHeight);
  g->padLeft = head(g->inWidth, g->strideWidth, g->filterWidth, g->outWidth);
  return {};
}

Status prepareTransposeConv(OperationContext& context) {
  TransposeGeometry g;
  NN_RETURN_IF_ERROR(transposeGeometry(context, &g));
  context.output(0).dimensions = {g.batches, g.outHeight, g.outWidth, g.outDepth};
  return {};
}

// Each input pixel scatters its contribution over the output window it covers.
template <typename W>
void runTransposeConv(const OperationContext& context, const TransposeGeometry& g, const W* w,
                      const OutputWriter& writer) {
  const Tensor& in = context.input(0);
  std::vector<double> acc(size_t(g.batches) * g.outHeight * g.outWidth * g.outDepth, 0.0);
  for (uint32_t b = 0; b < g.batches; ++b)
    for (uint32_t iy = 0; iy < g.inHeight; ++iy)
      for (uint32_t ix = 0; ix < g.inWidth; ++ix) {
        const size_t pixel = ((size_t(b) * g.inHeight + iy) * g.inWidth + ix) * g.inDepth;
        for (uint32_t fy = 0; fy < g.filterHeight; ++fy) {
          const int64_t oy = int64_t{iy} * g.strideHeight + fy - g.padTop;
          if (oy < 0 || oy >= int64_t{g.outHeight}) continue;
          for (uint32_t fx = 0; fx < g.filterWidth; ++fx) {
            const int64_t ox = int64_t{ix} * g.strideWidth + fx - g.padLeft;
            if (ox < 0 || ox >= int64_t{g.outWidth}) continue;
            double* out = &acc[((size_t(b) * g.outHeight + oy) * g.outWidth + ox) * g.outDepth];
            for (uint32_t oc = 0; oc < g.outDepth; ++oc) {
              const W* tap = w + ((size_t(oc) * g.filterHeight + fy) * g.filterWidth + fx) * g.inDepth;
              double sum = 0;
              for (uint32_t ic = 0; ic < g.inDepth; ++ic) sum += inputValue(in, pixel + ic) * double(tap[ic]);
              out[oc] += sum;
            }
          }
        }
      }
  for (size_t i = 0; i < acc.size(); ++i) writer.store(i, uint32_t(i % g.outDepth), acc[i]);
}

Status executeTransposeConv(OperationContext& context) {
  TransposeGeometry g;
  NN_RETURN_IF_ERROR(transposeGeometry(context, &g));
  const OutputWriter writer(context, g.activation, g.outDepth);
  if (writer.quantized()) {
    runTransposeConv(context, g, writer.quantFilter(), writer);
  } else {
    runTransposeConv(context, g, writer.floatFilter(context), writer);
  }
  return {};
}

OperationWork transposeConvWork(const OperationContext& context) {
  const Tensor& in = context.input(0);
  const Tensor& filter = context.input(1);
  GemmWork gemm;
  gemm.m = uint64_t{in.dim(0)} * in.dim(1) * in.dim(2);
  gemm.n = uint64_t{filter.dim(0)} * filter.dim(1) * filter.dim(2);
  gemm.k = in.dim(3);
  gemm.inputElementBytes = gemm.outputElementBytes = hal::elementSize(in.type);
  OperationWork work;
  work.gemms.push_back(gemm);
  return work;
}

}  // namespace

const OperationKernel kGroupedConv2dKernel = {&validateGrouped, &prepareGrouped, &executeGrouped,
                                              &groupedWork, &lastOperand};
NNREMOTE_REGISTER_KERNEL(OperationType::GROUPED_CONV_2D, kGroupedConv2dKernel);
const OperationKernel kTransposeConv2dKernel = {&validateTransposeConv, &prepareTransposeConv,
                                                &executeTransposeConv, &transposeConvWork, &lastOperand,
                                                &outputShapeOperand};
NNREMOTE_REGISTER_KERNEL(OperationType::TRANSPOSE_CONV_2D, kTransposeConv2dKernel);

}  // namespace nnremote::sim
