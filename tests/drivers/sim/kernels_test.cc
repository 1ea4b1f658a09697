// Small, hand-checkable cases for the semantics kernels get wrong most easily.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"
#include "drivers/sim/sim_device.h"
#include "hal/model_builder.h"

namespace nnremote::sim {
namespace {

using hal::OperandType;
using hal::OperationType;
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::Pointwise;

constexpr OperandType kFloat = OperandType::TENSOR_FLOAT32;
constexpr OperandType kQuant = OperandType::TENSOR_QUANT8_ASYMM;

// Prepares `model` on the simulator, runs it on `inputs`, returns the first output's bytes.
std::vector<uint8_t> run(const hal::Model& model, const std::vector<std::vector<uint8_t>>& inputs,
                         size_t outputBytes) {
  auto device = SimDevice::create(edgeNpuConfig());
  auto prepared = device->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                       hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  EXPECT_TRUE(prepared.ok()) << prepared.error().message;
  if (!prepared.ok()) return {};
  auto io = hal::makeRequest(inputs, {outputBytes});
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  EXPECT_TRUE(outcome.ok()) << outcome.error().message;
  return hal::fromMemory<uint8_t>(io->outputs[0], outputBytes);
}

std::vector<float> asFloats(const std::vector<uint8_t>& bytes) {
  std::vector<float> values(bytes.size() / 4);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

// The CTS goldens come from TFLite's gemmlowp arithmetic, rounding quirks included: the
// doubling high multiply rounds ties upward, then the power-of-two shift rounds ties away from
// zero, so a value can be rounded twice.
// Kernels register themselves: every operation but control flow (which the executor runs) has one.
TEST(KernelRegistryTest, EveryOperationButIfAndWhileHasAKernel) {
  for (int32_t code = 0; code <= hal::kLastOperationType; ++code) {
    const auto type = static_cast<OperationType>(code);
    const bool controlFlow = type == OperationType::IF || type == OperationType::WHILE;
    EXPECT_EQ(findKernel(type) != nullptr, !controlFlow) << hal::toString(type);
  }
  EXPECT_EQ(findKernel(static_cast<OperationType>(hal::kLastOperationType + 1)), nullptr);
}

TEST(RequantizationTest, MatchesGemmlowpRounding) {
  const QuantizedMultiplier half = quantizeMultiplier(0.5);
  EXPECT_EQ(half.multiplier, 1 << 30);
  EXPECT_EQ(half.shift, 0);
  EXPECT_EQ(multiplyByQuantizedMultiplier(3, half), 2);    // 1.5 -> 2
  EXPECT_EQ(multiplyByQuantizedMultiplier(-3, half), -1);  // -1.5 -> -1: ties go up
  const QuantizedMultiplier quarter = quantizeMultiplier(0.25);
  EXPECT_EQ(quarter.multiplier, 1 << 30);
  EXPECT_EQ(quarter.shift, -1);
  EXPECT_EQ(multiplyByQuantizedMultiplier(5, quarter), 2);    // 1.25 -> 2.5 -> 3, then 1.5 -> 2
  EXPECT_EQ(multiplyByQuantizedMultiplier(-6, quarter), -2);  // -1.5 -> -3 exactly, then -2
  EXPECT_EQ(multiplyByQuantizedMultiplier(4, quarter), 1);
  const QuantizedMultiplier big = quantizeMultiplier(3.0);  // > 1 shifts left
  EXPECT_EQ(big.shift, 2);
  EXPECT_EQ(multiplyByQuantizedMultiplier(7, big), 21);
  // Found by wire_fuzzer: scales 108 binary orders apart shifted past 32 bits. They saturate.
  const QuantizedMultiplier huge = quantizeMultiplier(std::ldexp(1.0, 108));
  EXPECT_EQ(huge.shift, 30);
  EXPECT_GE(multiplyByQuantizedMultiplier(7, huge), std::numeric_limits<int32_t>::max() - 1);
  // Found by wire_fuzzer: a ratio of scales that overflows to infinity, and accumulators past
  // int32 (conv, fully connected, ROI_ALIGN), saturate.
  EXPECT_EQ(quantizeMultiplier(INFINITY).shift, 30);
  EXPECT_EQ(quantizeMultiplier(NAN).multiplier, 0);
  EXPECT_EQ(requantizeSaturating(int64_t{1} << 40, half, 10), (1 << 30) + 10);  // int32 max, halved
  EXPECT_EQ(requantizeSaturating(-(int64_t{1} << 40), half, 0), -(1 << 30));
  EXPECT_LE(multiplyByQuantizedMultiplier(-7, huge), -(std::numeric_limits<int32_t>::max() - 1));
}

TEST(PaddingTest, SamePutsTheOddPixelAtTheEnd) {
  const Padding odd = implicitPadding(PaddingScheme::SAME, 4, 2, 3, 1);
  EXPECT_EQ(odd.before, 0u);
  EXPECT_EQ(odd.after, 1u);
  const Padding even = implicitPadding(PaddingScheme::SAME, 5, 2, 3, 1);
  EXPECT_EQ(even.before, 1u);
  EXPECT_EQ(even.after, 1u);
  const Padding dilated = implicitPadding(PaddingScheme::SAME, 5, 1, 3, 2);  // effective filter 5
  EXPECT_EQ(dilated.before, 2u);
  EXPECT_EQ(dilated.after, 2u);
  EXPECT_EQ(implicitPadding(PaddingScheme::VALID, 5, 2, 3, 1).after, 0u);
  EXPECT_EQ(outputSize(5, 3, 1, 2, {}), 2u);
  EXPECT_EQ(outputSize(2, 3, 1, 1, {}), 0u);
}

TEST(BroadcastTest, AlignsTrailingDimensions) {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(kFloat, {2, 1, 3});
  const uint32_t c = b.addInput(kFloat, {2, 1});
  const uint32_t out = b.addOutput(kFloat, {2, 2, 3});
  b.addOperation(OperationType::SUB, {a, c, b.addInt32(0)}, {out});
  const auto result = asFloats(run(b.build(),
                                   {hal::toBytes<float>({1, 2, 3, 4, 5, 6}), hal::toBytes<float>({10, 20})},
                                   48));
  EXPECT_THAT(result, ElementsAre(-9, -8, -7, -19, -18, -17, -6, -5, -4, -16, -15, -14));
}

TEST(QuantizedAddTest, RescalesInputsWithDifferentScales) {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(kQuant, {2}, 0.5f, 0);     // [2, 4] -> [1, 2]
  const uint32_t c = b.addInput(kQuant, {2}, 1.0f, 10);    // [11, 13] -> [1, 3]
  const uint32_t out = b.addOutput(kQuant, {2}, 0.5f, 0);  // [2, 5] -> [4, 10]
  b.addOperation(OperationType::ADD, {a, c, b.addInt32(0)}, {out});
  EXPECT_THAT(run(b.build(), {{2, 4}, {11, 13}}, 2), ElementsAre(4, 10));
}

TEST(QuantizedAddTest, FusedRelu6ClampsInTheQuantizedDomain) {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(kQuant, {2}, 0.5f, 100);
  const uint32_t out = b.addOutput(kQuant, {2}, 0.5f, 100);
  b.addOperation(OperationType::ADD, {a, a, b.addInt32(3)}, {out});
  // Real inputs [-1, 4] doubled to [-2, 8], clamped to [0, 6] -> quantized [100, 112].
  EXPECT_THAT(run(b.build(), {{98, 108}}, 2), ElementsAre(100, 112));
}

TEST(PoolingTest, AverageCountsOnlyTapsInsideTheInput) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(kFloat, {1, 2, 2, 1});
  const uint32_t out = b.addOutput(kFloat, {1, 2, 2, 1});
  b.addOperation(OperationType::AVERAGE_POOL_2D,
                 {in, b.addInt32(1), b.addInt32(1), b.addInt32(1), b.addInt32(2), b.addInt32(2),
                  b.addInt32(0)},
                 {out});
  EXPECT_THAT(asFloats(run(b.build(), {hal::toBytes<float>({1, 2, 3, 4})}, 16)),
              ElementsAre(2.5f, 3.0f, 3.5f, 4.0f));
}

// A quantized average's window sum is at most 255 per tap inside the input, which passes int32's
// limit for an input of more than 2^31 / 255 pixels: a legal shape. Such a window sums in 64 bits
// (a 32-bit sum overflowed: UBSan, and a wrapped negative average, 0, in other builds).
TEST(PoolingTest, QuantizedAverageOverMoreThanInt32SumsOf255) {
  constexpr uint32_t kSide = 2903;  // 8,427,409 pixels: 255 each sums past 2^31
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(kQuant, {1, kSide, kSide, 1}, 1.0f, 0);
  const uint32_t out = b.addOutput(kQuant, {1, 1, 1, 1}, 1.0f, 0);
  b.addOperation(OperationType::AVERAGE_POOL_2D,
                 {in, b.addInt32(2), b.addInt32(1), b.addInt32(1), b.addInt32(kSide), b.addInt32(kSide), b.addInt32(0)},
                 {out});
  EXPECT_EQ(run(b.build(), {std::vector<uint8_t>(size_t{kSide} * kSide, 255)}, 1), std::vector<uint8_t>{255});
}

TEST(PoolingTest, QuantizedAverageRoundsHalfUp) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(kQuant, {1, 1, 2, 1}, 1.0f, 0);
  const uint32_t out = b.addOutput(kQuant, {1, 1, 1, 1}, 1.0f, 0);
  b.addOperation(OperationType::AVERAGE_POOL_2D,
                 {in, b.addInt32(2), b.addInt32(1), b.addInt32(1), b.addInt32(2), b.addInt32(1),
                  b.addInt32(0)},
                 {out});
  EXPECT_THAT(run(b.build(), {{1, 2}}, 1), ElementsAre(2));  // 1.5 -> 2
}

// RESIZE_BILINEAR of [0, 10] from width 2 to width 4 under its three sampling conventions.
std::vector<float> resizeRow(bool alignCorners, bool halfPixelCenters) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(kFloat, {1, 1, 2, 1});
  const uint32_t out = b.addOutput(kFloat, {1, 1, 4, 1});
  b.addOperation(OperationType::RESIZE_BILINEAR,
                 {in, b.addInt32(4), b.addInt32(1), b.addBool(false), b.addBool(alignCorners),
                  b.addBool(halfPixelCenters)},
                 {out});
  return asFloats(run(b.build(), {hal::toBytes<float>({0, 10})}, 16));
}

