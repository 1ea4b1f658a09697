#include "benchmarks/hot_kernel_models.h"

#include "hal/model_builder.h"
#include "hal/operand_types.h"

namespace nnremote::benchmarks {
namespace {

using hal::OperandType;
using hal::OperationType;
using tools::BuiltModel;
using tools::Precision;

// Deterministic bytes: floats in [-1, 1) or uint8 values.
std::vector<uint8_t> deterministicData(Precision precision, size_t count, uint64_t seed) {
  std::vector<uint8_t> bytes;
  uint64_t state = seed;
  for (size_t i = 0; i < count; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    if (precision == Precision::QUANT8) {
      bytes.push_back(uint8_t(state >> 56));
    } else {
      const float v = float((state >> 40) & 0xffffff) / float(1 << 23) - 1.0f;
      const auto* p = reinterpret_cast<const uint8_t*>(&v);
      bytes.insert(bytes.end(), p, p + sizeof(v));
    }
  }
  return bytes;
}

OperandType tensorType(Precision precision) {
  return precision == Precision::QUANT8 ? OperandType::TENSOR_QUANT8_ASYMM : OperandType::TENSOR_FLOAT32;
}

// Activations: [-1, 1) in float, scale 1/128 around 128 in quant8.
float activationScale(Precision precision) { return precision == Precision::QUANT8 ? 1.0f / 128 : 0.0f; }
int32_t activationZeroPoint(Precision precision) { return precision == Precision::QUANT8 ? 128 : 0; }

BuiltModel finish(const hal::ModelBuilder& b, Precision precision, const std::vector<uint32_t>& inputDims,
                  const std::vector<uint32_t>& outputDims) {
  BuiltModel built;
  built.model = b.build();
  built.input = deterministicData(precision, hal::elementCount(inputDims), 7);
  built.outputSizes = {hal::sizeOfData(tensorType(precision), outputDims).value_or(0)};
  return built;
}

// SAME padding for max pooling; VALID for average pooling, since XNNPACK's quantized average
// counts padding taps where NNAPI's does not.
BuiltModel pool(Precision precision, OperationType type, uint32_t size, uint32_t channels, uint32_t stride) {
  const bool same = type == OperationType::MAX_POOL_2D;
  hal::ModelBuilder b;
  const std::vector<uint32_t> inDims = {1, size, size, channels};
  const uint32_t outSize = same ? (size + stride - 1) / stride : (size - 3) / stride + 1;
  const std::vector<uint32_t> outDims = {1, outSize, outSize, channels};
  const uint32_t in = b.addInput(tensorType(precision), inDims, activationScale(precision), activationZeroPoint(precision));
  const uint32_t out = b.addOutput(tensorType(precision), outDims, activationScale(precision), activationZeroPoint(precision));
  b.addOperation(type,
                 {in, b.addInt32(same ? 1 : 2), b.addInt32(stride), b.addInt32(stride), b.addInt32(3), b.addInt32(3),
                  b.addInt32(/*RELU*/ 1)},
                 {out});
  return finish(b, precision, inDims, outDims);
}

BuiltModel maxPool(Precision precision) { return pool(precision, OperationType::MAX_POOL_2D, 112, 64, 2); }
BuiltModel averagePool(Precision precision) { return pool(precision, OperationType::AVERAGE_POOL_2D, 28, 192, 1); }

BuiltModel add(Precision precision) {
  hal::ModelBuilder b;
  const std::vector<uint32_t> dims = {1, 56, 56, 256};
  const float scale = activationScale(precision);
  const int32_t zeroPoint = activationZeroPoint(precision);
  const uint32_t in = b.addInput(tensorType(precision), dims, scale, zeroPoint);
  const std::vector<uint8_t> residual = deterministicData(precision, hal::elementCount(dims), 11);
  const uint32_t other = b.addConstant(tensorType(precision), dims, residual.data(), residual.size(),
                                       precision == Precision::QUANT8 ? 1.0f / 64 : 0.0f, zeroPoint);
  const uint32_t out = b.addOutput(tensorType(precision), dims, precision == Precision::QUANT8 ? 3.0f / 128 : 0.0f,
                                   zeroPoint);
  b.addOperation(OperationType::ADD, {in, other, b.addInt32(/*RELU*/ 1)}, {out});
  return finish(b, precision, dims, dims);
}

BuiltModel fullyConnected(Precision precision) {
  hal::ModelBuilder b;
  constexpr uint32_t kInputs = 2048, kUnits = 1000;
  const bool quantized = precision == Precision::QUANT8;
  const uint32_t in = b.addInput(tensorType(precision), {1, kInputs}, activationScale(precision),
                                 activationZeroPoint(precision));
  const std::vector<uint8_t> weights = deterministicData(precision, size_t(kUnits) * kInputs, 13);
  const float weightScale = quantized ? 1.0f / 2048 : 0.0f;
  const uint32_t w = b.addConstant(tensorType(precision), {kUnits, kInputs}, weights.data(), weights.size(),
                                   weightScale, quantized ? 128 : 0);
  const uint32_t bias =
      quantized ? b.addConstant(OperandType::TENSOR_INT32, {kUnits}, std::vector<int32_t>(kUnits, 100),
                                activationScale(precision) * weightScale)
                : b.addConstant(OperandType::TENSOR_FLOAT32, {kUnits}, std::vector<float>(kUnits, 0.01f));
  const uint32_t out = b.addOutput(tensorType(precision), {1, kUnits}, quantized ? 1.0f / 16 : 0.0f,
                                   activationZeroPoint(precision));
  b.addOperation(OperationType::FULLY_CONNECTED, {in, w, bias, b.addInt32(/*NONE*/ 0)}, {out});
  return finish(b, precision, {1, kInputs}, {1, kUnits});
}

}  // namespace

const std::vector<HotKernelModel>& hotKernelModels() {
  static const auto* models = new std::vector<HotKernelModel>{
      {"max_pool_3x3_s2_112x112x64", &maxPool},
      {"average_pool_3x3_s1_valid_28x28x192", &averagePool},
      {"add_56x56x256", &add},
      {"fully_connected_2048x1000", &fullyConnected},
  };
  return *models;
}

}  // namespace nnremote::benchmarks
