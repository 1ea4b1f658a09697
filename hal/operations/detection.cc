// Lookups, hashing, random sampling, region-of-interest and detection operations, and the counts
// of the control-flow operations (IF, WHILE; their subgraphs are matched by
// hal/control_flow_validation.cc).
#include <cstdint>
#include <vector>

#include "hal/operations/families.h"
#include "hal/operations/signature_checks.h"

namespace nnremote::hal::signatures {
namespace {

using T = OperandType;

// Where the rank is known, at least `min`.
Status expectInputRankAtLeast(const OperationOperands& operands, size_t i, uint32_t min, const char* role) {
  const uint32_t got = operands.inputRank(i);
  if (got == 0 || got >= min) return {};
  return invalidArgument() << "input " << i << " (" << role << ") must have rank " << min << " or more, got "
                           << got;
}

// Quantized box coordinates (TENSOR_QUANT16_ASYMM, or TENSOR_QUANT16_SYMM anchors) are in units
// of 1/8 pixel: scale 0.125 and zero point 0. Float boxes pass.
Status expectBoxQuantization(const OperationOperands& operands, size_t i, const char* role) {
  const Operand& box = operands.input(i);
  if (box.type != T::TENSOR_QUANT16_ASYMM && box.type != T::TENSOR_QUANT16_SYMM) return {};
  if (box.scale == 0.125f && box.zeroPoint == 0) return {};
  return invalidArgument() << "input " << i << " (" << role << ") of type " << toString(box.type)
                           << " must have scale 0.125 and zero point 0, got scale " << box.scale
                           << " and zero point " << box.zeroPoint;
}

// FL4 for the quant8 signed forms, else FL3 (the detection operations entered at FL3).
Version detectionVersion(OperandType type) {
  return type == T::TENSOR_QUANT8_ASYMM_SIGNED ? kFL4 : kFL3;
}

// EMBEDDING_LOOKUP: (lookups TENSOR_INT32 rank 1, values of rank >= 2), output of the values'
// type. FL1 float32; FL3 int32 and quant8; FL4 float16 and quant8 signed.
Result<Version> validateEmbeddingLookup(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 2));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectInputTypeIn(operands, 1,
                                       {T::TENSOR_FLOAT32, T::TENSOR_INT32, T::TENSOR_QUANT8_ASYMM, T::TENSOR_FLOAT16,
                                        T::TENSOR_QUANT8_ASYMM_SIGNED},
                                       "values"));
  const OperandType type = operands.inputType(1);
  const std::vector<Slot> inputs = {{T::TENSOR_INT32, "lookups"}, {type, "values"}};
  NN_RETURN_IF_ERROR(expectInputSlots(operands, 0, inputs));
  NN_RETURN_IF_ERROR(expectOutputSlots(operands, {{type, "output"}}));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 0, 1, "lookups"));
  NN_RETURN_IF_ERROR(expectInputRankAtLeast(operands, 1, 2, "values"));
  switch (type) {
    case T::TENSOR_FLOAT32:
      return kFL1;
    case T::TENSOR_INT32:
    case T::TENSOR_QUANT8_ASYMM:
      return kFL3;
    default:
      return kFL4;
  }
}

// HASHTABLE_LOOKUP: (lookups TENSOR_INT32 rank 1, keys TENSOR_INT32 rank 1, values float32 /
// int32 / quant8), outputs (values' type, hits TENSOR_QUANT8_ASYMM). FL1.
Result<Version> validateHashtableLookup(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 3));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 2));
  NN_RETURN_IF_ERROR(
      expectInputTypeIn(operands, 2, {T::TENSOR_FLOAT32, T::TENSOR_INT32, T::TENSOR_QUANT8_ASYMM}, "values"));
  const OperandType type = operands.inputType(2);
  const std::vector<Slot> inputs = {{T::TENSOR_INT32, "lookups"}, {T::TENSOR_INT32, "keys"}, {type, "values"}};
  NN_RETURN_IF_ERROR(expectInputSlots(operands, 0, inputs));
  NN_RETURN_IF_ERROR(expectOutputSlots(operands, {{type, "output"}, {T::TENSOR_QUANT8_ASYMM, "hits"}}));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 0, 1, "lookups"));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 1, 1, "keys"));
  return kFL1;
}

