// Region-of-interest feature extraction: ROI_ALIGN and ROI_POOLING.
//
// Both take a feature map, boxes [numRois, 4] as (x1, y1, x2, y2) in image coordinates, the
// batch index of every box, the output height and width, and the ratios from image to feature
// map coordinates. Quantized boxes are TENSOR_QUANT16_ASYMM with scale 0.125 and zero point 0.
#include <cmath>
#include <cstring>
#include <vector>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"

namespace nnremote::sim {
namespace {

constexpr size_t kInput = 0, kRois = 1, kBatchIndex = 2, kOutHeight = 3, kOutWidth = 4,
                 kHeightStride = 5, kWidthStride = 6;

Status validateRoiOperation(const OperationContext& context, size_t inputCount) {
  const OperandType type = context.inputType(kInput);
  NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, type));
  if (context.output(0).type != type) return unsupported(context) << "output type differs from the input's";
  const Tensor& rois = context.input(kRois);
  if (rois.type == OperandType::TENSOR_QUANT16_ASYMM && (rois.scale != 0.125f || rois.zeroPoint != 0)) {
    return unsupported(context) << "quantized boxes must have scale 0.125 and zero point 0";
  }
  return {};
}

Status prepareRoiOperation(OperationContext& context) {
  const Tensor& in = context.input(kInput);
  const Tensor& rois = context.input(kRois);
  if (in.rank() != 4) return unsupported(context) << "input must have rank 4";
  if (rois.rank() != 2 || rois.dim(1) != 4) return unsupported(context) << "boxes must have shape [numRois, 4]";
  const Tensor& batchIndex = context.input(kBatchIndex);
  if (batchIndex.rank() != 1 || batchIndex.dim(0) != rois.dim(0)) {
    return unsupported(context) << "batch indexes must have shape [numRois] = [" << rois.dim(0) << "]";
  }
  const int32_t outHeight = context.scalar<int32_t>(kOutHeight), outWidth = context.scalar<int32_t>(kOutWidth);
  if (outHeight <= 0 || outWidth <= 0) return unsupported(context) << "output height and width must be positive";
  if (!(context.scalar<float>(kHeightStride) > 0) || !(context.scalar<float>(kWidthStride) > 0)) {
    return unsupported(context) << "height and width strides must be positive";
  }
  Tensor& out = context.output(0);
  out.dimensions = {rois.dim(0), uint32_t(outHeight), uint32_t(outWidth), in.dim(3)};
  return {};
}

// One box in feature-map coordinates, and the batch it reads from.
struct Box {
  uint32_t batch;
  float x1, y1, x2, y2;
};

// Reads and checks box `i`: in range for the feature map and not inverted.
hal::Result<Box> readBox(const OperationContext& context, uint32_t i) {
  const Tensor& rois = context.input(kRois);
  const Tensor& in = context.input(kInput);
  float corner[4];
  for (size_t k = 0; k < 4; ++k) {
    corner[k] = rois.type == OperandType::TENSOR_QUANT16_ASYMM ? rois.as<uint16_t>()[i * 4 + k] * rois.scale
                                                                : rois.as<float>()[i * 4 + k];
  }
  const int32_t batch = context.input(kBatchIndex).as<int32_t>()[i];
  if (batch < 0 || uint32_t(batch) >= in.dim(0)) {
    return unsupported(context) << "box " << i << " has batch index " << batch << " outside [0, " << in.dim(0) << ")";
  }
  const float heightScale = 1.0f / context.scalar<float>(kHeightStride);
  const float widthScale = 1.0f / context.scalar<float>(kWidthStride);
  const Box box{uint32_t(batch), corner[0] * widthScale, corner[1] * heightScale, corner[2] * widthScale,
                corner[3] * heightScale};
  const bool inside = box.x1 >= 0 && box.y1 >= 0 && box.x2 <= in.dim(2) && box.y2 <= in.dim(1);
  if (!inside || box.x1 > box.x2 || box.y1 > box.y2) {
    return unsupported(context) << "box " << i << " (" << corner[0] << ", " << corner[1] << ", " << corner[2]
                                << ", " << corner[3] << ") is inverted or outside the feature map";
  }
  return box;
}

