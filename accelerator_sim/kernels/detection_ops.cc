// Object-detection operations: AXIS_ALIGNED_BBOX_TRANSFORM, BOX_WITH_NMS_LIMIT,
// GENERATE_PROPOSALS, HEATMAP_MAX_KEYPOINT and DETECTION_POSTPROCESSING.
//
// Boxes are (x1, y1, x2, y2); quantized boxes are TENSOR_QUANT16_ASYMM with scale 0.125 and
// zero point 0. Both operations compute in float32, as AOSP's reference does.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <vector>

#include "accelerator_sim/kernels/kernel_utils.h"
#include "accelerator_sim/operation_registry.h"

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

// A tensor's elements as real values (quantized types dequantized).
std::vector<float> realValues(const Tensor& t) {
  std::vector<float> values(t.elementCount());
  for (size_t i = 0; i < values.size(); ++i) values[i] = float(readValue(t, i));
  return values;
}

// Stores real values into a tensor of any type writeValue takes.
void storeValues(const std::vector<float>& values, Tensor& t) {
  for (size_t i = 0; i < values.size(); ++i) writeValue(t, i, values[i]);
}

// Fails unless the outputs have these types, in order.
Status expectOutputTypes(const OperationContext& context, std::initializer_list<OperandType> types) {
  size_t i = 0;
  for (OperandType type : types) {
    if (context.output(i).type != type) return unsupported(context) << "output " << i << " must be " << hal::toString(type);
    ++i;
  }
  return {};
}

// Moves and scales `box` by (dx, dy, dw, dh) = `delta` (centre shifts relative to the size, log
// size ratios) and clips the result to the image.
void applyBoxDeltas(const float* box, const float* delta, float imageHeight, float imageWidth, float* out) {
  const float width = box[2] - box[0], height = box[3] - box[1];
  const float x = (box[0] + box[2]) / 2 + delta[0] * width, y = (box[1] + box[3]) / 2 + delta[1] * height;
  const float w = std::exp(delta[2]) * width, h = std::exp(delta[3]) * height;
  out[0] = std::clamp(x - w / 2, 0.0f, imageWidth);
  out[1] = std::clamp(y - h / 2, 0.0f, imageHeight);
  out[2] = std::clamp(x + w / 2, 0.0f, imageWidth);
  out[3] = std::clamp(y + h / 2, 0.0f, imageHeight);
}

// ---- AXIS_ALIGNED_BBOX_TRANSFORM (boxes, deltas, batch indexes, image sizes) ------------------
// Applies (dx, dy, dw, dh) deltas, one set per class, to every box and clips to its image.

Status validateBboxTransform(const OperationContext& context) {
  const OperandType boxType = context.inputType(0);
  if (boxType != OperandType::TENSOR_FLOAT32 && boxType != OperandType::TENSOR_QUANT16_ASYMM) {
    return unsupported(context) << "boxes must be TENSOR_FLOAT32 or TENSOR_QUANT16_ASYMM";
  }
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
    for (uint32_t c = 0; c < numClasses; ++c) {
      const size_t at = (size_t(r) * numClasses + c) * kBoxSize;
      applyBoxDeltas(box, &deltas[at], imageInfo[batch * 2], imageInfo[batch * 2 + 1], &out[at]);
    }
  }
  storeValues(out, context.output(0));
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
  const OperandType scoreType = context.inputType(0);
  NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, scoreType));
  const OperandType boxType =
      scoreType == OperandType::TENSOR_FLOAT32 ? OperandType::TENSOR_FLOAT32 : OperandType::TENSOR_QUANT16_ASYMM;
  NN_RETURN_IF_ERROR(expectOutputTypes(context, {scoreType, boxType, OperandType::TENSOR_INT32, OperandType::TENSOR_INT32}));
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
// front and drops the others for which drop(candidate, IoU with the best) holds (soft NMS also
// decays their scores there). Returns how many were kept. The order of swaps matches the
// reference, whose tie-breaking it thereby keeps.
size_t suppress(const std::vector<float>& scores, uint32_t* candidates, size_t count, int32_t limit,
                const std::function<bool(uint32_t, float)>& drop,
                const std::function<const float*(uint32_t)>& boxOf) {
  uint32_t *first = candidates, *last = candidates + count;
  size_t kept = 0;
  const size_t cap = limit < 0 ? count : size_t(limit);
  while (first < last && kept < cap) {
    std::swap(*std::max_element(first, last, [&](uint32_t a, uint32_t b) { return scores[a] < scores[b]; }),
              *first);
    for (uint32_t* i = first + 1; i < last; ++i) {
      if (drop(*i, intersectionOverUnion(boxOf(*i), boxOf(*first)))) std::swap(*i--, *--last);
    }
    ++first;
    ++kept;
  }
  return kept;
}

