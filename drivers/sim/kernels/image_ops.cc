// RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR, L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION and
// L2_POOL_2D, with TFLite's reference semantics (which the CTS goldens come from).
#include <cmath>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"
#include "drivers/sim/kernels/window.h"

namespace nnremote::sim {
namespace {

// Element i as a float32 real value (the arithmetic below is in float, like the reference's).
inline float realAt(const Tensor& t, size_t i) { return float(readValue(t, i)); }

// ---- RESIZE_*: input, width and height (INT32 sizes or FLOAT32 scales), [layout],
// [align_corners, half_pixel_centers] ------------------------------------------------------------

Status validateResize(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, context.inputType(0)));
  const OperandType sizeType = context.inputType(1);
  if (sizeType != OperandType::INT32 && sizeType != OperandType::FLOAT32) {
    return unsupported(context) << "the output size must be INT32 sizes or FLOAT32 scales";
  }
  NN_RETURN_IF_ERROR(expectNhwc(context, 3));
  if (context.input(0).rank() != 4) return unsupported(context) << "input must have rank 4";
  return {};
}

Status prepareResize(OperationContext& context) {
  const Tensor& in = context.input(0);
  uint32_t width, height;
  if (context.inputType(1) == OperandType::INT32) {
    const int32_t w = context.scalar<int32_t>(1), h = context.scalar<int32_t>(2);
    if (w <= 0 || h <= 0) return unsupported(context) << "output size must be positive";
    width = uint32_t(w), height = uint32_t(h);
  } else {
    const float sw = context.scalar<float>(1), sh = context.scalar<float>(2);
    if (!(sw > 0) || !(sh > 0)) return unsupported(context) << "scales must be positive";
    const double scaledWidth = std::floor(double(in.dim(2)) * sw), scaledHeight = std::floor(double(in.dim(1)) * sh);
    // Beyond 2^32 pixels a side the size is not even representable, let alone allocatable.
    if (!(scaledWidth < 4294967296.0) || !(scaledHeight < 4294967296.0)) {
      return unsupported(context) << "the scales make an output of " << scaledHeight << "x" << scaledWidth << " pixels";
    }
    width = uint32_t(scaledWidth), height = uint32_t(scaledHeight);
    if (width == 0 || height == 0) return unsupported(context) << "the scales leave no output";
  }
  context.output(0).dimensions = {in.dim(0), height, width, in.dim(3)};
  return {};
}

struct ResizeFlags {
  bool alignCorners = false, halfPixelCenters = false;
};

ResizeFlags resizeFlags(const OperationContext& context) {
  ResizeFlags flags;
  if (context.inputCount() == 6) {
    flags.alignCorners = context.scalar<uint8_t>(4) != 0;
    flags.halfPixelCenters = context.scalar<uint8_t>(5) != 0;
  }
  return flags;
}

float resizeScale(uint32_t in, uint32_t out, bool alignCorners) {
  return alignCorners && out > 1 ? float(in - 1) / float(out - 1) : float(in) / float(out);
}

template <bool kBilinear>
Status executeResize(OperationContext& context) {
  const Tensor& in = context.input(0);
  Tensor& out = context.output(0);
  const ResizeFlags flags = resizeFlags(context);
  if (flags.alignCorners && flags.halfPixelCenters) {
    return unsupported(context) << "align_corners and half_pixel_centers cannot both be set";
  }
  const uint32_t batches = in.dim(0), inH = in.dim(1), inW = in.dim(2), depth = in.dim(3);
  const uint32_t outH = out.dim(1), outW = out.dim(2);
  const float scaleY = resizeScale(inH, outH, flags.alignCorners), scaleX = resizeScale(inW, outW, flags.alignCorners);
  const bool quantized = in.type == OperandType::TENSOR_QUANT8_ASYMM;
  auto at = [&](uint32_t b, uint32_t y, uint32_t x, uint32_t c) {
    return ((size_t(b) * inH + y) * inW + x) * depth + c;
  };
  size_t index = 0;
  for (uint32_t b = 0; b < batches; ++b)
    for (uint32_t y = 0; y < outH; ++y)
      for (uint32_t x = 0; x < outW; ++x)
        for (uint32_t c = 0; c < depth; ++c, ++index) {
          if (!kBilinear) {
            const float offset = flags.halfPixelCenters ? 0.5f : 0.0f;
            auto nearest = [&](uint32_t v, float scale, uint32_t size) {
              const float position = (v + offset) * scale;
              int32_t i = flags.alignCorners ? int32_t(std::round(position)) : int32_t(std::floor(position));
              i = std::min<int32_t>(i, int32_t(size) - 1);
              return uint32_t(std::max(0, i));
            };
            const size_t source = at(b, nearest(y, scaleY, inH), nearest(x, scaleX, inW), c);
            if (quantized) {
              out.asMutable<uint8_t>()[index] = in.as<uint8_t>()[source];
            } else {
              out.asMutable<float>()[index] = in.as<float>()[source];
            }
            continue;
          }
          auto position = [&](uint32_t v, float scale) {
            return flags.halfPixelCenters ? (v + 0.5f) * scale - 0.5f : v * scale;
          };
          const float fy = position(y, scaleY), fx = position(x, scaleX);
          const int32_t y0 = std::max(int32_t(std::floor(fy)), 0), x0 = std::max(int32_t(std::floor(fx)), 0);
          const int32_t y1 = std::min(int32_t(std::ceil(fy)), int32_t(inH) - 1);
          const int32_t x1 = std::min(int32_t(std::ceil(fx)), int32_t(inW) - 1);
          const float dy = fy - y0, dx = fx - x0;
          const float value = realAt(in, at(b, y0, x0, c)) * (1 - dy) * (1 - dx) +
                              realAt(in, at(b, y1, x0, c)) * dy * (1 - dx) +
                              realAt(in, at(b, y0, x1, c)) * (1 - dy) * dx +
                              realAt(in, at(b, y1, x1, c)) * dy * dx;
          writeValue(out, index, value);
        }
  return {};
}