// ---- ROI_ALIGN (..., sampling points per bin in height and width, layout) --------------------
// Each output bin averages bilinear samples on a regular grid; with a sampling ratio of 0 the
// grid adapts to ceil(bin size).

constexpr size_t kHeightSamples = 7, kWidthSamples = 8, kAlignLayout = 9;

Status validateRoiAlign(const OperationContext& context) {
  NN_RETURN_IF_ERROR(validateRoiOperation(context, 10));
  return expectNhwc(context, kAlignLayout);
}

Status prepareRoiAlign(OperationContext& context) {
  if (context.scalar<int32_t>(kHeightSamples) < 0 || context.scalar<int32_t>(kWidthSamples) < 0) {
    return unsupported(context) << "sampling ratios must not be negative";
  }
  return prepareRoiOperation(context);
}

// The four neighbours of a sample point and their bilinear weights (clamped at the far edge).
struct BilinearSample {
  size_t offsets[4];
  float weights[4];
};

BilinearSample bilinearSample(float x, float y, uint32_t width, uint32_t height, uint32_t depth) {
  uint32_t x1 = uint32_t(std::floor(x)), y1 = uint32_t(std::floor(y));
  uint32_t x2 = x1 + 1, y2 = y1 + 1;
  float dx = x - float(x1), dy = y - float(y1);
  if (x1 >= width - 1) x1 = x2 = width - 1, dx = 0;
  if (y1 >= height - 1) y1 = y2 = height - 1, dy = 0;
  auto at = [&](uint32_t yy, uint32_t xx) { return (size_t(yy) * width + xx) * depth; };
  return {{at(y1, x1), at(y1, x2), at(y2, x1), at(y2, x2)},
          {(1 - dx) * (1 - dy), dx * (1 - dy), (1 - dx) * dy, dx * dy}};
}

// The most work one ROI_ALIGN may take, counted in channel samples: several times a Mask R-CNN
// head's (1000 boxes x 7x7 bins x 2x2 samples x 256 channels = 5e7), and about half a second
// on the host. Anything beyond is refused rather than left to run for minutes.
constexpr double kMostSamples = 2e8;
// Placing a sample point (its four neighbours and weights) costs about as much as sampling four
// channels at it: measured at -O2, 12 ns per point with one channel, 2.6 ns per channel with
// 256. Counting channels alone let a one-channel map take 2.4 s within the limit.
constexpr double kPointCostInChannels = 4;

// How one box is sampled: its bins' size and the sample points per bin in each direction.
struct BoxSampling {
  Box box;
  float wStep = 0, hStep = 0;
  double wRatio = 0, hRatio = 0;
};

hal::Result<BoxSampling> samplingOf(const OperationContext& context, uint32_t r, uint32_t outHeight,
                                    uint32_t outWidth) {
  BoxSampling sampling;
  NN_ASSIGN_OR_RETURN(sampling.box, readBox(context, r));
  const Box& box = sampling.box;
  const float roiWidth = std::max(box.x2 - box.x1, 1.0f), roiHeight = std::max(box.y2 - box.y1, 1.0f);
  sampling.wStep = roiWidth / float(outWidth);
  sampling.hStep = roiHeight / float(outHeight);
  const int32_t wSamples = context.scalar<int32_t>(kWidthSamples), hSamples = context.scalar<int32_t>(kHeightSamples);
  sampling.wRatio = wSamples > 0 ? double(wSamples) : std::ceil(double(sampling.wStep));
  sampling.hRatio = hSamples > 0 ? double(hSamples) : std::ceil(double(sampling.hStep));
  return sampling;
}

