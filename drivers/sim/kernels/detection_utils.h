// Shared by the detection kernels (detection_ops.cc, heatmap_max_keypoint.cc,
// detection_postprocessing.cc): the box conventions, tensors read and written as real values,
// box regression and greedy non-maximum suppression.
//
// Boxes are (x1, y1, x2, y2); quantized boxes are TENSOR_QUANT16_ASYMM with scale 0.125 and
// zero point 0. The kernels compute in float32, as AOSP's reference does.
#ifndef NNREMOTE_DRIVERS_SIM_KERNELS_DETECTION_UTILS_H_
#define NNREMOTE_DRIVERS_SIM_KERNELS_DETECTION_UTILS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <vector>

#include "drivers/sim/operation_context.h"

namespace nnremote::sim {

constexpr uint32_t kBoxSize = 4;

// Fails unless a quantized box tensor `t` has scale 0.125 and zero point 0; `name` says which.
Status expectBoxQuantization(const OperationContext& context, const Tensor& t, const char* name);

// A tensor's elements as real values (quantized types dequantized).
std::vector<float> realValues(const Tensor& t);

// Stores real values into a tensor of any type writeValue takes.
void storeValues(const std::vector<float>& values, Tensor& t);

// Fails unless the outputs have these types, in order.
Status expectOutputTypes(const OperationContext& context, std::initializer_list<OperandType> types);

// Moves and scales `box` by (dx, dy, dw, dh) = `delta` (centre shifts relative to the size, log
// size ratios) and clips the result to the image.
void applyBoxDeltas(const float* box, const float* delta, float imageHeight, float imageWidth, float* out);

// Greedy suppression over `candidates` in place: repeatedly moves the best remaining box to the
// front and drops the others for which drop(candidate, IoU with the best) holds (soft NMS also
// decays their scores there). Returns how many were kept. The order of swaps matches the
// reference, whose tie-breaking it thereby keeps.
size_t suppress(const std::vector<float>& scores, uint32_t* candidates, size_t count, int32_t limit,
                const std::function<bool(uint32_t, float)>& drop,
                const std::function<const float*(uint32_t)>& boxOf);

// Suppression class by class (class 0, the background, skipped) over `boxes` boxes with
// `classes` scores each: candidates above `scoreThreshold`, at most `perClassLimit` kept per
// class, then the best `totalLimit` overall, ordered by score. Indexes are box * classes + class.
std::vector<uint32_t> suppressPerClass(const std::vector<float>& scores, uint32_t boxes, uint32_t classes,
                                       float scoreThreshold, int32_t perClassLimit, int32_t totalLimit,
                                       const std::function<bool(uint32_t, float)>& drop,
                                       const std::function<const float*(uint32_t)>& boxOf);

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_KERNELS_DETECTION_UTILS_H_