// Found by wire_fuzzer: scales making a side beyond 2^32 pixels converted out of range.
TEST(ResizeBilinearTest, AbsurdScalesAreRefused) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(kFloat, {1, 1, 2, 1});
  const uint32_t out = b.addOutput(kFloat, {0, 0, 0, 0});
  b.addOperation(OperationType::RESIZE_BILINEAR, {in, b.addFloat32(1e13f), b.addFloat32(1.0f)}, {out});
  auto prepared = SimDevice::create(edgeNpuConfig())->prepareModel(
      b.build(), hal::ExecutionPreference::LOW_POWER, hal::Priority::LOW, std::nullopt, {}, {}, {});
  if (prepared.ok()) {
    auto io = hal::makeRequest({hal::toBytes<float>({0, 10})}, {16});
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    ASSERT_FALSE(outcome.ok());
    EXPECT_THAT(outcome.error().message, ::testing::HasSubstr("the scales make an output of"));
  } else {
    EXPECT_THAT(prepared.error().message, ::testing::HasSubstr("the scales make an output of"));
  }
}

TEST(ResizeBilinearTest, SamplingConventions) {
  // Default: source x = 0.5 x, clamped at the last pixel.
  EXPECT_THAT(resizeRow(false, false), Pointwise(FloatNear(1e-5), std::vector<float>{0, 5, 10, 10}));
  // Corners aligned: source x = x / 3, so the ends map to the ends.
  EXPECT_THAT(resizeRow(true, false), Pointwise(FloatNear(1e-5), std::vector<float>{0, 10.0f / 3, 20.0f / 3, 10}));
  // Half-pixel centres: source x = (x + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25, clamped.
  EXPECT_THAT(resizeRow(false, true), Pointwise(FloatNear(1e-5), std::vector<float>{0, 2.5f, 7.5f, 10}));
}