Status executeRoiAlign(OperationContext& context) {
  const Tensor& in = context.input(kInput);
  Tensor& out = context.output(0);
  const uint32_t height = in.dim(1), width = in.dim(2), depth = in.dim(3);
  const uint32_t outHeight = out.dim(1), outWidth = out.dim(2);
  // Boxes of absurd size (or sampling ratios) would take practically forever; the server must
  // answer, so such work is refused, before any of it is done.
  double work = 0;
  for (uint32_t r = 0; r < out.dim(0); ++r) {
    NN_ASSIGN_OR_RETURN(const BoxSampling sampling, samplingOf(context, r, outHeight, outWidth));
    work += sampling.wRatio * sampling.hRatio * outHeight * outWidth * (depth + kPointCostInChannels);
    if (!(work <= kMostSamples)) {
      return unsupported(context) << "boxes 0.." << r << " would take the work of " << work
                                  << " channel samples (at most " << kMostSamples << ")";
    }
  }
  const bool quantized = in.type == OperandType::TENSOR_QUANT8_ASYMM;
  // Quantized sums use weights quantized to 1/255, as the reference does.
  constexpr float kWeightScale = 1.0f / 255.0f;
  std::vector<float> sum(depth);
  std::vector<int64_t> quantSum(depth);  // wide: many samples of extreme values add up
  size_t outIndex = 0;
  for (uint32_t r = 0; r < out.dim(0); ++r) {
    NN_ASSIGN_OR_RETURN(const BoxSampling sampling, samplingOf(context, r, outHeight, outWidth));
    const Box& box = sampling.box;
    const float wStep = sampling.wStep, hStep = sampling.hStep;
    const uint32_t wRatio = uint32_t(sampling.wRatio), hRatio = uint32_t(sampling.hRatio);
    const uint32_t samplePoints = wRatio * hRatio;
    const float wBin = wStep / float(wRatio), hBin = hStep / float(hRatio);
    const size_t batchBase = size_t(box.batch) * height * width * depth;
    QuantizedMultiplier multiplier;
    if (quantized) multiplier = quantizeMultiplier(double(in.scale) * kWeightScale / out.scale / samplePoints);
    for (uint32_t i = 0; i < outHeight; ++i) {
      for (uint32_t j = 0; j < outWidth; ++j, outIndex += depth) {
        const float wStart = wStep * j + box.x1, wEnd = wStep * (j + 1) + box.x1;
        const float hStart = hStep * i + box.y1, hEnd = hStep * (i + 1) + box.y1;
        std::fill(sum.begin(), sum.end(), 0.0f);
        std::fill(quantSum.begin(), quantSum.end(), 0);
        // Accumulating the position (rather than multiplying) picks the reference's samples. The
        // counts stop a position that no longer advances (a step below the float's precision).
        uint32_t rows = 0;
        for (float y = hStart + hBin / 2; y < hEnd && rows++ <= hRatio; y += hBin) {
          uint32_t columns = 0;
          for (float x = wStart + wBin / 2; x < wEnd && columns++ <= wRatio; x += wBin) {
            const BilinearSample s = bilinearSample(x, y, width, height, depth);
            for (uint32_t k = 0; k < depth; ++k) {
              for (int c = 0; c < 4; ++c) {
                const size_t source = batchBase + s.offsets[c] + k;
                if (quantized) {
                  const int32_t weight = int32_t(std::round(s.weights[c] / kWeightScale));
                  quantSum[k] += weight * (int32_t(in.as<uint8_t>()[source]) - in.zeroPoint);
                } else {
                  sum[k] += s.weights[c] * in.as<float>()[source];
                }
              }
            }
          }
        }
        for (uint32_t k = 0; k < depth; ++k) {
          if (quantized) {
            const int32_t value = requantizeSaturating(quantSum[k], multiplier, out.zeroPoint);
            out.asMutable<uint8_t>()[outIndex + k] = uint8_t(std::clamp(value, 0, 255));
          } else {
            out.asMutable<float>()[outIndex + k] = sum[k] / float(samplePoints);
          }
        }
      }
    }
  }
  return {};
}

OperationWork roiAlignWork(const OperationContext& context) {
  OperationWork work;
  // Four multiply-adds per sample; with adaptive sampling the count depends on the boxes, so
  // assume the common 2x2 grid.
  const int32_t h = context.scalar<int32_t>(kHeightSamples), w = context.scalar<int32_t>(kWidthSamples);
  work.vectorElements = 4 * context.output(0).elementCount() * uint64_t(h > 0 ? h : 2) * uint64_t(w > 0 ? w : 2);
  return work;
}

int roiAlignLayout(const OperationContext&) { return int(kAlignLayout); }

// ---- ROI_POOLING (..., layout) -----------------------------------------------------------------
// Each output bin is the maximum over the feature-map cells it covers (boxes rounded to cells).

constexpr size_t kPoolingLayout = 7;