// LSH_PROJECTION: (hash float32/float16 rank 2, input float16/float32/int32/quant8, weight of the
// hash's type (optional: may be omitted), type INT32), output TENSOR_INT32. FL1 with a float32
// hash, FL3 with a float16 hash or input.
Result<Version> validateLshProjection(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 4));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectInputTypeIn(operands, 0, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16}, "hash"));
  NN_RETURN_IF_ERROR(expectInputTypeIn(
      operands, 1, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16, T::TENSOR_INT32, T::TENSOR_QUANT8_ASYMM}, "input"));
  const OperandType hash = operands.inputType(0);
  const OperandType input = operands.inputType(1);
  NN_RETURN_IF_ERROR(expectInputSlots(
      operands, 0, {{hash, "hash"}, {input, "input"}, {hash, "weight", /*omittable=*/true}, {T::INT32, "type"}}));
  NN_RETURN_IF_ERROR(expectOutputSlots(operands, {{T::TENSOR_INT32, "output"}}));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 0, 2, "hash"));
  return later(versionOfType(hash), versionOfType(input));
}

// RANDOM_MULTINOMIAL: (logits float32/float16, sample count INT32, seeds TENSOR_INT32), output
// TENSOR_INT32. FL3.
Result<Version> validateRandomMultinomial(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 3));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectPrimaryType(operands, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16}));
  const std::vector<Slot> inputs = {
      {operands.inputType(0), "logits"}, {T::INT32, "sample count"}, {T::TENSOR_INT32, "seeds"}};
  NN_RETURN_IF_ERROR(expectInputSlots(operands, 0, inputs));
  NN_RETURN_IF_ERROR(expectOutputSlots(operands, {{T::TENSOR_INT32, "output"}}));
  return kFL3;
}

// ROI_ALIGN: (input rank 4, rois rank 2 [float of the input's type, or TENSOR_QUANT16_ASYMM with
// scale 0.125 for quant8 inputs], batch split TENSOR_INT32, output height INT32, output width
// INT32, height ratio, width ratio [FLOAT16 for float16, else FLOAT32], height sampling INT32,
// width sampling INT32, layout BOOL), output of the input's type.
// ROI_POOLING: the same without the two sampling ratios (8 inputs).
// FL3; FL4 for quant8 signed.
Result<Version> validateRoiOperation(const OperationOperands& operands) {
  const bool align = operands.type() == OperationType::ROI_ALIGN;
  NN_RETURN_IF_ERROR(expectInputCount(operands, align ? 10 : 8));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectPrimaryType(
      operands, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType type = operands.inputType(0);
  const bool quantized = isQuantized(type);
  const OperandType scalar = scalarFor(type);
  std::vector<Slot> inputs = {{type, "input"},
                              {quantized ? T::TENSOR_QUANT16_ASYMM : type, "rois"},
                              {T::TENSOR_INT32, "batch split"},
                              {T::INT32, "output height"},
                              {T::INT32, "output width"},
                              {scalar, "height ratio"},
                              {scalar, "width ratio"}};
  if (align) {
    inputs.push_back({T::INT32, "height sampling ratio"});
    inputs.push_back({T::INT32, "width sampling ratio"});
  }
  inputs.push_back({T::BOOL, "layout"});
  NN_RETURN_IF_ERROR(expectInputSlots(operands, 0, inputs));
  NN_RETURN_IF_ERROR(expectOutputSlots(operands, {{type, "output"}}));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 0, 4, "input"));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 1, 2, "rois"));
  NN_RETURN_IF_ERROR(expectBoxQuantization(operands, 1, "rois"));
  return detectionVersion(type);
}