TEST(SoftmaxTest, AppliesBeta) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(kFloat, {1, 2});
  const uint32_t out = b.addOutput(kFloat, {1, 2});
  b.addOperation(OperationType::SOFTMAX, {in, b.addFloat32(2.0f)}, {out});
  // exp(2*1), exp(2*2) normalized: 1 / (1 + e^2), e^2 / (1 + e^2).
  EXPECT_THAT(asFloats(run(b.build(), {hal::toBytes<float>({1, 2})}, 8)),
              Pointwise(FloatNear(1e-6f), std::vector<float>{0.11920292f, 0.88079708f}));
}

TEST(ConcatenationTest, RequantizesInputsToTheOutputScale) {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(kQuant, {1, 1}, 1.0f, 0);
  const uint32_t c = b.addInput(kQuant, {1, 2}, 2.0f, 5);
  const uint32_t out = b.addOutput(kQuant, {1, 3}, 1.0f, 0);
  b.addOperation(OperationType::CONCATENATION, {a, c, b.addInt32(1)}, {out});
  // [10] and [(15-5)*2, (6-5)*2] = [20, 2].
  EXPECT_THAT(run(b.build(), {{10}, {15, 6}}, 3), ElementsAre(10, 20, 2));
}

TEST(DepthwiseTest, DepthMultiplierMapsEachInputChannelToConsecutiveOutputs) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(kFloat, {1, 1, 1, 2});
  const uint32_t filter = b.addConstant(kFloat, {1, 1, 1, 4}, std::vector<float>{1, 2, 3, 4});
  const uint32_t bias = b.addConstant(kFloat, {4}, std::vector<float>{0, 0, 0, 100});
  const uint32_t out = b.addOutput(kFloat, {1, 1, 1, 4});
  b.addOperation(OperationType::DEPTHWISE_CONV_2D,
                 {in, filter, bias, b.addInt32(2), b.addInt32(1), b.addInt32(1), b.addInt32(2),
                  b.addInt32(0)},
                 {out});
  // Channel 0 (=5) feeds outputs 0 and 1; channel 1 (=7) feeds outputs 2 and 3.
  EXPECT_THAT(asFloats(run(b.build(), {hal::toBytes<float>({5, 7})}, 16)),
              ElementsAre(5, 10, 21, 128));
}

// Found by wire_fuzzer: a float beyond int32's range cast to TENSOR_INT32 was undefined
// behaviour; it saturates (NaN becomes 0).
TEST(CastTest, FloatToInt32Saturates) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(kFloat, {4});
  const uint32_t out = b.addOutput(OperandType::TENSOR_INT32, {4});
  b.addOperation(OperationType::CAST, {in}, {out});
  const auto bytes = run(b.build(), {hal::toBytes<float>({2.55172e10f, -3e12f, NAN, -7.9f})}, 16);
  std::vector<int32_t> values(4);
  std::memcpy(values.data(), bytes.data(), 16);
  EXPECT_THAT(values, ElementsAre(2147483647, -2147483647 - 1, 0, -7));
}

// Found by hal_model_fuzzer and wire_fuzzer: an omitted (NO_VALUE) tensor as an operation's
// data input reached the kernel as a null pointer. It is refused at preparation, naming it.
TEST(OmittedInputTest, AnOmittedDataTensorIsRefusedBeforeAnyKernelRuns) {
  for (OperationType type : {OperationType::RELU, OperationType::CAST}) {
    hal::ModelBuilder b;
    const uint32_t in = b.addNoValue(kFloat);
    const uint32_t out = b.addOutput(kFloat, {4});
    b.addOperation(type, {in}, {out});
    auto prepared = SimDevice::create(edgeNpuConfig())->prepareModel(
        b.build(), hal::ExecutionPreference::LOW_POWER, hal::Priority::LOW, std::nullopt, {}, {}, {});
    ASSERT_FALSE(prepared.ok()) << hal::toString(type);
    EXPECT_EQ(prepared.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
    EXPECT_THAT(prepared.error().message, ::testing::HasSubstr("input 0 is a tensor with no value (omitted)"));
  }
}

// Found by hal_model_fuzzer: 2-D lookups wrote one row per element into an output with one row
// per lookup-dimension entry. A model that declares them 2-D is invalid (the signature table);
// one that leaves their rank to the request is refused by the kernel once it is known.
TEST(EmbeddingLookupTest, LookupsMustBeOneDimensional) {
  auto model = [](std::vector<uint32_t> lookupDimensions) {
    hal::ModelBuilder b;
    const uint32_t lookups = b.addInput(OperandType::TENSOR_INT32, std::move(lookupDimensions));
    const uint32_t values = b.addInput(kFloat, {3, 2});
    const uint32_t out = b.addOutput(kFloat, {2, 2});
    b.addOperation(OperationType::EMBEDDING_LOOKUP, {lookups, values}, {out});
    return b.build();
  };
  const auto device = SimDevice::create(edgeNpuConfig());
  auto declared = device->prepareModel(model({2, 2}), hal::ExecutionPreference::LOW_POWER, hal::Priority::LOW,
                                       std::nullopt, {}, {}, {});
  ASSERT_FALSE(declared.ok());
  EXPECT_THAT(declared.error().message, ::testing::HasSubstr("EMBEDDING_LOOKUP: input 0 (lookups) must have rank 1"));

  auto prepared = device->prepareModel(model({}), hal::ExecutionPreference::LOW_POWER, hal::Priority::LOW,
                                       std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<int32_t>({0, 1, 2, 0}), hal::toBytes<float>({1, 2, 3, 4, 5, 6})}, {16});
  io->request.inputs[0].dimensions = {2, 2};
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(outcome.ok());
  EXPECT_THAT(outcome.error().message, ::testing::HasSubstr("lookups must be 1-D, has rank 2"));
}