Status validateRoiPooling(const OperationContext& context) {
  NN_RETURN_IF_ERROR(validateRoiOperation(context, 8));
  NN_RETURN_IF_ERROR(expectSameQuantizationAsInput(context));
  return expectNhwc(context, kPoolingLayout);
}

Status executeRoiPooling(OperationContext& context) {
  const Tensor& in = context.input(kInput);
  Tensor& out = context.output(0);
  const uint32_t height = in.dim(1), width = in.dim(2), depth = in.dim(3);
  const uint32_t outHeight = out.dim(1), outWidth = out.dim(2);
  const size_t elementBytes = hal::elementSize(in.type);
  const bool quantized = in.type == OperandType::TENSOR_QUANT8_ASYMM;
  auto value = [&](size_t i) { return quantized ? float(in.as<uint8_t>()[i]) : in.as<float>()[i]; };
  size_t outIndex = 0;
  for (uint32_t r = 0; r < out.dim(0); ++r) {
    NN_ASSIGN_OR_RETURN(const Box box, readBox(context, r));
    const int32_t x1 = int32_t(std::round(box.x1)), y1 = int32_t(std::round(box.y1));
    const int32_t x2 = int32_t(std::round(box.x2)), y2 = int32_t(std::round(box.y2));
    // Boxes cover whole cells, end inclusive, at least one.
    const float wStep = float(std::max(x2 - x1 + 1, 1)) / float(outWidth);
    const float hStep = float(std::max(y2 - y1 + 1, 1)) / float(outHeight);
    const size_t batchBase = size_t(box.batch) * height * width * depth;
    for (uint32_t i = 0; i < outHeight; ++i) {
      const uint32_t hStart = std::min(uint32_t(std::floor(hStep * i + y1)), height);
      const uint32_t hEnd = std::min(uint32_t(std::ceil(hStep * (i + 1) + y1)), height);
      for (uint32_t j = 0; j < outWidth; ++j, outIndex += depth) {
        const uint32_t wStart = std::min(uint32_t(std::floor(wStep * j + x1)), width);
        const uint32_t wEnd = std::min(uint32_t(std::ceil(wStep * (j + 1) + x1)), width);
        for (uint32_t k = 0; k < depth; ++k) {
          // An empty bin (a box on the far edge) holds the zero point.
          size_t best = SIZE_MAX;
          for (uint32_t y = hStart; y < hEnd; ++y)
            for (uint32_t x = wStart; x < wEnd; ++x) {
              const size_t source = batchBase + (size_t(y) * width + x) * depth + k;
              if (best == SIZE_MAX || value(source) > value(best)) best = source;
            }
          uint8_t* target = out.asMutable<uint8_t>() + (outIndex + k) * elementBytes;
          if (best != SIZE_MAX) {
            std::memcpy(target, in.as<uint8_t>() + best * elementBytes, elementBytes);
          } else if (quantized) {
            *target = uint8_t(in.zeroPoint);
          } else {
            std::memset(target, 0, elementBytes);
          }
        }
      }
    }
  }
  return {};
}

OperationWork roiPoolingWork(const OperationContext& context) {
  OperationWork work;
  const Tensor& in = context.input(kInput);
  const Tensor& out = context.output(0);
  // Each bin covers about (input area / output area) cells of a box the size of the map.
  const uint64_t cellsPerBin = std::max<uint64_t>(1, (uint64_t(in.dim(1)) * in.dim(2)) / (uint64_t(out.dim(1)) * out.dim(2)));
  work.vectorElements = out.elementCount() * cellsPerBin;
  return work;
}

int roiPoolingLayout(const OperationContext&) { return int(kPoolingLayout); }

}  // namespace

const OperationKernel kRoiAlignKernel = {&validateRoiAlign, &prepareRoiAlign, &executeRoiAlign, &roiAlignWork,
                                         &roiAlignLayout};
NNREMOTE_REGISTER_KERNEL(OperationType::ROI_ALIGN, kRoiAlignKernel);
const OperationKernel kRoiPoolingKernel = {&validateRoiPooling, &prepareRoiOperation, &executeRoiPooling,
                                           &roiPoolingWork, &roiPoolingLayout};
NNREMOTE_REGISTER_KERNEL(OperationType::ROI_POOLING, kRoiPoolingKernel);

}  // namespace nnremote::sim
