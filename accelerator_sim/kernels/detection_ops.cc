// Object-detection post-processing: AXIS_ALIGNED_BBOX_TRANSFORM and BOX_WITH_NMS_LIMIT.
//
// Boxes are (x1, y1, x2, y2); quantized boxes are TENSOR_QUANT16_ASYMM with scale 0.125 and
// zero point 0. Both operations compute in float32, as AOSP's reference does.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "accelerator_sim/kernels/kernel_utils.h"
#include "accelerator_sim/kernels/kernels.h"

namespace nnremote::sim {
namespace {

constexpr uint32_t kBoxSize = 4;

bool isQuantizedBoxType(OperandType type) { return type == OperandType::TENSOR_QUANT16_ASYMM; }

Status expectBoxQuantization(const OperationContext& context, const Tensor& t, const char* name) {
  if (isQuantizedBoxType(t.type) && (t.scale != 0.125f || t.zeroPoint != 0)) {
    return unsupported(context) << name << " must have scale 0.125 and zero point 0";
  }
  return {};
}

// A float32 or TENSOR_QUANT16_ASYMM / TENSOR_QUANT8_ASYMM tensor as real values.
std::vector<float> realValues(const Tensor& t) {
  std::vector<float> values(t.elementCount());
  for (size_t i = 0; i < values.size(); ++i) {
    switch (t.type) {
      case OperandType::TENSOR_QUANT16_ASYMM:
        values[i] = t.scale * (int32_t(t.as<uint16_t>()[i]) - t.zeroPoint);
        break;
      case OperandType::TENSOR_QUANT8_ASYMM:
        values[i] = dequantize(t.as<uint8_t>()[i], t);
        break;
      default:
        values[i] = t.as<float>()[i];
    }
  }
  return values;
}

// Stores real values into a float32 or TENSOR_QUANT16_ASYMM tensor, rounding and saturating.
void storeBoxValues(const std::vector<float>& values, Tensor& t) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (isQuantizedBoxType(t.type)) {
      const float q = std::round(values[i] / t.scale + float(t.zeroPoint));
      t.asMutable<uint16_t>()[i] = uint16_t(std::clamp(q, 0.0f, 65535.0f));
    } else {
      t.asMutable<float>()[i] = values[i];
    }
  }
}

// ---- AXIS_ALIGNED_BBOX_TRANSFORM (boxes, deltas, batch indexes, image sizes) ------------------
// Applies (dx, dy, dw, dh) deltas, one set per class, to every box and clips to its image.

Status validateBboxTransform(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectCounts(context, {4}, 1));
  const OperandType boxType = context.inputType(0);
  if (boxType != OperandType::TENSOR_FLOAT32 && boxType != OperandType::TENSOR_QUANT16_ASYMM) {
    return unsupported(context) << "boxes must be TENSOR_FLOAT32 or TENSOR_QUANT16_ASYMM";
  }
  const OperandType deltaType = boxType == OperandType::TENSOR_FLOAT32 ? OperandType::TENSOR_FLOAT32
                                                                       : OperandType::TENSOR_QUANT8_ASYMM;
  NN_RETURN_IF_ERROR(expectInputType(context, 1, deltaType));
  NN_RETURN_IF_ERROR(expectInputType(context, 2, OperandType::TENSOR_INT32));
  NN_RETURN_IF_ERROR(expectInputType(context, 3, boxType));
  if (context.output(0).type != boxType) return unsupported(context) << "output type differs from the boxes'";
  NN_RETURN_IF_ERROR(expectBoxQuantization(context, context.input(0), "boxes"));
  NN_RETURN_IF_ERROR(expectBoxQuantization(context, context.input(3), "image sizes"));
  return expectBoxQuantization(context, context.output(0), "the output");
}

Status prepareBboxTransform(OperationContext& context) {
  const Tensor& boxes = context.input(0);
  const Tensor& deltas = context.input(1);
  const Tensor& batches = context.input(2);
  const Tensor& imageInfo = context.input(3);
  if (boxes.rank() != 2 || boxes.dim(1) != kBoxSize) return unsupported(context) << "boxes must have shape [numRois, 4]";
  const uint32_t numRois = boxes.dim(0);
  if (deltas.rank() != 2 || deltas.dim(0) != numRois || deltas.dim(1) == 0 || deltas.dim(1) % kBoxSize != 0) {
    return unsupported(context) << "deltas must have shape [numRois, 4 * numClasses] with numRois = " << numRois;
  }
  if (batches.rank() != 1 || batches.dim(0) != numRois) {
    return unsupported(context) << "batch indexes must have shape [numRois] = [" << numRois << "]";
  }
  if (imageInfo.rank() != 2 || imageInfo.dim(1) != 2 || imageInfo.dim(0) == 0) {
    return unsupported(context) << "image sizes must have shape [numBatches, 2]";
  }
  context.output(0).dimensions = {numRois, deltas.dim(1)};
  return {};
}