// Found by wire_fuzzer: a constant at an offset not aligned for its type was read through a
// misaligned pointer. The prepared model keeps an aligned copy.
TEST(ConstantAlignmentTest, MisalignedConstantsAreReadCorrectly) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(kFloat, {2});
  const uint32_t addend = b.addConstant(kFloat, {2}, std::vector<float>{10, 20});
  const uint32_t out = b.addOutput(kFloat, {2});
  b.addOperation(OperationType::ADD, {in, addend, b.addInt32(0)}, {out});
  hal::Model model = b.build();
  // Every constant one byte further into operandValues.
  model.operandValues.insert(model.operandValues.begin(), uint8_t{0});
  for (hal::Operand& operand : model.main.operands) {
    if (operand.lifetime == hal::Operand::LifeTime::CONSTANT_COPY) operand.location.offset += 1;
  }
  ASSERT_EQ(model.main.operands[addend].location.offset % 4, 1u);
  EXPECT_EQ(asFloats(run(model, {hal::toBytes<float>({1, 2})}, 8)), (std::vector<float>{11, 22}));
}

// Found by wire_fuzzer: a huge sampling ratio made ROI_ALIGN take practically forever, which a
// server must not. Such work is refused; the sample loops also stop if a position no longer
// advances. Found by it again: on a one-channel map, 4000 x 4000 samples per bin were within the
// limit counted in channels, and took 0.75 s (7 s under the fuzzer's instrumentation); each
// sample point counts for its own cost too.
TEST(RoiAlignTest, AbsurdSamplingIsRefused) {
  for (const int32_t samples : {2, 4000, 1 << 30}) {
    hal::ModelBuilder b;
    const uint32_t image = b.addInput(kFloat, {1, 2, 2, 1});
    const uint32_t rois = b.addInput(kFloat, {1, 4});
    const uint32_t batches = b.addConstant(OperandType::TENSOR_INT32, {1}, std::vector<int32_t>{0});
    const uint32_t out = b.addOutput(kFloat, {1, 2, 2, 1});
    b.addOperation(OperationType::ROI_ALIGN,
                   {image, rois, batches, b.addInt32(2), b.addInt32(2), b.addFloat32(1.0f), b.addFloat32(1.0f),
                    b.addInt32(samples), b.addInt32(samples), b.addBool(false)},
                   {out});
    auto prepared = SimDevice::create(edgeNpuConfig())->prepareModel(
        b.build(), hal::ExecutionPreference::LOW_POWER, hal::Priority::LOW, std::nullopt, {}, {}, {});
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    auto io = hal::makeRequest({hal::toBytes<float>({1, 2, 3, 4}), hal::toBytes<float>({0, 0, 1, 1})}, {16});
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    if (samples == 2) {
      EXPECT_TRUE(outcome.ok()) << outcome.error().message;
    } else {
      ASSERT_FALSE(outcome.ok());
      EXPECT_THAT(outcome.error().message, ::testing::HasSubstr("samples (at most"));
    }
  }
}

// Found by wire_fuzzer: RNN cells indexed weights whose shapes disagreed with the input and
// state (heap overflows). The shapes are checked first.
TEST(RnnTest, CellShapesMustAgree) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(kFloat, {2, 5});
  const uint32_t weights = b.addInput(kFloat, {4, 3});  // should be [units, 5]
  const uint32_t recurrent = b.addInput(kFloat, {4, 4});
  const uint32_t bias = b.addInput(kFloat, {4});
  const uint32_t hidden = b.addInput(kFloat, {2, 4});
  const uint32_t state = b.addOutput(kFloat, {2, 4});
  const uint32_t out = b.addOutput(kFloat, {2, 4});
  b.addOperation(OperationType::RNN, {in, weights, recurrent, bias, hidden, b.addInt32(1)}, {state, out});
  auto prepared = SimDevice::create(edgeNpuConfig())->prepareModel(
      b.build(), hal::ExecutionPreference::LOW_POWER, hal::Priority::LOW, std::nullopt, {}, {}, {});
  if (prepared.ok()) {
    auto io = hal::makeRequest({std::vector<uint8_t>(40), std::vector<uint8_t>(48), std::vector<uint8_t>(64),
                                std::vector<uint8_t>(16), std::vector<uint8_t>(32)},
                               {32, 32});
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    ASSERT_FALSE(outcome.ok());
    EXPECT_THAT(outcome.error().message, ::testing::HasSubstr("input 1 must be [units, 5], is [4, 3]"));
  } else {
    EXPECT_THAT(prepared.error().message, ::testing::HasSubstr("input 1 must be [units, 5], is [4, 3]"));
  }
}

// Found by wire_fuzzer: int32 ADD, SUB, MUL and DIV overflowed (undefined behaviour). They wrap
// around in two's complement.
TEST(Int32ArithmeticTest, OverflowWraps) {
  const int32_t max = std::numeric_limits<int32_t>::max(), min = std::numeric_limits<int32_t>::min();
  const std::pair<OperationType, std::vector<int32_t>> cases[] = {
      {OperationType::ADD, {min, min + 1}}, {OperationType::SUB, {max, max - 1}},
      {OperationType::MUL, {-2, min}}, {OperationType::DIV, {min, -max}}};
  for (const auto& [type, expected] : cases) {
    hal::ModelBuilder b;
    const uint32_t x = b.addInput(OperandType::TENSOR_INT32, {2});
    const uint32_t y = b.addInput(OperandType::TENSOR_INT32, {2});
    const uint32_t out = b.addOutput(OperandType::TENSOR_INT32, {2});
    b.addOperation(type, {x, y, b.addInt32(0)}, {out});
    const std::vector<int32_t> left = type == OperationType::ADD   ? std::vector<int32_t>{max, max}
                                      : type == OperationType::SUB ? std::vector<int32_t>{min, min}
                                      : type == OperationType::MUL ? std::vector<int32_t>{max, 1 << 30}
                                                                   : std::vector<int32_t>{min, max};
    const std::vector<int32_t> right = type == OperationType::ADD   ? std::vector<int32_t>{1, 2}
                                       : type == OperationType::SUB ? std::vector<int32_t>{1, 2}
                                       : type == OperationType::MUL ? std::vector<int32_t>{2, 2}
                                                                    : std::vector<int32_t>{-1, -1};
    const auto bytes = run(b.build(), {hal::toBytes<int32_t>(left), hal::toBytes<int32_t>(right)}, 8);
    ASSERT_EQ(bytes.size(), 8u) << hal::toString(type);
    std::vector<int32_t> values(2);
    std::memcpy(values.data(), bytes.data(), 8);
    EXPECT_EQ(values, expected) << hal::toString(type);
  }
}