// Suppression class by class (class 0, the background, skipped) over `boxes` boxes with
// `classes` scores each: candidates above `scoreThreshold`, at most `perClassLimit` kept per
// class, then the best `totalLimit` overall, ordered by score. Indexes are box * classes + class.
std::vector<uint32_t> suppressPerClass(const std::vector<float>& scores, uint32_t boxes, uint32_t classes,
                                       float scoreThreshold, int32_t perClassLimit, int32_t totalLimit,
                                       const std::function<bool(uint32_t, float)>& drop,
                                       const std::function<const float*(uint32_t)>& boxOf) {
  std::vector<uint32_t> kept;
  for (uint32_t c = 1; c < classes; ++c) {
    const size_t start = kept.size();
    for (uint32_t r = 0; r < boxes; ++r) {
      if (scores[r * classes + c] > scoreThreshold) kept.push_back(r * classes + c);
    }
    kept.resize(start + suppress(scores, kept.data() + start, kept.size() - start, perClassLimit, drop, boxOf));
  }
  std::sort(kept.begin(), kept.end(), [&](uint32_t a, uint32_t b) { return scores[a] > scores[b]; });
  if (totalLimit >= 0 && kept.size() > size_t(totalLimit)) kept.resize(totalLimit);
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
    auto decayAndDrop = [&](uint32_t candidate, float iou) {
      batchScores[candidate] *= decay(iou);
      return batchScores[candidate] < nmsScoreThreshold;
    };
    std::vector<uint32_t> kept = suppressPerClass(batchScores, end - begin, numClasses, scoreThreshold, maxDetections,
                                                  maxDetections, decayAndDrop, boxOf);
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
    writeValue(scoresOut, i, selection.scores[index]);
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

// ---- GENERATE_PROPOSALS (scores [b, h, w, anchors], deltas [b, h, w, anchors * 4], anchors
// [anchors, 4], image sizes [b, 2], height and width strides, pre- and post-NMS limits, IoU
// threshold, minimum size, layout) -> (scores, boxes, batch indexes) ---------------------------
// Region proposals as in Faster R-CNN: anchors tiled over the feature map, moved by the deltas,
// the best pre-NMS-limit kept, small or off-image boxes dropped, then hard NMS per batch.

constexpr size_t kProposalLayout = 10;

Status validateGenerateProposals(const OperationContext& context) {
  const OperandType scoreType = context.inputType(0);
  NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, scoreType));
  const bool quantized = scoreType == OperandType::TENSOR_QUANT8_ASYMM;
  const OperandType boxType = quantized ? OperandType::TENSOR_QUANT16_ASYMM : scoreType;
  NN_RETURN_IF_ERROR(expectOutputTypes(context, {scoreType, boxType, OperandType::TENSOR_INT32}));
  const Tensor& anchors = context.input(2);
  if (quantized && (anchors.scale != 0.125f || anchors.zeroPoint != 0)) {
    return unsupported(context) << "quantized anchors must have scale 0.125 and zero point 0";
  }
  NN_RETURN_IF_ERROR(expectBoxQuantization(context, context.input(3), "image sizes"));
  return expectBoxQuantization(context, context.output(1), "output boxes");
}