OperationWork resizeWork(const OperationContext& context) {
  OperationWork work;
  work.vectorElements = 4 * context.output(0).elementCount();
  return work;
}

int layoutAt3(const OperationContext&) { return 3; }

// ---- L2_NORMALIZATION (input, [axis]) -------------------------------------------------------

Status validateL2Normalization(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, context.inputType(0)));
  const Tensor& out = context.output(0);
  if (out.type == OperandType::TENSOR_QUANT8_ASYMM && (out.scale != 1.0f / 128 || out.zeroPoint != 128)) {
    return unsupported(context) << "quantized output must have scale 1/128 and zero point 128";
  }
  return {};
}

hal::Result<uint32_t> normalizationAxis(const OperationContext& context, size_t axisOperand) {
  const int32_t rank = int32_t(context.input(0).rank());
  const int32_t axis = context.inputCount() > axisOperand ? context.scalar<int32_t>(axisOperand) : -1;
  if (axis < -rank || axis >= rank) return unsupported(context) << "axis " << axis << " is out of range";
  return uint32_t(axis < 0 ? axis + rank : axis);
}

Status prepareSameShape(OperationContext& context) {
  context.output(0).dimensions = context.input(0).dimensions;
  return {};
}

Status executeL2Normalization(OperationContext& context) {
  NN_ASSIGN_OR_RETURN(const uint32_t axis, normalizationAxis(context, 1));
  const Tensor& in = context.input(0);
  Tensor& out = context.output(0);
  const bool quantized = in.type == OperandType::TENSOR_QUANT8_ASYMM;
  forEachLine(in, axis, [&](size_t, size_t base, size_t stride, size_t length) {
    // The scale cancels out, so quantized values are used without it.
    auto value = [&](size_t k) {
      const size_t i = base + k * stride;
      return quantized ? float(int32_t(in.as<uint8_t>()[i]) - in.zeroPoint) : in.as<float>()[i];
    };
    float sum = 0;
    for (size_t k = 0; k < length; ++k) sum += value(k) * value(k);
    const float norm = std::max(std::sqrt(sum), 1e-6f);
    for (size_t k = 0; k < length; ++k) writeValue(out, base + k * stride, value(k) / norm);
  });
  return {};
}

OperationWork twoPassWork(const OperationContext& context) {
  OperationWork work;
  work.vectorElements = 2 * context.output(0).elementCount();
  return work;
}

// ---- LOCAL_RESPONSE_NORMALIZATION (input, radius, bias, alpha, beta, [axis]) -----------------

Status validateLrn(const OperationContext& context) {
  return {};
}

Status executeLrn(OperationContext& context) {
  NN_ASSIGN_OR_RETURN(const uint32_t axis, normalizationAxis(context, 5));
  const Tensor& in = context.input(0);
  float* out = context.output(0).asMutable<float>();
  const int32_t radius = context.scalar<int32_t>(1);
  const float bias = context.scalar<float>(2), alpha = context.scalar<float>(3), beta = context.scalar<float>(4);
  const float* x = in.as<float>();
  forEachLine(in, axis, [&](size_t, size_t base, size_t stride, size_t length) {
    for (int64_t k = 0; k < int64_t(length); ++k) {
      float sum = 0;
      for (int64_t j = std::max<int64_t>(0, k - radius); j <= std::min<int64_t>(length - 1, k + radius); ++j) {
        const float v = x[base + j * stride];
        sum += v * v;
      }
      out[base + k * stride] = x[base + k * stride] / std::pow(bias + alpha * sum, beta);
    }
  });
  return {};
}

// ---- L2_POOL_2D: as the other pools (explicit or implicit padding), float only --------------

bool poolExplicit(const OperationContext& context) { return context.inputCount() >= 10; }
size_t poolFilterOperand(const OperationContext& context) { return 1 + windowOperandCount(poolExplicit(context)); }