Status executeBboxTransform(OperationContext& context) {
  const Tensor& batches = context.input(2);
  const std::vector<float> boxes = realValues(context.input(0));
  const std::vector<float> deltas = realValues(context.input(1));
  const std::vector<float> imageInfo = realValues(context.input(3));
  const uint32_t numRois = context.input(0).dim(0), numBatches = context.input(3).dim(0);
  const uint32_t numClasses = context.input(1).dim(1) / kBoxSize;
  std::vector<float> out(size_t(numRois) * numClasses * kBoxSize);
  for (uint32_t r = 0; r < numRois; ++r) {
    const float* box = &boxes[r * kBoxSize];
    const int32_t batch = batches.as<int32_t>()[r];
    if (batch < 0 || uint32_t(batch) >= numBatches) {
      return unsupported(context) << "box " << r << " has batch index " << batch << " outside [0, " << numBatches << ")";
    }
    if (box[0] > box[2] || box[1] > box[3]) return unsupported(context) << "box " << r << " is inverted";
    const float imageHeight = imageInfo[batch * 2], imageWidth = imageInfo[batch * 2 + 1];
    const float width = box[2] - box[0], height = box[3] - box[1];
    const float centerX = (box[0] + box[2]) / 2, centerY = (box[1] + box[3]) / 2;
    for (uint32_t c = 0; c < numClasses; ++c) {
      const float* delta = &deltas[(size_t(r) * numClasses + c) * kBoxSize];
      const float x = centerX + delta[0] * width, y = centerY + delta[1] * height;
      const float w = std::exp(delta[2]) * width, h = std::exp(delta[3]) * height;
      float* target = &out[(size_t(r) * numClasses + c) * kBoxSize];
      target[0] = std::clamp(x - w / 2, 0.0f, imageWidth);
      target[1] = std::clamp(y - h / 2, 0.0f, imageHeight);
      target[2] = std::clamp(x + w / 2, 0.0f, imageWidth);
      target[3] = std::clamp(y + h / 2, 0.0f, imageHeight);
    }
  }
  storeBoxValues(out, context.output(0));
  return {};
}

OperationWork bboxTransformWork(const OperationContext& context) {
  OperationWork work;
  work.vectorElements = 4 * context.output(0).elementCount();
  return work;
}

// ---- BOX_WITH_NMS_LIMIT (scores, boxes, batch indexes, score threshold, max detections,
// NMS kernel, IoU threshold, sigma, NMS score threshold) -> (scores, boxes, classes, batches) --
// Per batch and per class (class 0 is background), greedy soft/hard non-maximum suppression;
// the survivors are capped at max detections by score and returned ordered by class, then score.

enum class NmsKernel : int32_t { HARD = 0, LINEAR = 1, GAUSSIAN = 2 };

Status validateBoxWithNmsLimit(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectCounts(context, {9}, 4));
  const OperandType scoreType = context.inputType(0);
  NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, scoreType));
  const OperandType boxType =
      scoreType == OperandType::TENSOR_FLOAT32 ? OperandType::TENSOR_FLOAT32 : OperandType::TENSOR_QUANT16_ASYMM;
  NN_RETURN_IF_ERROR(expectInputType(context, 1, boxType));
  NN_RETURN_IF_ERROR(expectInputType(context, 2, OperandType::TENSOR_INT32));
  NN_RETURN_IF_ERROR(expectScalar(context, 3, OperandType::FLOAT32));
  NN_RETURN_IF_ERROR(expectScalar(context, 4, OperandType::INT32));
  NN_RETURN_IF_ERROR(expectScalar(context, 5, OperandType::INT32));
  for (size_t i = 6; i < 9; ++i) NN_RETURN_IF_ERROR(expectScalar(context, i, OperandType::FLOAT32));
  const OperandType outputTypes[] = {scoreType, boxType, OperandType::TENSOR_INT32, OperandType::TENSOR_INT32};
  for (size_t i = 0; i < 4; ++i) {
    if (context.output(i).type != outputTypes[i]) {
      return unsupported(context) << "output " << i << " must be " << hal::toString(outputTypes[i]);
    }
  }
  NN_RETURN_IF_ERROR(expectBoxQuantization(context, context.input(1), "boxes"));
  const int32_t kernel = context.scalar<int32_t>(5);
  if (kernel < 0 || kernel > 2) return unsupported(context) << "NMS kernel " << kernel << " is not 0, 1 or 2";
  return {};
}

