// Invalid operation signatures that the server used to crash on or accept (issue: operation
// validation once, as Android does it). Each is refused by validateModel with INVALID_ARGUMENT
// and a message naming the operation, the operand and the rule; the valid forms next to them pass.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "hal/model_builder.h"
#include "hal/validation.h"

namespace nnremote::hal {
namespace {

using ::testing::HasSubstr;
using T = OperandType;

void expectRefused(const Model& model, const std::string& text) {
  const Status status = validateModel(model);
  ASSERT_FALSE(status.ok()) << "accepted; expected: " << text;
  EXPECT_EQ(status.error().code, ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(status.error().message, HasSubstr(text));
}

void expectValid(const Model& model) {
  const Status status = validateModel(model);
  EXPECT_TRUE(status.ok()) << status.error().message;
}

// A 1x3x3x1 float CONV_2D (or DEPTHWISE_CONV_2D) with implicit padding and `extra` further
// inputs, each made by `extraInput`.
Model conv(OperationType type, const std::vector<std::function<uint32_t(ModelBuilder&)>>& extra) {
  ModelBuilder b;
  const uint32_t in = b.addInput(T::TENSOR_FLOAT32, {1, 3, 3, 1});
  const uint32_t filter = b.addConstant(T::TENSOR_FLOAT32, {1, 2, 2, 1}, std::vector<float>{1, 1, 1, 1});
  const uint32_t bias = b.addConstant(T::TENSOR_FLOAT32, {1}, std::vector<float>{0});
  std::vector<uint32_t> inputs = {in, filter, bias, b.addInt32(1), b.addInt32(1), b.addInt32(1)};
  if (type == OperationType::DEPTHWISE_CONV_2D) inputs.push_back(b.addInt32(1));  // depth multiplier
  inputs.push_back(b.addInt32(0));                                                 // activation
  for (const auto& make : extra) inputs.push_back(make(b));
  b.addOperation(type, inputs, {b.addOutput(T::TENSOR_FLOAT32, {1, 3, 3, 1})});
  return b.build();
}

uint32_t int32Input(ModelBuilder& b) { return b.addInt32(1); }
uint32_t boolInput(ModelBuilder& b) { return b.addBool(false); }

TEST(OperationValidationTest, ConvolutionsWithAnInt32WhereTheLayoutFlagGoesAreRefusedNotCrashed) {
  // These crashed npu_emulator: 8 (DEPTHWISE: 9) inputs were taken for explicit padding.
  expectRefused(conv(OperationType::CONV_2D, {int32Input}), "main.operations[0] CONV_2D: input 7");
  expectRefused(conv(OperationType::DEPTHWISE_CONV_2D, {int32Input}), "main.operations[0] DEPTHWISE_CONV_2D: input 8");
  expectValid(conv(OperationType::CONV_2D, {}));
  expectValid(conv(OperationType::CONV_2D, {boolInput}));
  expectValid(conv(OperationType::DEPTHWISE_CONV_2D, {boolInput}));
  expectValid(conv(OperationType::CONV_2D, {boolInput, int32Input, int32Input}));  // with dilation
}

TEST(OperationValidationTest, AnExtraTrailingInputIsRefused) {
  expectRefused(conv(OperationType::CONV_2D, {boolInput, int32Input, int32Input, int32Input}), "CONV_2D");
  expectRefused(conv(OperationType::DEPTHWISE_CONV_2D, {boolInput, int32Input, int32Input, int32Input}),
                "DEPTHWISE_CONV_2D");
}

TEST(OperationValidationTest, ATensorInt32ZeroPointOtherThanZeroIsRefused) {
  ModelBuilder b;
  const uint32_t in = b.addInput(T::TENSOR_INT32, {2}, 0.0f, 3);
  b.addOperation(OperationType::ABS, {in}, {b.addOutput(T::TENSOR_INT32, {2})});
  expectRefused(b.build(), "main.operands[0].zeroPoint = 3");
}

// A one-input operation whose output has another type than its input.
Model unary(OperationType type, T in, T out, std::vector<uint32_t> dims = {1, 2}) {
  ModelBuilder b;
  const uint32_t x = b.addInput(in, dims);
  b.addOperation(type, {x}, {b.addOutput(out, dims)});
  return b.build();
}

TEST(OperationValidationTest, AnOutputTypeDifferentFromTheInputsIsRefused) {
  for (OperationType type : {OperationType::EXP, OperationType::LOG, OperationType::RSQRT}) {
    expectRefused(unary(type, T::TENSOR_FLOAT32, T::TENSOR_FLOAT16), "output 0");
    expectValid(unary(type, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32));
  }
  expectRefused(unary(OperationType::L2_NORMALIZATION, T::TENSOR_FLOAT32, T::TENSOR_FLOAT16), "L2_NORMALIZATION");
}

TEST(OperationValidationTest, AComparisonOfSignedWithUnsignedQuant8IsRefused) {
  ModelBuilder b;
  const uint32_t x = b.addInput(T::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 128);
  const uint32_t y = b.addInput(T::TENSOR_QUANT8_ASYMM_SIGNED, {2}, 0.5f, 0);
  b.addOperation(OperationType::GREATER, {x, y}, {b.addOutput(T::TENSOR_BOOL8, {2})});
  expectRefused(b.build(), "main.operations[0] GREATER: input 1");
}

TEST(OperationValidationTest, SqueezeAndTransposeTakeTwoInputsAndAnOmittedAxisIsATensor) {
  auto squeeze = [](bool withAxes, T omittedType) {
    ModelBuilder b;
    const uint32_t x = b.addInput(T::TENSOR_FLOAT32, {1, 2});
    std::vector<uint32_t> inputs = {x};
    if (withAxes) inputs.push_back(b.addNoValue(omittedType));
    b.addOperation(OperationType::SQUEEZE, inputs, {b.addOutput(T::TENSOR_FLOAT32, {2})});
    return b.build();
  };
  expectValid(squeeze(true, T::TENSOR_INT32));
  expectRefused(squeeze(true, T::INT32), "main.operations[0] SQUEEZE: input 1");
  expectRefused(squeeze(false, T::TENSOR_INT32), "SQUEEZE: takes 2 inputs, got 1");
  ModelBuilder b;
  const uint32_t x = b.addInput(T::TENSOR_FLOAT32, {1, 2});
  b.addOperation(OperationType::TRANSPOSE, {x}, {b.addOutput(T::TENSOR_FLOAT32, {2, 1})});
  expectRefused(b.build(), "TRANSPOSE: takes 2 inputs, got 1");
}

TEST(OperationValidationTest, ResizeNearestNeighborWithThreeInputsIsRefused) {
  ModelBuilder b;
  const uint32_t x = b.addInput(T::TENSOR_FLOAT32, {1, 2, 2, 1});
  b.addOperation(OperationType::RESIZE_NEAREST_NEIGHBOR, {x, b.addInt32(4), b.addInt32(4)},
                 {b.addOutput(T::TENSOR_FLOAT32, {1, 4, 4, 1})});
  expectRefused(b.build(), "RESIZE_NEAREST_NEIGHBOR: takes");
}

TEST(OperationValidationTest, AConvolutionFilterOfAnotherTypeIsRefused) {
  ModelBuilder b;
  const uint32_t in = b.addInput(T::TENSOR_FLOAT32, {1, 3, 3, 1});
  const uint32_t filter = b.addConstant(T::TENSOR_INT32, {1, 2, 2, 1}, std::vector<int32_t>{1, 1, 1, 1});
  const uint32_t bias = b.addConstant(T::TENSOR_FLOAT32, {1}, std::vector<float>{0});
  b.addOperation(OperationType::CONV_2D, {in, filter, bias, b.addInt32(1), b.addInt32(1), b.addInt32(1), b.addInt32(0)},
                 {b.addOutput(T::TENSOR_FLOAT32, {1, 3, 3, 1})});
  expectRefused(b.build(), "CONV_2D: input 1");
}

TEST(OperationValidationTest, TheFeatureLevelOfAModelIsItsNewestForm) {
  EXPECT_EQ(minimumFeatureLevel(conv(OperationType::CONV_2D, {})), Version::FEATURE_LEVEL_1);
  EXPECT_EQ(minimumFeatureLevel(conv(OperationType::CONV_2D, {boolInput})), Version::FEATURE_LEVEL_3);
  EXPECT_EQ(minimumFeatureLevel(unary(OperationType::EXP, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)),
            Version::FEATURE_LEVEL_3);
  const Status older = validateModelForFeatureLevel(conv(OperationType::CONV_2D, {boolInput}),
                                                    Version::FEATURE_LEVEL_1, "acme-old");
  ASSERT_FALSE(older.ok());
  EXPECT_THAT(older.error().message, HasSubstr("main.operations[0] CONV_2D in this form needs FEATURE_LEVEL_3"));
  EXPECT_THAT(older.error().message, HasSubstr("acme-old is FEATURE_LEVEL_1"));
  EXPECT_TRUE(validateModelForFeatureLevel(conv(OperationType::CONV_2D, {}), Version::FEATURE_LEVEL_1, "acme-old").ok());
}

}  // namespace
}  // namespace nnremote::hal