TEST(ReshapeTest, InfersOneDimension) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(kFloat, {2, 3});
  const uint32_t out = b.addOutput(kFloat, {0, 0});
  b.addOperation(OperationType::RESHAPE,
                 {in, b.addConstant(OperandType::TENSOR_INT32, {2}, std::vector<int32_t>{-1, 2})},
                 {out});
  auto device = SimDevice::create(edgeNpuConfig());
  auto prepared = device->prepareModel(b.build(), hal::ExecutionPreference::LOW_POWER,
                                       hal::Priority::LOW, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok());
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2, 3, 4, 5, 6})}, {24});
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok());
  EXPECT_THAT(outcome->outputShapes[0].dimensions, ElementsAre(3, 2));
}

// ROI_ALIGN on a 2x2 map whose values are x + 10y: bilinear sampling of a linear ramp returns
// the ramp at the sample point, so each bin's average is the ramp at the bin's centre.
hal::Model roiAlignModel(const std::vector<float>& box) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(kFloat, {1, 2, 2, 1});
  const uint32_t rois = b.addConstant(kFloat, {1, 4}, box);
  const uint32_t batches = b.addConstant(OperandType::TENSOR_INT32, {1}, std::vector<int32_t>{0});
  const uint32_t out = b.addOutput(kFloat, {1, 1, 2, 1});
  b.addOperation(OperationType::ROI_ALIGN,
                 {in, rois, batches, b.addInt32(1), b.addInt32(2), b.addFloat32(1), b.addFloat32(1),
                  b.addInt32(1), b.addInt32(1), b.addBool(false)},
                 {out});
  return b.build();
}

TEST(RoiAlignTest, AveragesBilinearSamplesAtBinCentres) {
  // Box x in [0, 1], y in [0, 1]: bins centred at (0.25, 0.5) and (0.75, 0.5).
  EXPECT_THAT(asFloats(run(roiAlignModel({0, 0, 1, 1}), {hal::toBytes<float>({0, 1, 10, 11})}, 8)),
              Pointwise(FloatNear(1e-6f), std::vector<float>{5.25f, 5.75f}));
}

TEST(RoiAlignTest, BoxOutsideTheFeatureMapFailsTheExecution) {
  auto device = SimDevice::create(edgeNpuConfig());
  auto prepared = device->prepareModel(roiAlignModel({0, 0, 3, 1}), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                       hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({0, 1, 10, 11})}, {8});
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(outcome.ok());
  EXPECT_THAT(outcome.error().message, ::testing::HasSubstr("box 0"));
}

TEST(BoxWithNmsLimitTest, HardNmsDropsTheWeakerOfTwoOverlappingBoxes) {
  hal::ModelBuilder b;
  // Three boxes, two classes (class 0 is background and ignored). Boxes 0 and 1 overlap with
  // IoU 0.6; box 2 is disjoint.
  const uint32_t scores = b.addInput(kFloat, {3, 2});
  const uint32_t boxes = b.addConstant(kFloat, {3, 8},
                                       std::vector<float>{0, 0, 0, 0, 0, 0, 10, 10,  //
                                                          0, 0, 0, 0, 0, 0, 10, 6,   //
                                                          0, 0, 0, 0, 20, 20, 30, 30});
  const uint32_t batches = b.addConstant(OperandType::TENSOR_INT32, {3}, std::vector<int32_t>{0, 0, 0});
  const uint32_t outScores = b.addOutput(kFloat, {0});
  const uint32_t outBoxes = b.addOutput(kFloat, {0, 4});
  const uint32_t outClasses = b.addOutput(OperandType::TENSOR_INT32, {0});
  const uint32_t outBatches = b.addOutput(OperandType::TENSOR_INT32, {0});
  b.addOperation(OperationType::BOX_WITH_NMS_LIMIT,
                 {scores, boxes, batches, b.addFloat32(0.1f), b.addInt32(-1), b.addInt32(0), b.addFloat32(0.5f),
                  b.addFloat32(1.0f), b.addFloat32(0.1f)},
                 {outScores, outBoxes, outClasses, outBatches});
  auto device = SimDevice::create(edgeNpuConfig());
  auto prepared = device->prepareModel(b.build(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                       hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({0.9f, 0.7f, 0.9f, 0.8f, 0.9f, 0.6f})}, {12, 48, 12, 12});
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  // Box 1 (0.8) survives, box 0 (0.7) overlaps it and goes, box 2 (0.6) stays: ordered by score.
  EXPECT_THAT(outcome->outputShapes[0].dimensions, ElementsAre(2));
  EXPECT_THAT(asFloats(hal::fromMemory<uint8_t>(io->outputs[0], 8)), ElementsAre(0.8f, 0.6f));
  EXPECT_THAT(asFloats(hal::fromMemory<uint8_t>(io->outputs[1], 32)), ElementsAre(0, 0, 10, 6, 20, 20, 30, 30));
}