struct Proposals {
  std::vector<float> scores, boxes;
  std::vector<int32_t> batches;
};

hal::Result<Proposals> generateProposals(const OperationContext& context) {
  const Tensor& scoreTensor = context.input(0);
  const bool nchw = context.scalar<uint8_t>(kProposalLayout) != 0;
  if (scoreTensor.rank() != 4) return unsupported(context) << "scores must have rank 4";
  const uint32_t numBatches = scoreTensor.dim(0);
  const uint32_t height = scoreTensor.dim(nchw ? 2 : 1), width = scoreTensor.dim(nchw ? 3 : 2);
  const uint32_t numAnchors = scoreTensor.dim(nchw ? 1 : 3);
  const std::vector<uint32_t> deltaShape = nchw ? std::vector<uint32_t>{numBatches, numAnchors * kBoxSize, height, width}
                                                : std::vector<uint32_t>{numBatches, height, width, numAnchors * kBoxSize};
  if (context.input(1).dimensions != deltaShape) {
    return unsupported(context) << "deltas must have shape " << hal::toString(deltaShape);
  }
  if (context.input(2).dimensions != std::vector<uint32_t>{numAnchors, kBoxSize}) {
    return unsupported(context) << "anchors must have shape [" << numAnchors << ", 4]";
  }
  if (context.input(3).dimensions != std::vector<uint32_t>{numBatches, 2}) {
    return unsupported(context) << "image sizes must have shape [" << numBatches << ", 2]";
  }
  const float heightStride = context.scalar<float>(4), widthStride = context.scalar<float>(5);
  const int32_t preNmsLimit = context.scalar<int32_t>(6), postNmsLimit = context.scalar<int32_t>(7);
  const float iouThreshold = context.scalar<float>(8), minSize = context.scalar<float>(9);
  const std::vector<float> scores = realValues(scoreTensor), deltas = realValues(context.input(1));
  const std::vector<float> anchors = realValues(context.input(2)), imageInfo = realValues(context.input(3));

  // Candidates are numbered (y, x, anchor) in row-major order.
  const uint32_t perBatch = height * width * numAnchors;
  auto scoreAt = [&](uint32_t b, uint32_t i) {
    const uint32_t a = i % numAnchors, x = (i / numAnchors) % width, y = i / numAnchors / width;
    return nchw ? scores[((size_t(b) * numAnchors + a) * height + y) * width + x] : scores[size_t(b) * perBatch + i];
  };
  auto deltaAt = [&](uint32_t b, uint32_t i, uint32_t k) {
    const uint32_t a = i % numAnchors, x = (i / numAnchors) % width, y = i / numAnchors / width;
    return nchw ? deltas[((size_t(b) * numAnchors * kBoxSize + a * kBoxSize + k) * height + y) * width + x]
                : deltas[(size_t(b) * perBatch + i) * kBoxSize + k];
  };
  Proposals result;
  std::vector<float> batchScores(perBatch), boxes(size_t(perBatch) * kBoxSize);
  for (uint32_t b = 0; b < numBatches; ++b) {
    const float imageHeight = imageInfo[b * 2], imageWidth = imageInfo[b * 2 + 1];
    for (uint32_t i = 0; i < perBatch; ++i) {
      const uint32_t a = i % numAnchors, x = (i / numAnchors) % width, y = i / numAnchors / width;
      const float shiftX = x * widthStride, shiftY = y * heightStride;
      const float anchor[4] = {anchors[a * 4] + shiftX, anchors[a * 4 + 1] + shiftY, anchors[a * 4 + 2] + shiftX,
                               anchors[a * 4 + 3] + shiftY};
      const float delta[4] = {deltaAt(b, i, 0), deltaAt(b, i, 1), deltaAt(b, i, 2), deltaAt(b, i, 3)};
      applyBoxDeltas(anchor, delta, imageHeight, imageWidth, &boxes[size_t(i) * kBoxSize]);
      batchScores[i] = scoreAt(b, i);
    }
    std::vector<uint32_t> candidates(perBatch);
    std::iota(candidates.begin(), candidates.end(), 0);
    if (preNmsLimit > 0 && uint32_t(preNmsLimit) < perBatch) {
      std::sort(candidates.begin(), candidates.end(), [&](uint32_t l, uint32_t r) { return batchScores[l] > batchScores[r]; });
      candidates.resize(preNmsLimit);
    }
    // Drop boxes no larger than the minimum or centred off the image.
    candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                    [&](uint32_t i) {
                                      const float* box = &boxes[size_t(i) * kBoxSize];
                                      const float w = box[2] - box[0], h = box[3] - box[1];
                                      return !(w > minSize && h > minSize && box[0] + w / 2 < imageWidth &&
                                               box[1] + h / 2 < imageHeight);
                                    }),
                     candidates.end());
    const size_t kept = suppress(
        batchScores, candidates.data(), candidates.size(), postNmsLimit,
        [&](uint32_t, float iou) { return iou >= iouThreshold; },
        [&](uint32_t i) { return &boxes[size_t(i) * kBoxSize]; });
    for (size_t k = 0; k < kept; ++k) {
      const uint32_t i = candidates[k];
      result.scores.push_back(batchScores[i]);
      result.boxes.insert(result.boxes.end(), &boxes[size_t(i) * kBoxSize], &boxes[size_t(i) * kBoxSize] + kBoxSize);
      result.batches.push_back(int32_t(b));
    }
  }
  return result;
}

