// HEATMAP_MAX_KEYPOINT (Mask R-CNN's keypoint head): each keypoint heatmap's maximum, refined
// to sub-pixel precision and mapped into its box.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "drivers/sim/kernels/detection_utils.h"
#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"

namespace nnremote::sim {
namespace {

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

}  // namespace

const OperationKernel kHeatmapMaxKeypointKernel = {&validateHeatmapMaxKeypoint, &prepareHeatmapMaxKeypoint,
                                                   &executeHeatmapMaxKeypoint, &heatmapMaxKeypointWork,
                                                   &heatmapLayout};
NNREMOTE_REGISTER_KERNEL(OperationType::HEATMAP_MAX_KEYPOINT, kHeatmapMaxKeypointKernel);

}  // namespace nnremote::sim