// AXIS_ALIGNED_BBOX_TRANSFORM: (rois rank 2, deltas rank 2, batch split TENSOR_INT32 rank 1,
// image info rank 2), output of the rois' type. Float: all four tensors float32 or all float16.
// Quantized: rois and image info TENSOR_QUANT16_ASYMM (scale 0.125, zero point 0), deltas quant8
// or quant8 signed. FL3; FL4 for quant8 signed deltas.
Result<Version> validateAxisAlignedBboxTransform(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 4));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectPrimaryType(operands, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16, T::TENSOR_QUANT16_ASYMM}));
  const OperandType type = operands.inputType(0);
  OperandType deltas = type;
  if (type == T::TENSOR_QUANT16_ASYMM) {
    NN_RETURN_IF_ERROR(
        expectInputTypeIn(operands, 1, {T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM_SIGNED}, "deltas"));
    deltas = operands.inputType(1);
  }
  const std::vector<Slot> inputs = {
      {type, "rois"}, {deltas, "deltas"}, {T::TENSOR_INT32, "batch split"}, {type, "image info"}};
  NN_RETURN_IF_ERROR(expectInputSlots(operands, 0, inputs));
  NN_RETURN_IF_ERROR(expectOutputSlots(operands, {{type, "output"}}));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 0, 2, "rois"));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 1, 2, "deltas"));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 2, 1, "batch split"));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 3, 2, "image info"));
  NN_RETURN_IF_ERROR(expectBoxQuantization(operands, 0, "rois"));
  NN_RETURN_IF_ERROR(expectBoxQuantization(operands, 3, "image info"));
  return detectionVersion(deltas);
}

// BOX_WITH_NMS_LIMIT: (scores rank 2, rois rank 2 [scores' type for float, TENSOR_QUANT16_ASYMM
// scale 0.125 for quant8 / quant8 signed scores], batch split TENSOR_INT32 rank 1, score
// threshold, max detections INT32, NMS kernel INT32, IoU threshold, sigma, NMS score threshold
// [FLOAT16 for float16, else FLOAT32]), outputs (scores of the input scores' type, rois of the
// input rois' type, classes TENSOR_INT32, batch split TENSOR_INT32). FL3; FL4 for quant8 signed.
Result<Version> validateBoxWithNmsLimit(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 9));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 4));
  NN_RETURN_IF_ERROR(expectPrimaryType(
      operands, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType type = operands.inputType(0);
  const OperandType boxes = isQuantized(type) ? T::TENSOR_QUANT16_ASYMM : type;
  const OperandType scalar = scalarFor(type);
  const std::vector<Slot> inputs = {{type, "scores"},
                                    {boxes, "rois"},
                                    {T::TENSOR_INT32, "batch split"},
                                    {scalar, "score threshold"},
                                    {T::INT32, "max detections"},
                                    {T::INT32, "NMS kernel"},
                                    {scalar, "IoU threshold"},
                                    {scalar, "sigma"},
                                    {scalar, "NMS score threshold"}};
  NN_RETURN_IF_ERROR(expectInputSlots(operands, 0, inputs));
  NN_RETURN_IF_ERROR(expectOutputSlots(operands, {{type, "scores"},
                                                  {boxes, "rois"},
                                                  {T::TENSOR_INT32, "classes"},
                                                  {T::TENSOR_INT32, "batch split"}}));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 0, 2, "scores"));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 1, 2, "rois"));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 2, 1, "batch split"));
  NN_RETURN_IF_ERROR(expectBoxQuantization(operands, 1, "rois"));
  return detectionVersion(type);
}