Status prepareGenerateProposals(OperationContext& context) {
  // The number of proposals depends on the data: they are generated here and again in execute.
  NN_ASSIGN_OR_RETURN(const Proposals proposals, generateProposals(context));
  const uint32_t count = uint32_t(proposals.scores.size());
  context.output(0).dimensions = {count};
  context.output(1).dimensions = {count, kBoxSize};
  context.output(2).dimensions = {count};
  return {};
}

Status executeGenerateProposals(OperationContext& context) {
  NN_ASSIGN_OR_RETURN(const Proposals proposals, generateProposals(context));
  Tensor& scoresOut = context.output(0);
  for (size_t i = 0; i < proposals.scores.size(); ++i) writeValue(scoresOut, i, proposals.scores[i]);
  storeValues(proposals.boxes, context.output(1));
  std::copy(proposals.batches.begin(), proposals.batches.end(), context.output(2).asMutable<int32_t>());
  return {};
}

OperationWork generateProposalsWork(const OperationContext& context) {
  OperationWork work;
  const uint64_t candidates = context.input(0).elementCount();
  const int32_t preNms = context.scalar<int32_t>(6);
  const uint64_t nmsInput = preNms > 0 ? std::min<uint64_t>(candidates, uint64_t(preNms)) : candidates;
  work.vectorElements = 12 * candidates + nmsInput * nmsInput;
  return work;
}

// ---- HEATMAP_MAX_KEYPOINT (heatmaps [boxes, size, size, keypoints], boxes [boxes, 4], layout)
// -> (scores [boxes, keypoints], keypoints [boxes, keypoints, 2]) ------------------------------
// Finds each heatmap's maximum and refines it to sub-pixel precision with a second-order Taylor
// expansion over its 3x3 neighbourhood (mirrored at the edges), then maps it into the box.

constexpr size_t kHeatmapLayout = 2;

Status validateHeatmapMaxKeypoint(const OperationContext& context) {
  const OperandType type = context.inputType(0);
  NN_RETURN_IF_ERROR(expectFloatOrQuant8(context, type));
  const OperandType boxType = type == OperandType::TENSOR_QUANT8_ASYMM ? OperandType::TENSOR_QUANT16_ASYMM : type;
  NN_RETURN_IF_ERROR(expectOutputTypes(context, {type, boxType}));
  NN_RETURN_IF_ERROR(expectBoxQuantization(context, context.input(1), "boxes"));
  return expectBoxQuantization(context, context.output(1), "output keypoints");
}

