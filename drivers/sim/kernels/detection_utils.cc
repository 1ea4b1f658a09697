// The detection kernels' shared helpers (detection_utils.h).
#include "drivers/sim/kernels/detection_utils.h"

#include <algorithm>
#include <cmath>

#include "drivers/sim/kernels/kernel_utils.h"

namespace nnremote::sim {
namespace {

bool isQuantizedBoxType(OperandType type) { return type == OperandType::TENSOR_QUANT16_ASYMM; }

float intersectionOverUnion(const float* a, const float* b) {
  const float areaA = (a[2] - a[0]) * (a[3] - a[1]), areaB = (b[2] - b[0]) * (b[3] - b[1]);
  const float w = std::max(std::min(a[2], b[2]) - std::max(a[0], b[0]), 0.0f);
  const float h = std::max(std::min(a[3], b[3]) - std::max(a[1], b[1]), 0.0f);
  const float intersection = w * h;
  return intersection / (areaA + areaB - intersection);
}

}  // namespace

Status expectBoxQuantization(const OperationContext& context, const Tensor& t, const char* name) {
  if (isQuantizedBoxType(t.type) && (t.scale != 0.125f || t.zeroPoint != 0)) {
    return unsupported(context) << name << " must have scale 0.125 and zero point 0";
  }
  return {};
}

std::vector<float> realValues(const Tensor& t) {
  std::vector<float> values(t.elementCount());
  for (size_t i = 0; i < values.size(); ++i) values[i] = float(readValue(t, i));
  return values;
}

void storeValues(const std::vector<float>& values, Tensor& t) {
  for (size_t i = 0; i < values.size(); ++i) writeValue(t, i, values[i]);
}

Status expectOutputTypes(const OperationContext& context, std::initializer_list<OperandType> types) {
  size_t i = 0;
  for (OperandType type : types) {
    if (context.output(i).type != type) {
      return unsupported(context) << "output " << i << " must be " << hal::toString(type);
    }
    ++i;
  }
  return {};
}

void applyBoxDeltas(const float* box, const float* delta, float imageHeight, float imageWidth, float* out) {
  const float width = box[2] - box[0], height = box[3] - box[1];
  const float x = (box[0] + box[2]) / 2 + delta[0] * width, y = (box[1] + box[3]) / 2 + delta[1] * height;
  const float w = std::exp(delta[2]) * width, h = std::exp(delta[3]) * height;
  out[0] = std::clamp(x - w / 2, 0.0f, imageWidth);
  out[1] = std::clamp(y - h / 2, 0.0f, imageHeight);
  out[2] = std::clamp(x + w / 2, 0.0f, imageWidth);
  out[3] = std::clamp(y + h / 2, 0.0f, imageHeight);
}

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

}  // namespace nnremote::sim