// Fuzz finding: a client may place request arguments at any offset in a pool. Kernels read and
// write elements through typed pointers, so misaligned arguments are copied into alignment
// (UBSan, which the asan configuration runs, flags a misaligned load). TRANSPOSE_CONV_2D in NCHW
// also reads its output-shape input through the layout lowering, where the finding was.
TEST(KernelsTest, MisalignedRequestArgumentsAreReadAndWrittenCorrectly) {
  hal::ModelBuilder b;
  const uint32_t x = b.addInput(kFloat, {1, 1, 2, 2});  // NCHW
  const uint32_t shape = b.addInput(OperandType::TENSOR_INT32, {4});
  const uint32_t filter = b.addConstant(kFloat, {1, 1, 1, 1}, std::vector<float>{2});
  const uint32_t bias = b.addConstant(kFloat, {1}, std::vector<float>{0.5f});
  const uint32_t out = b.addOutput(kFloat, {1, 1, 2, 2});
  b.addOperation(OperationType::TRANSPOSE_CONV_2D,
                 {x, filter, bias, shape, b.addInt32(1), b.addInt32(1), b.addInt32(1), b.addInt32(0), b.addBool(true)},
                 {out});
  auto prepared = SimDevice::create(edgeNpuConfig())
                      ->prepareModel(b.build(), hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                                     std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  // One pool; every argument at an odd offset.
  auto pool = hal::createHeapMemory(64);
  ASSERT_TRUE(pool.ok());
  const std::vector<float> image = {1, 2, 3, 4};
  const std::vector<int32_t> outputShape = {1, 1, 2, 2};
  std::memcpy((*pool)->data() + 1, image.data(), 16);
  std::memcpy((*pool)->data() + 19, outputShape.data(), 16);
  hal::Request request;
  request.pools = {*pool};
  request.inputs = {{hal::Request::Argument::LifeTime::POOL, {nullptr, 0, 1, 16, 0}, {}},
                    {hal::Request::Argument::LifeTime::POOL, {nullptr, 0, 19, 16, 0}, {}}};
  request.outputs = {{hal::Request::Argument::LifeTime::POOL, {nullptr, 0, 37, 16, 0}, {}}};
  auto outcome = (*prepared)->execute(request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  std::vector<float> result(4);
  std::memcpy(result.data(), (*pool)->data() + 37, 16);
  EXPECT_THAT(result, ElementsAre(2.5f, 4.5f, 6.5f, 8.5f));
}

// Found by model_validation_fuzzer: BATCH_TO_SPACE_ND with a 65536 x 65536 block multiplied the
// block sizes in 32 bits, which wrapped to 0 and divided by it. Block arithmetic is 64-bit now.
TEST(SpaceBatchTest, AHugeBlockIsRefusedNotDividedByZero) {
  hal::ModelBuilder b;
  const uint32_t x = b.addInput(kFloat, {1, 1, 1, 1});
  const uint32_t block = b.addConstant(OperandType::TENSOR_INT32, {2}, std::vector<int32_t>{65536, 65536});
  const uint32_t out = b.addOutput(kFloat, {0, 0, 0, 0});
  b.addOperation(OperationType::BATCH_TO_SPACE_ND, {x, block}, {out});
  auto prepared = SimDevice::create(edgeNpuConfig())->prepareModel(
      b.build(), hal::ExecutionPreference::LOW_POWER, hal::Priority::LOW, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({1})}, {4});
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(outcome.ok());
  EXPECT_THAT(outcome.error().message, ::testing::HasSubstr("batch must divide by the block size"));
}

// Found by model_validation_fuzzer: DEPTH_TO_SPACE with block size 65536 squared it in 32 bits,
// which wrapped to 0 and divided by it.
TEST(SpaceBatchTest, AHugeDepthToSpaceBlockIsRefusedNotDividedByZero) {
  hal::ModelBuilder b;
  const uint32_t x = b.addInput(kFloat, {1, 1, 1, 4});
  const uint32_t out = b.addOutput(kFloat, {0, 0, 0, 0});
  b.addOperation(OperationType::DEPTH_TO_SPACE, {x, b.addInt32(65536)}, {out});
  auto prepared = SimDevice::create(edgeNpuConfig())->prepareModel(
      b.build(), hal::ExecutionPreference::LOW_POWER, hal::Priority::LOW, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2, 3, 4})}, {16});
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(outcome.ok());
  EXPECT_THAT(outcome.error().message, ::testing::HasSubstr("depth must divide by block size squared"));
}

// Found by model_validation_fuzzer: TRANSPOSE_CONV_2D (like GROUPED_CONV_2D) indexed its bias by
// output channel without checking its length, and read past a shorter one. A model that fixes
// both sizes is refused by the signature table; one that leaves the bias's size to the request is
// refused by the kernel.
TEST(TransposeConvTest, ABiasShorterThanTheOutputChannelsIsRefused) {
  auto model = [](std::vector<uint32_t> biasDimensions) {
    hal::ModelBuilder b;
    const uint32_t x = b.addInput(kFloat, {1, 2, 2, 1});
    const uint32_t filter = b.addConstant(kFloat, {2, 1, 1, 1}, std::vector<float>{1, 2});  // 2 output channels
    const uint32_t bias = b.addInput(kFloat, std::move(biasDimensions));
    const uint32_t out = b.addOutput(kFloat, {1, 2, 2, 2});
    b.addOperation(OperationType::TRANSPOSE_CONV_2D,
                   {x, filter, bias, b.addInt32(0), b.addInt32(0), b.addInt32(0), b.addInt32(0), b.addInt32(1),
                    b.addInt32(1), b.addInt32(0), b.addBool(false)},
                   {out});
    return b.build();
  };
  const auto device = SimDevice::create(edgeNpuConfig());
  auto declared = device->prepareModel(model({1}), hal::ExecutionPreference::LOW_POWER, hal::Priority::LOW,
                                       std::nullopt, {}, {}, {});
  ASSERT_FALSE(declared.ok());
  EXPECT_THAT(declared.error().message, ::testing::HasSubstr("TRANSPOSE_CONV_2D: input 2 (bias) has 1 entries"));

  auto prepared = device->prepareModel(model({0}), hal::ExecutionPreference::LOW_POWER, hal::Priority::LOW,
                                       std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2, 3, 4}), hal::toBytes<float>({0.5f})}, {32});
  io->request.inputs[1].dimensions = {1};
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(outcome.ok());
  EXPECT_THAT(outcome.error().message, ::testing::HasSubstr("must have one entry for each of the 2 output channels"));
}