// Heatmaps are NHWC here; NCHW ones arrive transposed (operand_lowering.h).
struct HeatmapShape {
  uint32_t boxes, size, keypoints;
  size_t at(uint32_t box, uint32_t y, uint32_t x, uint32_t keypoint) const {
    return ((size_t(box) * size + y) * size + x) * keypoints + keypoint;
  }
};

hal::Result<HeatmapShape> heatmapShape(const OperationContext& context) {
  const Tensor& heatmaps = context.input(0);
  NN_RETURN_IF_ERROR(expectNhwc(context, kHeatmapLayout));
  if (heatmaps.rank() != 4) return unsupported(context) << "heatmaps must have rank 4";
  const HeatmapShape shape{heatmaps.dim(0), heatmaps.dim(1), heatmaps.dim(3)};
  if (heatmaps.dim(2) != shape.size || shape.size < 2) {
    return unsupported(context) << "heatmaps must be square and at least 2x2";
  }
  if (context.input(1).dimensions != std::vector<uint32_t>{shape.boxes, kBoxSize}) {
    return unsupported(context) << "boxes must have shape [" << shape.boxes << ", 4]";
  }
  return shape;
}

Status prepareHeatmapMaxKeypoint(OperationContext& context) {
  NN_ASSIGN_OR_RETURN(const HeatmapShape shape, heatmapShape(context));
  context.output(0).dimensions = {shape.boxes, shape.keypoints};
  context.output(1).dimensions = {shape.boxes, shape.keypoints, 2};
  return {};
}

// Refines the maximum at the centre of `grid` ([dy][dx]): solves for the offset where the
// quadratic fit peaks (clipped to 1.5 cells) and the fitted score there. Leaves them unchanged
// when the Hessian is singular.
void refineMaximum(const float grid[3][3], float* dx, float* dy, float* score) {
  const float b[2] = {-(grid[1][2] - grid[1][0]) / 2, -(grid[2][1] - grid[0][1]) / 2};
  const float a00 = grid[1][0] - 2 * grid[1][1] + grid[1][2];
  const float a01 = (grid[2][2] - grid[2][0] - grid[0][2] + grid[0][0]) / 4;
  const float a11 = grid[0][1] - 2 * grid[1][1] + grid[2][1];
  const float determinant = a00 * a11 - a01 * a01;
  constexpr float kAtol = 1e-5f, kRtol = 1e-5f;
  if (std::abs(determinant) < kAtol + kRtol * a00 * a11) return;
  float x = (a11 * b[0] - a01 * b[1]) / determinant, y = (a00 * b[1] - a01 * b[0]) / determinant;
  const float largest = std::max(std::abs(x), std::abs(y));
  if (largest > 1.5f) x *= 1.5f / largest, y *= 1.5f / largest;
  *dx = x, *dy = y;
  *score = grid[1][1] - b[0] * x - b[1] * y + ((a00 * x + a01 * y) * x + (a01 * x + a11 * y) * y) / 2;
}