Status validateL2Pool(const OperationContext& context) {
  NN_RETURN_IF_ERROR(validateWindowOperands(context, 1, poolExplicit(context)));
  const size_t filter = poolFilterOperand(context);
  NN_RETURN_IF_ERROR(expectFusedActivation(context, filter + 2));
  NN_RETURN_IF_ERROR(expectNhwc(context, filter + 3));
  if (context.input(0).rank() != 4) return unsupported(context) << "input must have rank 4";
  return {};
}

Window l2PoolWindow(const OperationContext& context) {
  const Tensor& in = context.input(0);
  const size_t filter = poolFilterOperand(context);
  Window window;
  window.filterWidth = uint32_t(context.scalar<int32_t>(filter));
  window.filterHeight = uint32_t(context.scalar<int32_t>(filter + 1));
  readWindow(context, 1, poolExplicit(context), in.dim(2), in.dim(1), &window);
  return window;
}

Status prepareL2Pool(OperationContext& context) {
  const Tensor& in = context.input(0);
  const Window w = l2PoolWindow(context);
  context.output(0).dimensions = {in.dim(0), outputSize(in.dim(1), w.filterHeight, 1, w.strideHeight, w.height),
                                  outputSize(in.dim(2), w.filterWidth, 1, w.strideWidth, w.width), in.dim(3)};
  return {};
}

Status executeL2Pool(OperationContext& context) {
  const Tensor& in = context.input(0);
  Tensor& out = context.output(0);
  const Window w = l2PoolWindow(context);
  const FloatRange range =
      activationRange(static_cast<FusedActivation>(context.scalar<int32_t>(poolFilterOperand(context) + 2)));
  const float* x = in.as<float>();
  float* y = out.asMutable<float>();
  size_t index = 0;
  for (uint32_t b = 0; b < out.dim(0); ++b)
    for (uint32_t oy = 0; oy < out.dim(1); ++oy)
      for (uint32_t ox = 0; ox < out.dim(2); ++ox)
        for (uint32_t c = 0; c < out.dim(3); ++c, ++index) {
          const int64_t y0 = windowStart(oy, w.strideHeight, w.height.before);
          const int64_t x0 = windowStart(ox, w.strideWidth, w.width.before);
          float sum = 0;
          int64_t count = 0;
          for (int64_t iy = std::max<int64_t>(0, y0); iy < std::min<int64_t>(in.dim(1), y0 + w.filterHeight); ++iy)
            for (int64_t ix = std::max<int64_t>(0, x0); ix < std::min<int64_t>(in.dim(2), x0 + w.filterWidth); ++ix) {
              const float v = x[((size_t(b) * in.dim(1) + iy) * in.dim(2) + ix) * in.dim(3) + c];
              sum += v * v;
              ++count;
            }
          y[index] = std::min(range.max, std::max(range.min, count ? std::sqrt(sum / count) : 0.0f));
        }
  return {};
}

OperationWork l2PoolWork(const OperationContext& context) {
  const size_t filter = poolFilterOperand(context);
  OperationWork work;
  work.vectorElements = context.output(0).elementCount() * uint64_t(context.scalar<int32_t>(filter)) *
                        uint64_t(context.scalar<int32_t>(filter + 1));
  return work;
}

int l2PoolLayout(const OperationContext& context) { return int(poolFilterOperand(context) + 3); }

}  // namespace

const OperationKernel kResizeBilinearKernel = {&validateResize, &prepareResize, &executeResize<true>,
                                               &resizeWork, &layoutAt3};
NNREMOTE_REGISTER_KERNEL(OperationType::RESIZE_BILINEAR, kResizeBilinearKernel);
const OperationKernel kResizeNearestNeighborKernel = {&validateResize, &prepareResize, &executeResize<false>,
                                                      &resizeWork, &layoutAt3};
NNREMOTE_REGISTER_KERNEL(OperationType::RESIZE_NEAREST_NEIGHBOR, kResizeNearestNeighborKernel);
const OperationKernel kL2NormalizationKernel = {&validateL2Normalization, &prepareSameShape,
                                                &executeL2Normalization, &twoPassWork};
NNREMOTE_REGISTER_KERNEL(OperationType::L2_NORMALIZATION, kL2NormalizationKernel);
const OperationKernel kLocalResponseNormalizationKernel = {&validateLrn, &prepareSameShape, &executeLrn,
                                                           &twoPassWork};
NNREMOTE_REGISTER_KERNEL(OperationType::LOCAL_RESPONSE_NORMALIZATION, kLocalResponseNormalizationKernel);
const OperationKernel kL2Pool2dKernel = {&validateL2Pool, &prepareL2Pool, &executeL2Pool, &l2PoolWork,
                                         &l2PoolLayout};
NNREMOTE_REGISTER_KERNEL(OperationType::L2_POOL_2D, kL2Pool2dKernel);

}  // namespace nnremote::sim