// Found by the wire and model_validation fuzzers: strides and paddings near INT32_MAX overflowed
// the 32-bit arithmetic placing a window in the input (and TRANSPOSE_CONV_2D's implicit padding).
// A 3 x 3 input padded by INT32_MAX on every side, stride INT32_MAX, 1 x 1 window: a 3 x 3 output
// whose centre alone has its window inside the input, on pixel (0, 0).
TEST(WindowTest, StridesAndPaddingsNearInt32MaxPlaceWindowsExactly) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  const std::vector<uint8_t> input = hal::toBytes<float>({5, 1, 1, 1, 1, 1, 1, 1, 1});
  auto window = [&](hal::ModelBuilder& b, std::vector<uint32_t> operands) {
    for (int i = 0; i < 6; ++i) operands.push_back(b.addInt32(kMax));  // 4 paddings, 2 strides
    return operands;
  };
  // Convolutions of a 1 x 1 filter of 2 and a bias of 0.5: 10.5 at the centre, the bias elsewhere.
  // The filter as a model input runs the simulator's loop, as a constant XNNPACK's.
  for (const auto type : {OperationType::CONV_2D, OperationType::DEPTHWISE_CONV_2D, OperationType::GROUPED_CONV_2D}) {
    for (const bool constantFilter : {false, true}) {
      SCOPED_TRACE(hal::toString(type) + (constantFilter ? " (constant filter)" : ""));
      hal::ModelBuilder b;
      const uint32_t in = b.addInput(kFloat, {1, 3, 3, 1});
      const uint32_t filter = constantFilter ? b.addConstant(kFloat, {1, 1, 1, 1}, std::vector<float>{2})
                                             : b.addInput(kFloat, {1, 1, 1, 1});
      std::vector<uint32_t> operands = window(b, {in, filter, b.addConstant(kFloat, {1}, std::vector<float>{0.5f})});
      if (type == OperationType::DEPTHWISE_CONV_2D) operands.push_back(b.addInt32(1));   // multiplier
      if (type == OperationType::GROUPED_CONV_2D) operands.push_back(b.addInt32(1));     // groups
      operands.push_back(b.addInt32(0));                                                 // no activation
      if (type == OperationType::GROUPED_CONV_2D) operands.push_back(b.addBool(false));  // NHWC
      const uint32_t out = b.addOutput(kFloat, {1, 3, 3, 1});
      b.addOperation(type, operands, {out});
      std::vector<std::vector<uint8_t>> inputs = {input};
      if (!constantFilter) inputs.push_back(hal::toBytes<float>({2}));
      EXPECT_THAT(asFloats(run(b.build(), inputs, 36)),
                  ElementsAre(0.5f, 0.5f, 0.5f, 0.5f, 10.5f, 0.5f, 0.5f, 0.5f, 0.5f));
    }
  }
  // Pools with a 1 x 1 window: the centre is input pixel (0, 0).
  for (const auto type : {OperationType::AVERAGE_POOL_2D, OperationType::MAX_POOL_2D, OperationType::L2_POOL_2D}) {
    SCOPED_TRACE(hal::toString(type));
    hal::ModelBuilder b;
    const uint32_t in = b.addInput(kFloat, {1, 3, 3, 1});
    std::vector<uint32_t> operands = window(b, {in});
    for (const int32_t last : {1, 1, 0}) operands.push_back(b.addInt32(last));  // filter 1 x 1, no activation
    const uint32_t out = b.addOutput(kFloat, {1, 3, 3, 1});
    b.addOperation(type, operands, {out});
    EXPECT_EQ(asFloats(run(b.build(), {input}, 36)).at(4), 5.0f);
  }
  // TRANSPOSE_CONV_2D, SAME, stride INT32_MAX, 2 x 2 to 3 x 3: its implicit padding is near 2^30,
  // which puts every contribution outside the output; only the bias is left.
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(kFloat, {1, 2, 2, 1});
  const uint32_t out = b.addOutput(kFloat, {1, 3, 3, 1});
  b.addOperation(OperationType::TRANSPOSE_CONV_2D,
                 {in, b.addConstant(kFloat, {1, 1, 1, 1}, std::vector<float>{2}),
                  b.addConstant(kFloat, {1}, std::vector<float>{0.5f}),
                  b.addConstant(OperandType::TENSOR_INT32, {4}, std::vector<int32_t>{1, 3, 3, 1}),
                  b.addInt32(/*SAME*/ 1), b.addInt32(kMax), b.addInt32(kMax), b.addInt32(0), b.addBool(false)},
                 {out});
  EXPECT_THAT(asFloats(run(b.build(), {hal::toBytes<float>({1, 2, 3, 4})}, 36)), ::testing::Each(0.5f));
}