Status executeHeatmapMaxKeypoint(OperationContext& context) {
  NN_ASSIGN_OR_RETURN(const HeatmapShape shape, heatmapShape(context));
  const std::vector<float> heatmaps = realValues(context.input(0)), boxes = realValues(context.input(1));
  std::vector<float> scores(size_t(shape.boxes) * shape.keypoints), keypoints(scores.size() * 2);
  const int32_t size = int32_t(shape.size);
  for (uint32_t n = 0; n < shape.boxes; ++n) {
    const float* box = &boxes[size_t(n) * kBoxSize];
    if (box[0] > box[2] || box[1] > box[3]) return unsupported(context) << "box " << n << " is inverted";
    for (uint32_t k = 0; k < shape.keypoints; ++k) {
      int32_t bestX = 0, bestY = 0;
      float best = -std::numeric_limits<float>::max();
      for (int32_t y = 0; y < size; ++y)
        for (int32_t x = 0; x < size; ++x) {
          const float value = heatmaps[shape.at(n, y, x, k)];
          if (value > best) best = value, bestX = x, bestY = y;
        }
      float grid[3][3];
      for (int32_t dy = -1; dy <= 1; ++dy)
        for (int32_t dx = -1; dx <= 1; ++dx) {
          auto mirror = [&](int32_t v) { return v < 0 ? 1 : (v >= size ? size - 2 : v); };
          grid[dy + 1][dx + 1] = heatmaps[shape.at(n, mirror(bestY + dy), mirror(bestX + dx), k)];
        }
      float offsetX = 0, offsetY = 0, score = best;
      refineMaximum(grid, &offsetX, &offsetY, &score);
      const size_t out = size_t(n) * shape.keypoints + k;
      scores[out] = score;
      keypoints[out * 2] = (bestX + offsetX + 0.5f) / float(size) * (box[2] - box[0]) + box[0];
      keypoints[out * 2 + 1] = (bestY + offsetY + 0.5f) / float(size) * (box[3] - box[1]) + box[1];
    }
  }
  Tensor& scoresOut = context.output(0);
  for (size_t i = 0; i < scores.size(); ++i) writeValue(scoresOut, i, scores[i]);
  storeValues(keypoints, context.output(1));
  return {};
}

int heatmapLayout(const OperationContext&) { return int(kHeatmapLayout); }

OperationWork heatmapMaxKeypointWork(const OperationContext& context) {
  OperationWork work;
  work.vectorElements = context.input(0).elementCount() + 64 * context.output(0).elementCount();
  return work;
}

// ---- DETECTION_POSTPROCESSING (scores [b, anchors, classes], box encodings [b, anchors, >= 4],
// anchors [anchors, 4], y/x/h/w scales, regular NMS?, max detections, max classes per detection,
// max detections per class, score threshold, IoU threshold, background in label?) ->
// (scores, boxes, classes [b, detections], detection count [b]) --------------------------------
// SSD post-processing as in TFLite: decodes centre-size encodings against the anchors (boxes
// are (y1, x1, y2, x2)), then either regular per-class NMS or the fast variant (NMS on each
// anchor's best class, reporting its top classes). Unused detection slots are zero.

Status validateDetectionPostprocessing(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectOutputTypes(context, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT32,
                                                 OperandType::TENSOR_INT32, OperandType::TENSOR_INT32}));
  for (size_t i : {3, 4, 5, 6}) {
    if (!(context.scalar<float>(i) > 0)) return unsupported(context) << "scales must be positive";
  }
  if (context.scalar<float>(11) < 0 || context.scalar<float>(12) < 0) {
    return unsupported(context) << "thresholds must not be negative";
  }
  const bool regular = context.scalar<uint8_t>(7) != 0;
  if (context.scalar<int32_t>(8) <= 0) return unsupported(context) << "max detections must be positive";
  if (regular && context.scalar<int32_t>(10) <= 0) return unsupported(context) << "max detections per class must be positive";
  if (!regular && context.scalar<int32_t>(9) <= 0) return unsupported(context) << "max classes per detection must be positive";
  return {};
}

uint32_t detectionSlots(const OperationContext& context) {
  const uint32_t maxDetections = uint32_t(context.scalar<int32_t>(8));
  return context.scalar<uint8_t>(7) != 0 ? maxDetections : maxDetections * uint32_t(context.scalar<int32_t>(9));
}

