#include "tools/sample_model.h"

#include <cmath>

#include "hal/model_builder.h"

namespace nnremote::tools {
namespace {

using hal::OperandType;
using hal::OperationType;

// Deterministic values in [-scale, scale].
std::vector<float> pattern(size_t count, float scale, float phase) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = scale * std::sin(0.7f * float(i) + phase);
  return values;
}

}  // namespace

SampleModel buildSampleModel() {
  constexpr OperandType kFloat = OperandType::TENSOR_FLOAT32;
  hal::ModelBuilder b;
  const uint32_t image = b.addInput(kFloat, {1, 8, 8, 3});

  // 3x3 convolution to 8 channels, SAME padding, ReLU.
  const uint32_t convWeights = b.addConstant(kFloat, {8, 3, 3, 3}, pattern(8 * 27, 0.3f, 0.1f));
  const uint32_t convBias = b.addConstant(kFloat, {8}, pattern(8, 0.1f, 0.5f));
  const uint32_t conv = b.addTemporary(kFloat, {1, 8, 8, 8});
  b.addOperation(OperationType::CONV_2D,
                 {image, convWeights, convBias, b.addInt32(1), b.addInt32(1), b.addInt32(1),
                  b.addInt32(1)},
                 {conv});

  // 3x3 depthwise convolution, stride 2, ReLU6.
  const uint32_t dwWeights = b.addConstant(kFloat, {1, 3, 3, 8}, pattern(72, 0.4f, 1.3f));
  const uint32_t dwBias = b.addConstant(kFloat, {8}, pattern(8, 0.05f, 2.0f));
  const uint32_t depthwise = b.addTemporary(kFloat, {1, 4, 4, 8});
  b.addOperation(OperationType::DEPTHWISE_CONV_2D,
                 {conv, dwWeights, dwBias, b.addInt32(1), b.addInt32(2), b.addInt32(2),
                  b.addInt32(1), b.addInt32(3)},
                 {depthwise});

  // Global average pool, then flatten.
  const uint32_t pooled = b.addTemporary(kFloat, {1, 1, 1, 8});
  b.addOperation(OperationType::AVERAGE_POOL_2D,
                 {depthwise, b.addInt32(2), b.addInt32(1), b.addInt32(1), b.addInt32(4),
                  b.addInt32(4), b.addInt32(0)},
                 {pooled});
  const uint32_t flat = b.addTemporary(kFloat, {1, 8});
  b.addOperation(OperationType::RESHAPE,
                 {pooled, b.addConstant(OperandType::TENSOR_INT32, {2}, std::vector<int32_t>{1, 8})},
                 {flat});

  // Classifier: 8 -> 4, softmax.
  const uint32_t fcWeights = b.addConstant(kFloat, {4, 8}, pattern(32, 1.0f, 0.9f));
  const uint32_t fcBias = b.addConstant(kFloat, {4}, pattern(4, 0.2f, 0.0f));
  const uint32_t logits = b.addTemporary(kFloat, {1, 4});
  b.addOperation(OperationType::FULLY_CONNECTED, {flat, fcWeights, fcBias, b.addInt32(0)}, {logits});
  const uint32_t probabilities = b.addOutput(kFloat, {1, 4});
  b.addOperation(OperationType::SOFTMAX, {logits, b.addFloat32(1.0f)}, {probabilities});

  SampleModel sample;
  sample.model = b.build();
  sample.input = pattern(8 * 8 * 3, 1.0f, 0.0f);
  sample.outputDimensions = {1, 4};
  return sample;
}

}  // namespace nnremote::tools