Status checkNmsShapes(const OperationContext& context) {
  const Tensor& scores = context.input(0);
  const Tensor& boxes = context.input(1);
  const Tensor& batches = context.input(2);
  if (scores.rank() != 2 || scores.dim(1) < 2) return unsupported(context) << "scores must have shape [numRois, numClasses > 1]";
  const uint32_t numRois = scores.dim(0), numClasses = scores.dim(1);
  if (boxes.rank() != 2 || boxes.dim(0) != numRois || boxes.dim(1) != numClasses * kBoxSize) {
    return unsupported(context) << "boxes must have shape [numRois, 4 * numClasses] = [" << numRois << ", "
                                << numClasses * kBoxSize << "]";
  }
  if (batches.rank() != 1 || batches.dim(0) != numRois) {
    return unsupported(context) << "batch indexes must have shape [numRois] = [" << numRois << "]";
  }
  return {};
}

float intersectionOverUnion(const float* a, const float* b) {
  const float areaA = (a[2] - a[0]) * (a[3] - a[1]), areaB = (b[2] - b[0]) * (b[3] - b[1]);
  const float w = std::max(std::min(a[2], b[2]) - std::max(a[0], b[0]), 0.0f);
  const float h = std::max(std::min(a[3], b[3]) - std::max(a[1], b[1]), 0.0f);
  const float intersection = w * h;
  return intersection / (areaA + areaB - intersection);
}

// The result of suppression: indexes (box * numClasses + class) into the scores, which soft
// NMS has decayed, with the batch each group of survivors came from.
struct NmsSelection {
  std::vector<float> scores;
  std::vector<uint32_t> selected;
  std::vector<int32_t> batchOfSelected;
};

// Greedy suppression over `candidates` in place: repeatedly moves the best remaining box to the
// front, decays the others by their overlap with it and drops those that fall below threshold.
// Returns how many were kept. The order of swaps matches the reference, whose ties it keeps.
size_t suppress(std::vector<float>& scores, uint32_t* candidates, size_t count, int32_t limit,
                float threshold, const std::function<float(float)>& decay,
                const std::function<const float*(uint32_t)>& boxOf) {
  uint32_t *first = candidates, *last = candidates + count;
  size_t kept = 0;
  const size_t cap = limit < 0 ? count : size_t(limit);
  while (first < last && kept < cap) {
    std::swap(*std::max_element(first, last, [&](uint32_t a, uint32_t b) { return scores[a] < scores[b]; }),
              *first);
    for (uint32_t* i = first + 1; i < last; ++i) {
      scores[*i] *= decay(intersectionOverUnion(boxOf(*i), boxOf(*first)));
      if (scores[*i] < threshold) std::swap(*i--, *--last);
    }
    ++first;
    ++kept;
  }
  return kept;
}