Status prepareDetectionPostprocessing(OperationContext& context) {
  const Tensor& scores = context.input(0);
  const Tensor& encodings = context.input(1);
  if (scores.rank() != 3 || scores.dim(2) < 2) return unsupported(context) << "scores must be [batches, anchors, classes > 1]";
  const uint32_t batches = scores.dim(0), anchors = scores.dim(1);
  if (encodings.rank() != 3 || encodings.dim(0) != batches || encodings.dim(1) != anchors || encodings.dim(2) < 4) {
    return unsupported(context) << "box encodings must be [" << batches << ", " << anchors << ", >= 4]";
  }
  if (context.input(2).dimensions != std::vector<uint32_t>{anchors, kBoxSize}) {
    return unsupported(context) << "anchors must be [" << anchors << ", 4]";
  }
  const uint32_t slots = detectionSlots(context);
  context.output(0).dimensions = {batches, slots};
  context.output(1).dimensions = {batches, slots, kBoxSize};
  context.output(2).dimensions = {batches, slots};
  context.output(3).dimensions = {batches};
  return {};
}

Status executeDetectionPostprocessing(OperationContext& context) {
  const Tensor& scoreTensor = context.input(0);
  const uint32_t batches = scoreTensor.dim(0), anchors = scoreTensor.dim(1), classes = scoreTensor.dim(2);
  const uint32_t encodingLength = context.input(1).dim(2), slots = detectionSlots(context);
  const float* encodings = context.input(1).as<float>();
  const float* anchorBoxes = context.input(2).as<float>();  // (yCenter, xCenter, h, w)
  const float scaleY = context.scalar<float>(3), scaleX = context.scalar<float>(4);
  const float scaleH = context.scalar<float>(5), scaleW = context.scalar<float>(6);
  const bool regular = context.scalar<uint8_t>(7) != 0;
  const int32_t maxDetections = context.scalar<int32_t>(8), maxClassesPerDetection = context.scalar<int32_t>(9);
  const int32_t maxPerClass = context.scalar<int32_t>(10);
  const float scoreThreshold = context.scalar<float>(11), iouThreshold = context.scalar<float>(12);
  const int32_t labelOffset = context.scalar<uint8_t>(13) != 0 ? 0 : 1;
  float* scoresOut = context.output(0).asMutable<float>();
  float* boxesOut = context.output(1).asMutable<float>();
  int32_t* classesOut = context.output(2).asMutable<int32_t>();
  int32_t* countOut = context.output(3).asMutable<int32_t>();
  std::fill(scoresOut, scoresOut + size_t(batches) * slots, 0.0f);
  std::fill(boxesOut, boxesOut + size_t(batches) * slots * kBoxSize, 0.0f);
  std::fill(classesOut, classesOut + size_t(batches) * slots, 0);

  std::vector<float> boxes(size_t(anchors) * kBoxSize);
  auto hardDrop = [&](uint32_t, float iou) { return iou >= iouThreshold; };
  for (uint32_t b = 0; b < batches; ++b) {
    for (uint32_t a = 0; a < anchors; ++a) {
      const float* anchor = anchorBoxes + size_t(a) * kBoxSize;
      const float* encoding = encodings + (size_t(b) * anchors + a) * encodingLength;
      const float yCenter = anchor[0] + anchor[2] * encoding[0] / scaleY;
      const float xCenter = anchor[1] + anchor[3] * encoding[1] / scaleX;
      const float halfH = anchor[2] * std::exp(encoding[2] / scaleH) * 0.5f;
      const float halfW = anchor[3] * std::exp(encoding[3] / scaleW) * 0.5f;
      float* box = &boxes[size_t(a) * kBoxSize];
      box[0] = yCenter - halfH, box[1] = xCenter - halfW, box[2] = yCenter + halfH, box[3] = xCenter + halfW;
    }
    const std::vector<float> scores(scoreTensor.as<float>() + size_t(b) * anchors * classes,
                                    scoreTensor.as<float>() + size_t(b + 1) * anchors * classes);
    size_t written = 0;
    auto emit = [&](float score, uint32_t anchor, uint32_t cls) {
      const size_t slot = size_t(b) * slots + written++;
      scoresOut[slot] = score;
      std::copy_n(&boxes[size_t(anchor) * kBoxSize], kBoxSize, boxesOut + slot * kBoxSize);
      classesOut[slot] = int32_t(cls) - labelOffset;
    };
    if (regular) {
      const std::vector<uint32_t> kept =
          suppressPerClass(scores, anchors, classes, scoreThreshold, maxPerClass, maxDetections, hardDrop,
                           [&](uint32_t index) { return &boxes[size_t(index / classes) * kBoxSize]; });
      for (uint32_t index : kept) emit(scores[index], index / classes, index % classes);
    } else {
      // Each anchor competes with its best non-background score.
      std::vector<float> best(anchors);
      std::vector<uint32_t> candidates;
      for (uint32_t a = 0; a < anchors; ++a) {
        best[a] = *std::max_element(&scores[size_t(a) * classes + 1], &scores[size_t(a + 1) * classes]);
        if (best[a] > scoreThreshold) candidates.push_back(a);
      }
      const size_t kept = suppress(best, candidates.data(), candidates.size(), maxDetections, hardDrop,
                                   [&](uint32_t a) { return &boxes[size_t(a) * kBoxSize]; });
      const uint32_t classesPerAnchor = std::min<uint32_t>(classes - 1, uint32_t(maxClassesPerDetection));
      std::vector<uint32_t> order(classes - 1);
      for (size_t k = 0; k < kept; ++k) {
        const uint32_t a = candidates[k];
        const float* anchorScores = &scores[size_t(a) * classes];
        std::iota(order.begin(), order.end(), 1);
        std::sort(order.begin(), order.end(), [&](uint32_t l, uint32_t r) { return anchorScores[l] > anchorScores[r]; });
        for (uint32_t c = 0; c < classesPerAnchor; ++c) emit(anchorScores[order[c]], a, order[c]);
      }
    }
    countOut[b] = int32_t(written);
  }
  return {};
}

