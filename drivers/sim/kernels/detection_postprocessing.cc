// DETECTION_POSTPROCESSING: SSD's post-processing (as in TFLite), anchor-encoded boxes decoded
// and suppressed into a fixed number of detection slots.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "drivers/sim/kernels/detection_utils.h"
#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"

namespace nnremote::sim {
namespace {

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
  if (regular && context.scalar<int32_t>(10) <= 0) {
    return unsupported(context) << "max detections per class must be positive";
  }
  if (!regular && context.scalar<int32_t>(9) <= 0) {
    return unsupported(context) << "max classes per detection must be positive";
  }
  return {};
}

uint32_t detectionSlots(const OperationContext& context) {
  const uint32_t maxDetections = uint32_t(context.scalar<int32_t>(8));
  return context.scalar<uint8_t>(7) != 0 ? maxDetections : maxDetections * uint32_t(context.scalar<int32_t>(9));
}

Status prepareDetectionPostprocessing(OperationContext& context) {
  const Tensor& scores = context.input(0);
  const Tensor& encodings = context.input(1);
  if (scores.rank() != 3 || scores.dim(2) < 2) {
    return unsupported(context) << "scores must be [batches, anchors, classes > 1]";
  }
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
        std::sort(order.begin(), order.end(),
                  [&](uint32_t l, uint32_t r) { return anchorScores[l] > anchorScores[r]; });
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

const OperationKernel kDetectionPostprocessingKernel = {&validateDetectionPostprocessing,
                                                        &prepareDetectionPostprocessing,
                                                        &executeDetectionPostprocessing,
                                                        &detectionPostprocessingWork};
NNREMOTE_REGISTER_KERNEL(OperationType::DETECTION_POSTPROCESSING, kDetectionPostprocessingKernel);

}  // namespace nnremote::sim