// GENERATE_PROPOSALS: (scores rank 4, deltas rank 4 [scores' type], anchors rank 2, image info
// rank 2 [scores' type for float; TENSOR_QUANT16_SYMM and TENSOR_QUANT16_ASYMM, both scale 0.125,
// for quant8 / quant8 signed], height stride, width stride, pre-NMS max INT32, post-NMS max INT32,
// IoU threshold, min size [FLOAT16 for float16, else FLOAT32], layout BOOL), outputs (scores of
// the input's type, rois [scores' type, or TENSOR_QUANT16_ASYMM], batch split TENSOR_INT32).
// FL3; FL4 for quant8 signed.
Result<Version> validateGenerateProposals(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 11));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 3));
  NN_RETURN_IF_ERROR(expectPrimaryType(
      operands, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType type = operands.inputType(0);
  const bool quantized = isQuantized(type);
  const OperandType scalar = scalarFor(type);
  const std::vector<Slot> inputs = {{type, "scores"},
                                    {type, "deltas"},
                                    {quantized ? T::TENSOR_QUANT16_SYMM : type, "anchors"},
                                    {quantized ? T::TENSOR_QUANT16_ASYMM : type, "image info"},
                                    {scalar, "height stride"},
                                    {scalar, "width stride"},
                                    {T::INT32, "pre-NMS max"},
                                    {T::INT32, "post-NMS max"},
                                    {scalar, "IoU threshold"},
                                    {scalar, "min size"},
                                    {T::BOOL, "layout"}};
  NN_RETURN_IF_ERROR(expectInputSlots(operands, 0, inputs));
  NN_RETURN_IF_ERROR(expectOutputSlots(operands, {{type, "scores"},
                                                  {quantized ? T::TENSOR_QUANT16_ASYMM : type, "rois"},
                                                  {T::TENSOR_INT32, "batch split"}}));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 0, 4, "scores"));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 1, 4, "deltas"));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 2, 2, "anchors"));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 3, 2, "image info"));
  NN_RETURN_IF_ERROR(expectBoxQuantization(operands, 2, "anchors"));
  NN_RETURN_IF_ERROR(expectBoxQuantization(operands, 3, "image info"));
  return detectionVersion(type);
}

// HEATMAP_MAX_KEYPOINT: (heatmap rank 4, boxes rank 2 [heatmap's type, or TENSOR_QUANT16_ASYMM
// scale 0.125 for quant8 / quant8 signed], layout BOOL), outputs (scores of the heatmap's type,
// keypoints of the boxes' type). FL3; FL4 for quant8 signed.
Result<Version> validateHeatmapMaxKeypoint(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 3));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 2));
  NN_RETURN_IF_ERROR(expectPrimaryType(
      operands, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType type = operands.inputType(0);
  const OperandType boxes = isQuantized(type) ? T::TENSOR_QUANT16_ASYMM : type;
  const std::vector<Slot> inputs = {{type, "heatmap"}, {boxes, "boxes"}, {T::BOOL, "layout"}};
  NN_RETURN_IF_ERROR(expectInputSlots(operands, 0, inputs));
  NN_RETURN_IF_ERROR(expectOutputSlots(operands, {{type, "scores"}, {boxes, "keypoints"}}));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 0, 4, "heatmap"));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 1, 2, "boxes"));
  NN_RETURN_IF_ERROR(expectBoxQuantization(operands, 1, "boxes"));
  return detectionVersion(type);
}