OperationWork detectionPostprocessingWork(const OperationContext& context) {
  OperationWork work;
  const uint64_t anchors = context.input(0).dim(1);
  work.vectorElements = context.input(0).elementCount() + 16 * anchors + anchors * anchors;
  return work;
}
}  // namespace

const OperationKernel kAxisAlignedBboxTransformKernel = {&validateBboxTransform, &prepareBboxTransform,
                                                         &executeBboxTransform, &bboxTransformWork};
NNREMOTE_REGISTER_KERNEL(OperationType::AXIS_ALIGNED_BBOX_TRANSFORM, kAxisAlignedBboxTransformKernel);
const OperationKernel kBoxWithNmsLimitKernel = {&validateBoxWithNmsLimit, &prepareBoxWithNmsLimit,
                                                &executeBoxWithNmsLimit, &boxWithNmsLimitWork};
NNREMOTE_REGISTER_KERNEL(OperationType::BOX_WITH_NMS_LIMIT, kBoxWithNmsLimitKernel);
const OperationKernel kGenerateProposalsKernel = {&validateGenerateProposals, &prepareGenerateProposals,
                                                  &executeGenerateProposals, &generateProposalsWork};
NNREMOTE_REGISTER_KERNEL(OperationType::GENERATE_PROPOSALS, kGenerateProposalsKernel);
const OperationKernel kHeatmapMaxKeypointKernel = {&validateHeatmapMaxKeypoint, &prepareHeatmapMaxKeypoint,
                                                   &executeHeatmapMaxKeypoint, &heatmapMaxKeypointWork,
                                                   &heatmapLayout};
NNREMOTE_REGISTER_KERNEL(OperationType::HEATMAP_MAX_KEYPOINT, kHeatmapMaxKeypointKernel);
const OperationKernel kDetectionPostprocessingKernel = {&validateDetectionPostprocessing,
                                                        &prepareDetectionPostprocessing,
                                                        &executeDetectionPostprocessing,
                                                        &detectionPostprocessingWork};
NNREMOTE_REGISTER_KERNEL(OperationType::DETECTION_POSTPROCESSING, kDetectionPostprocessingKernel);

}  // namespace nnremote::sim