hal::Result<NmsSelection> selectBoxes(const OperationContext& context) {
  NN_RETURN_IF_ERROR(checkNmsShapes(context));
  const uint32_t numRois = context.input(0).dim(0), numClasses = context.input(0).dim(1);
  const int32_t* batches = context.input(2).as<int32_t>();
  const float scoreThreshold = context.scalar<float>(3);
  const int32_t maxDetections = context.scalar<int32_t>(4);
  const auto kernel = NmsKernel(context.scalar<int32_t>(5));
  const float iouThreshold = context.scalar<float>(6), sigma = context.scalar<float>(7);
  const float nmsScoreThreshold = context.scalar<float>(8);
  std::function<float(float)> decay;
  switch (kernel) {
    case NmsKernel::HARD: decay = [&](float iou) { return iou < iouThreshold ? 1.0f : 0.0f; }; break;
    case NmsKernel::LINEAR: decay = [&](float iou) { return iou < iouThreshold ? 1.0f : 1.0f - iou; }; break;
    case NmsKernel::GAUSSIAN: decay = [&](float iou) { return std::exp(-iou * iou / sigma); }; break;
  }

  NmsSelection result;
  result.scores = realValues(context.input(0));
  const std::vector<float> boxes = realValues(context.input(1));
  for (uint32_t r = 0; r < numRois; ++r) {
    for (uint32_t c = 0; c < numClasses; ++c) {
      const float* box = &boxes[(size_t(r) * numClasses + c) * kBoxSize];
      if (box[0] > box[2] || box[1] > box[3]) {
        return unsupported(context) << "box " << r << " of class " << c << " is inverted";
      }
    }
  }
  // Boxes of one batch are consecutive; each run is suppressed on its own.
  for (uint32_t begin = 0; begin < numRois;) {
    uint32_t end = begin + 1;
    while (end < numRois && batches[end] == batches[begin]) ++end;
    auto boxOf = [&](uint32_t index) { return &boxes[(size_t(begin) * numClasses + index) * kBoxSize]; };
    std::vector<float> batchScores(result.scores.begin() + size_t(begin) * numClasses,
                                   result.scores.begin() + size_t(end) * numClasses);
    std::vector<uint32_t> kept;
    for (uint32_t c = 1; c < numClasses; ++c) {  // class 0 is the background
      const size_t start = kept.size();
      for (uint32_t r = 0; r < end - begin; ++r) {
        if (batchScores[r * numClasses + c] > scoreThreshold) kept.push_back(r * numClasses + c);
      }
      const size_t survivors = suppress(batchScores, kept.data() + start, kept.size() - start, maxDetections,
                                        nmsScoreThreshold, decay, boxOf);
      kept.resize(start + survivors);
    }
    std::sort(kept.begin(), kept.end(), [&](uint32_t a, uint32_t b) { return batchScores[a] > batchScores[b]; });
    if (maxDetections >= 0 && kept.size() > size_t(maxDetections)) kept.resize(maxDetections);
    std::sort(kept.begin(), kept.end(), [&](uint32_t a, uint32_t b) {
      const uint32_t classA = a % numClasses, classB = b % numClasses;
      return classA == classB ? batchScores[a] > batchScores[b] : classA < classB;
    });
    for (uint32_t index : kept) {
      result.selected.push_back(begin * numClasses + index);
      result.batchOfSelected.push_back(batches[begin]);
    }
    std::copy(batchScores.begin(), batchScores.end(), result.scores.begin() + size_t(begin) * numClasses);
    begin = end;
  }
  return result;
}

Status prepareBoxWithNmsLimit(OperationContext& context) {
  // How many boxes survive depends on the data, so suppression runs here and again in execute.
  NN_ASSIGN_OR_RETURN(const NmsSelection selection, selectBoxes(context));
  const uint32_t count = uint32_t(selection.selected.size());
  context.output(0).dimensions = {count};
  context.output(1).dimensions = {count, kBoxSize};
  context.output(2).dimensions = {count};
  context.output(3).dimensions = {count};
  return {};
}

Status executeBoxWithNmsLimit(OperationContext& context) {
  NN_ASSIGN_OR_RETURN(const NmsSelection selection, selectBoxes(context));
  const uint32_t numClasses = context.input(0).dim(1);
  const Tensor& boxes = context.input(1);
  const size_t boxBytes = kBoxSize * hal::elementSize(boxes.type);
  Tensor& scoresOut = context.output(0);
  for (size_t i = 0; i < selection.selected.size(); ++i) {
    const uint32_t index = selection.selected[i];
    if (scoresOut.type == OperandType::TENSOR_QUANT8_ASYMM) {
      scoresOut.asMutable<uint8_t>()[i] = quantizeToUint8(selection.scores[index], scoresOut);
    } else {
      scoresOut.asMutable<float>()[i] = selection.scores[index];
    }
    std::memcpy(context.output(1).asMutable<uint8_t>() + i * boxBytes, boxes.as<uint8_t>() + index * boxBytes,
                boxBytes);
    context.output(2).asMutable<int32_t>()[i] = int32_t(index % numClasses);
    context.output(3).asMutable<int32_t>()[i] = selection.batchOfSelected[i];
  }
  return {};
}

OperationWork boxWithNmsLimitWork(const OperationContext& context) {
  OperationWork work;
  // Every candidate is compared with every kept box of its class: quadratic in the boxes.
  const uint64_t rois = context.input(0).dim(0), classes = context.input(0).dim(1);
  work.vectorElements = rois * rois * classes;
  return work;
}

}  // namespace

const OperationKernel kAxisAlignedBboxTransformKernel = {&validateBboxTransform, &prepareBboxTransform,
                                                         &executeBboxTransform, &bboxTransformWork};
const OperationKernel kBoxWithNmsLimitKernel = {&validateBoxWithNmsLimit, &prepareBoxWithNmsLimit,
                                                &executeBoxWithNmsLimit, &boxWithNmsLimitWork};

}  // namespace nnremote::sim