// DETECTION_POSTPROCESSING: (scores rank 3, deltas rank 3, anchors rank 2, all float32 or all
// float16; y, x, h, w scales; use regular NMS BOOL; max detections, max classes per detection,
// max detections per class INT32; score threshold, IoU threshold; background in label BOOL — the
// float scalars FLOAT16 for float16, else FLOAT32), outputs (scores, rois of the input's type,
// classes TENSOR_INT32, detection count TENSOR_INT32). FL3.
Result<Version> validateDetectionPostprocessing(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 14));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 4));
  NN_RETURN_IF_ERROR(expectPrimaryType(operands, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16}));
  const OperandType type = operands.inputType(0);
  const OperandType scalar = scalarFor(type);
  const std::vector<Slot> inputs = {{type, "scores"},
                                    {type, "deltas"},
                                    {type, "anchors"},
                                    {scalar, "y scale"},
                                    {scalar, "x scale"},
                                    {scalar, "h scale"},
                                    {scalar, "w scale"},
                                    {T::BOOL, "use regular NMS"},
                                    {T::INT32, "max detections"},
                                    {T::INT32, "max classes per detection"},
                                    {T::INT32, "max detections per class"},
                                    {scalar, "score threshold"},
                                    {scalar, "IoU threshold"},
                                    {T::BOOL, "background in label"}};
  NN_RETURN_IF_ERROR(expectInputSlots(operands, 0, inputs));
  NN_RETURN_IF_ERROR(expectOutputSlots(operands, {{type, "scores"},
                                                  {type, "rois"},
                                                  {T::TENSOR_INT32, "classes"},
                                                  {T::TENSOR_INT32, "detection count"}}));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 0, 3, "scores"));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 1, 3, "deltas"));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 2, 2, "anchors"));
  return kFL3;
}

// IF: (condition TENSOR_BOOL8, then-branch SUBGRAPH, else-branch SUBGRAPH, then the branch
// inputs), at least one output. WHILE: (condition SUBGRAPH, body SUBGRAPH, then at least one
// input), at least one output. FL4. Only the counts and the leading operands are checked here;
// validateControlFlowOperation matches the subgraphs.
Result<Version> validateControlFlow(const OperationOperands& operands) {
  const bool isIf = operands.type() == OperationType::IF;
  if (operands.inputCount() < 3) {
    return invalidArgument() << "takes at least 3 inputs ("
                             << (isIf ? "condition, then branch, else branch" : "condition, body, one input")
                             << "), got " << operands.inputCount();
  }
  if (operands.outputCount() < 1) return invalidArgument() << "has at least 1 output, got 0";
  if (isIf) {
    NN_RETURN_IF_ERROR(expectInputType(operands, 0, T::TENSOR_BOOL8, "condition"));
    NN_RETURN_IF_ERROR(expectInputType(operands, 1, T::SUBGRAPH, "then branch"));
    NN_RETURN_IF_ERROR(expectInputType(operands, 2, T::SUBGRAPH, "else branch"));
  } else {
    NN_RETURN_IF_ERROR(expectInputType(operands, 0, T::SUBGRAPH, "condition"));
    NN_RETURN_IF_ERROR(expectInputType(operands, 1, T::SUBGRAPH, "body"));
  }
  return kFL4;
}

}  // namespace

std::vector<OperationSignature> detectionSignatures() {
  return {
      {OperationType::EMBEDDING_LOOKUP, validateEmbeddingLookup},
      {OperationType::HASHTABLE_LOOKUP, validateHashtableLookup},
      {OperationType::LSH_PROJECTION, validateLshProjection},
      {OperationType::RANDOM_MULTINOMIAL, validateRandomMultinomial},
      {OperationType::ROI_ALIGN, validateRoiOperation},
      {OperationType::ROI_POOLING, validateRoiOperation},
      {OperationType::AXIS_ALIGNED_BBOX_TRANSFORM, validateAxisAlignedBboxTransform},
      {OperationType::BOX_WITH_NMS_LIMIT, validateBoxWithNmsLimit},
      {OperationType::GENERATE_PROPOSALS, validateGenerateProposals},
      {OperationType::HEATMAP_MAX_KEYPOINT, validateHeatmapMaxKeypoint},
      {OperationType::DETECTION_POSTPROCESSING, validateDetectionPostprocessing},
      {OperationType::IF, validateControlFlow},
      {OperationType::WHILE, validateControlFlow},
  };
}

}  // namespace nnremote::hal::signatures