// Fuzz finding: quantized ADD with an output scale so small that the rescaling saturates at
// int32's limit then overflowed adding the output zero point. The sum is taken in 64 bits and
// clamps to the output's range. The simulator's own loops, not XNNPACK's. (MUL with such a scale
// is invalid: NNAPI requires its output scale to exceed the product of its input scales.)
TEST(Int32ArithmeticTest, QuantizedBinaryOpsSaturateWithAbsurdOutputScales) {
  NpuConfig npu = edgeNpuConfig();
  npu.set_reference_kernels(true);
  for (const bool broadcast : {true, false}) {
    for (const OperationType type : {OperationType::ADD, OperationType::MUL}) {
      hal::ModelBuilder b;
      const uint32_t x = b.addInput(kQuant, {2}, 1.0f, 0);
      const uint32_t y = b.addInput(kQuant, {broadcast ? 1u : 2u}, 1.0f, 0);
      const uint32_t out = b.addOutput(kQuant, {2}, 1e-20f, 128);
      b.addOperation(type, {x, y, b.addInt32(0)}, {out});
      auto prepared = SimDevice::create(npu)->prepareModel(b.build(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                                           hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
      if (type == OperationType::MUL) {
        ASSERT_FALSE(prepared.ok());
        EXPECT_THAT(prepared.error().message, ::testing::HasSubstr("MUL: output 0 scale"));
        continue;
      }
      ASSERT_TRUE(prepared.ok()) << prepared.error().message;
      auto io = hal::makeRequest({{255, 0}, std::vector<uint8_t>(broadcast ? 1 : 2, 3)}, {2});
      auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
      ASSERT_TRUE(outcome.ok()) << outcome.error().message;
      // A positive result saturates at 255; a zero one is the zero point (MUL of 0 by 3).
      const std::vector<uint8_t> got = hal::fromMemory<uint8_t>(io->outputs[0], 2);
      EXPECT_EQ(got[0], 255) << hal::toString(type) << (broadcast ? " broadcast" : "");
      EXPECT_EQ(got[1], type == OperationType::MUL ? 128 : 255) << hal::toString(type);
    }
  }
}

// A quantized convolution's products are each at most 255 * 255, and an output that sums more
// than int32 can hold of them (a legal shape: here 34,000 input channels, or 34,000 taps) sums in
// 64 bits. In 32 bits the sum overflowed (UBSan), and the answer was 0. The simulator's own loops,
// not XNNPACK's.
TEST(Int32ArithmeticTest, AQuantizedConvolutionOfManyProductsSumsExactly) {
  NpuConfig npu = edgeNpuConfig();
  npu.set_reference_kernels(true);
  constexpr uint32_t kProducts = 34000;
  for (const bool depthwise : {false, true}) {
    SCOPED_TRACE(depthwise ? "DEPTHWISE_CONV_2D" : "CONV_2D");
    hal::ModelBuilder b;
    const std::vector<uint32_t> shape =
        depthwise ? std::vector<uint32_t>{1, 1, kProducts, 1} : std::vector<uint32_t>{1, 1, 1, kProducts};
    const uint32_t in = b.addInput(kQuant, shape, 1.0f, 0);
    const uint32_t filter = b.addInput(kQuant, shape, 1.0f, 0);
    const uint32_t bias = b.addInput(OperandType::TENSOR_INT32, {1}, 1.0f, 0);
    const uint32_t out = b.addOutput(kQuant, {1, 1, 1, 1}, float(1 << 24), 0);
    std::vector<uint32_t> arguments = {in, filter, bias, b.addInt32(2), b.addInt32(1), b.addInt32(1)};
    if (depthwise) arguments.push_back(b.addInt32(1));  // depth multiplier
    arguments.push_back(b.addInt32(0));
    b.addOperation(depthwise ? OperationType::DEPTHWISE_CONV_2D : OperationType::CONV_2D, arguments, {out});
    auto prepared = SimDevice::create(npu)->prepareModel(b.build(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                                         hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    const std::vector<uint8_t> all255(kProducts, 255);
    auto io = hal::makeRequest({all255, all255, hal::toBytes<int32_t>({-(1 << 30)})}, {1});
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    // (34,000 * 255 * 255 - 2^30) / 2^24 = 67.8
    EXPECT_EQ(hal::fromMemory<uint8_t>(io->outputs[0], 1), std::vector<uint8_t>{68});
  }
}

// Fuzz finding (wire_fuzzer): QUANTIZED_16BIT_LSTM summed a gate's bias and products in 32 bits,
// and a bias near int32's limit (any value is a valid bias) overflowed. The sum is taken in 64
// bits and saturates before it is rescaled: a bias past the point where the gate saturates
// changes nothing.
TEST(Int32ArithmeticTest, A16BitLstmGateSaturatesRatherThanOverflowing) {
  constexpr OperandType kQuant16 = OperandType::TENSOR_QUANT16_SYMM;
  const float weightScale = 1.0f / 128;
  hal::ModelBuilder b;
  std::vector<uint32_t> inputs = {b.addInput(kQuant, {1, 1}, 1.0f / 128, 128)};
  for (int i = 0; i < 8; ++i) inputs.push_back(b.addInput(kQuant, {1, 1}, weightScale, 0));  // input, recurrent weights
  for (int i = 0; i < 4; ++i) inputs.push_back(b.addInput(OperandType::TENSOR_INT32, {1}, weightScale / 128, 0));
  inputs.push_back(b.addInput(kQuant16, {1, 1}, 1.0f / 2048, 0));  // previous cell state
  inputs.push_back(b.addInput(kQuant, {1, 1}, 1.0f / 128, 128));   // previous output
  const uint32_t cellOut = b.addOutput(kQuant16, {1, 1}, 1.0f / 2048, 0);
  const uint32_t out = b.addOutput(kQuant, {1, 1}, 1.0f / 128, 128);
  b.addOperation(OperationType::QUANTIZED_16BIT_LSTM, inputs, {cellOut, out});
  auto prepared = SimDevice::create(edgeNpuConfig())
                      ->prepareModel(b.build(), hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                                     std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  // Each gate sums its bias and 127 * 255 twice (the input and the previous output, both 255).
  auto runWithBias = [&](int32_t bias) {
    std::vector<std::vector<uint8_t>> values = {{255}};
    for (int i = 0; i < 8; ++i) values.push_back({255});
    for (int i = 0; i < 4; ++i) values.push_back(hal::toBytes<int32_t>({bias}));
    values.push_back(hal::toBytes<int16_t>({0}));
    values.push_back({255});
    auto io = hal::makeRequest(values, {2, 1});
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    EXPECT_TRUE(outcome.ok()) << outcome.error().message;
    return std::pair{hal::fromMemory<int16_t>(io->outputs[0], 1)[0], hal::fromMemory<uint8_t>(io->outputs[1], 1)[0]};
  };
  const int32_t max = std::numeric_limits<int32_t>::max();
  const auto saturated = runWithBias(max - 2 * 127 * 255);
  EXPECT_EQ(runWithBias(max), saturated);
  // Every gate as open as 16 bits take it: the cell state about 1 (2048 at scale 2^-11), the
  // output about tanh(1).
  EXPECT_NEAR(saturated.first, 2048, 2);
  EXPECT_NEAR((saturated.second - 128) / 128.0, std::tanh(1.0), 1.0 / 128);
}

}  // namespace
}  // namespace nnremote::sim
