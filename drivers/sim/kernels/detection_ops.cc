// Region-based detection operations (Faster R-CNN's): AXIS_ALIGNED_BBOX_TRANSFORM,
// BOX_WITH_NMS_LIMIT and GENERATE_PROPOSALS. HEATMAP_MAX_KEYPOINT and DETECTION_POSTPROCESSING
// have files of their own; the box conventions and suppression all share are in
// detection_utils.h.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <vector>

#include "drivers/sim/kernels/detection_utils.h"
#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"

namespace nnremote::sim {
namespace {

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

// The result of suppression: indexes (box * numClasses + class) into the scores, which soft
// NMS has decayed, with the batch each group of survivors came from.
struct NmsSelection {
  std::vector<float> scores;
  std::vector<uint32_t> selected;
  std::vector<int32_t> batchOfSelected;
};

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

}  // namespace nnremote::sim
