// LoweredOperation on its own, with a fake kernel written (as the simulator's are) for float32, unsigned quantized and
// NHWC operands: what the kernel sees of float16, signed quantized and NCHW operations, what lands in the original
// outputs, which operations are left alone, and which omitted inputs are refused before any kernel runs.
#include "drivers/sim/operand_lowering.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "hal/float16.h"

namespace nnremote::sim {
namespace {

using hal::OperandType;
using hal::OperationType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr OperandType kFloat = OperandType::TENSOR_FLOAT32;
constexpr OperandType kHalf = OperandType::TENSOR_FLOAT16;
constexpr OperandType kSigned = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
constexpr OperandType kUnsigned = OperandType::TENSOR_QUANT8_ASYMM;

// binary16 bit patterns of the values the tests use.
constexpr uint16_t kHalfOne = 0x3C00, kHalfTwo = 0x4000, kHalfThree = 0x4200, kHalfFour = 0x4400;
constexpr uint16_t kHalfMinusTwo = 0xC000, kHalfHalf = 0x3800, kHalfOneAndHalf = 0x3E00;

// What the fake kernel did and what its execute writes: a test scripts output 0's bytes, so it knows exactly what
// the kernel produced and can check what reaches the original output.
struct Script {
  int validations = 0;
  std::vector<uint8_t> output;
};
Script& script() {
  static Script* const script = new Script;
  return *script;
}

bool kernelHandles(OperandType type) { return type != kHalf && type != OperandType::FLOAT16 && type != kSigned; }

// Refuses the operand types the lowering exists to hide, so a validate that passes proves the kernel never saw them.
Status validateNative(const OperationContext& context) {
  ++script().validations;
  for (size_t i = 0; i < context.inputCount(); ++i) {
    if (!kernelHandles(context.input(i).type)) return hal::invalidArgument() << "kernel saw input " << i;
  }
  for (size_t i = 0; i < context.outputCount(); ++i) {
    if (!kernelHandles(context.output(i).type)) return hal::invalidArgument() << "kernel saw output " << i;
  }
  return {};
}

Status prepareSameShape(OperationContext& context) {
  context.output(0).dimensions = context.input(0).dimensions;
  return {};
}

// Writes the scripted bytes; a buffer of another size means the output was allocated for the wrong type.
Status executeScripted(OperationContext& context) {
  Tensor& out = context.output(0);
  if (out.length != script().output.size()) {
    return hal::invalidArgument() << "output 0 has " << out.length << " bytes, the script " << script().output.size();
  }
  std::memcpy(out.data, script().output.data(), out.length);
  return {};
}

OperationWork noWork(const OperationContext&) { return {}; }
int layoutAtInput1(const OperationContext&) { return 1; }
int layoutAtInput5(const OperationContext&) { return 5; }
int shapeAtInput2(const OperationContext&) { return 2; }

OperationKernel fakeKernel() { return {&validateNative, &prepareSameShape, &executeScripted, &noWork}; }

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// A tensor over `values`, which the test keeps alive.
template <typename T>
Tensor over(OperandType type, std::vector<uint32_t> dimensions, std::vector<T>& values) {
  Tensor t;
  t.type = type;
  t.dimensions = std::move(dimensions);
  t.data = reinterpret_cast<uint8_t*>(values.data());
  t.length = values.size() * sizeof(T);
  t.elementBytes = sizeof(T);
  return t;
}

Tensor unknown(OperandType type, std::vector<uint32_t> dimensions) {
  Tensor t;
  t.type = type;
  t.dimensions = std::move(dimensions);
  return t;
}

template <typename T>
std::vector<T> valuesOf(const Tensor& t) {
  std::vector<T> values(t.elementCount());
  std::memcpy(values.data(), t.data, values.size() * sizeof(T));
  return values;
}

class OperandLoweringTest : public ::testing::Test {
 protected:
  void SetUp() override { script() = Script(); }
};

TEST_F(OperandLoweringTest, NativeOperandsRunOnTheOriginalContext) {
  std::vector<float> in = {-1, 2}, outValues(2);
  Tensor a = over(kFloat, {2}, in), out = over(kFloat, {2}, outValues);
  OperationContext original(OperationType::RELU, {&a}, {&out});
  const OperationKernel kernel = fakeKernel();
  LoweredOperation lowered(kernel, original);
  EXPECT_EQ(&lowered.context(), &original);

  script().output = bytesOf<float>({7, 8});
  ASSERT_TRUE(lowered.execute().ok());
  EXPECT_THAT(outValues, ElementsAre(7, 8));
}

TEST_F(OperandLoweringTest, Float16InputsReachTheKernelAsFloat32) {
  std::vector<uint16_t> in = {kHalfOne, kHalfMinusTwo, kHalfHalf}, scale = {kHalfOneAndHalf}, outValues(3);
  Tensor a = over(kHalf, {3}, in), s = over(OperandType::FLOAT16, {}, scale), out = over(kHalf, {3}, outValues);
  OperationContext original(OperationType::MUL, {&a, &s}, {&out});
  OperationState state;
  original.setState(&state);
  const OperationKernel kernel = fakeKernel();
  LoweredOperation lowered(kernel, original);

  const OperationContext& seen = lowered.context();
  ASSERT_NE(&seen, &original);
  EXPECT_EQ(seen.input(0).type, kFloat);
  EXPECT_EQ(seen.input(0).length, 3 * sizeof(float));
  EXPECT_THAT(valuesOf<float>(seen.input(0)), ElementsAre(1.0f, -2.0f, 0.5f));
  EXPECT_EQ(seen.input(1).type, OperandType::FLOAT32);  // a scalar stays a scalar
  EXPECT_EQ(seen.scalar<float>(1), 1.5f);
  EXPECT_EQ(seen.output(0).type, kFloat);
  // Kernels keep packed weights in the operation's state: the lowered operation must share it.
  EXPECT_EQ(seen.state(), &state);
  EXPECT_TRUE(lowered.validate().ok());
  EXPECT_EQ(script().validations, 1);
  // The original operands may be a model's constants: they are converted into copies, never in place.
  EXPECT_EQ(a.type, kHalf);
  EXPECT_THAT(in, ElementsAre(kHalfOne, kHalfMinusTwo, kHalfHalf));
}

TEST_F(OperandLoweringTest, Float32ResultsAreRoundedBackToFloat16TiesToEven) {
  std::vector<uint16_t> in = {kHalfOne, kHalfOne, kHalfOne, kHalfOne}, outValues(4, 0xFFFF);
  Tensor a = over(kHalf, {4}, in), out = over(kHalf, {}, outValues);
  OperationContext original(OperationType::RELU, {&a}, {&out});
  const OperationKernel kernel = fakeKernel();
  LoweredOperation lowered(kernel, original);

  ASSERT_TRUE(lowered.prepare().ok());
  EXPECT_THAT(out.dimensions, ElementsAre(4));  // the kernel's shape reaches the original output
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10 (odd mantissa): even wins, 1. 1 + 3 * 2^-11 lies halfway between
  // 1 + 2^-10 and 1 + 2^-9: even wins, 1 + 2^-9. executeScripted also checks the kernel got a float32-sized buffer.
  script().output = bytesOf<float>({1.5f, -0.25f, 1.0f + 0x1p-11f, 1.0f + 0x3p-11f});
  const Status status = lowered.execute();
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_THAT(outValues, ElementsAre(kHalfOneAndHalf, 0xB400, kHalfOne, 0x3C02));
}

TEST_F(OperandLoweringTest, SignedQuantizedOperandsRunAsUnsignedWithTheZeroPointMovedBy128) {
  std::vector<int8_t> in = {-128, -1, 0, 127}, outValues(4);
  Tensor a = over(kSigned, {4}, in), out = over(kSigned, {4}, outValues);
  a.scale = 0.5f;
  a.zeroPoint = -5;
  out.scale = 0.25f;
  out.zeroPoint = 3;
  OperationContext original(OperationType::RELU, {&a}, {&out});
  const OperationKernel kernel = fakeKernel();
  LoweredOperation lowered(kernel, original);

  const OperationContext& seen = lowered.context();
  EXPECT_EQ(seen.input(0).type, kUnsigned);
  EXPECT_EQ(seen.input(0).zeroPoint, 123);
  EXPECT_EQ(seen.input(0).scale, 0.5f);
  EXPECT_THAT(valuesOf<uint8_t>(seen.input(0)), ElementsAre(0, 127, 128, 255));  // same real values
  EXPECT_EQ(seen.output(0).type, kUnsigned);
  EXPECT_EQ(seen.output(0).zeroPoint, 131);
  EXPECT_TRUE(lowered.validate().ok());

  ASSERT_TRUE(lowered.prepare().ok());
  script().output = {0, 1, 128, 255};
  ASSERT_TRUE(lowered.execute().ok());
  EXPECT_THAT(outValues, ElementsAre(-128, -127, 0, 127));
  EXPECT_EQ(out.zeroPoint, 3);
  EXPECT_THAT(in, ElementsAre(-128, -1, 0, 127));
}

TEST_F(OperandLoweringTest, OperationsWhoseSignedFormDiffersKeepTheirSignedOperands) {
  std::vector<int8_t> in = {-1, 1}, outValues(2);
  Tensor a = over(kSigned, {2}, in), out = over(kSigned, {2}, outValues);
  const OperationKernel kernel = fakeKernel();
  for (OperationType type :
       {OperationType::CAST, OperationType::HASHTABLE_LOOKUP, OperationType::LSH_PROJECTION, OperationType::PAD_V2,
        OperationType::QUANTIZED_16BIT_LSTM, OperationType::QUANTIZED_LSTM}) {
    SCOPED_TRACE(hal::toString(type));
    OperationContext original(type, {&a}, {&out});
    LoweredOperation lowered(kernel, original);
    EXPECT_EQ(&lowered.context(), &original);
  }
  // PAD pads with the zero point, which moves with the values, so it is shifted (PAD_V2's pad value, an INT32 in
  // the tensor's own units, would not move).
  OperationContext pad(OperationType::PAD, {&a}, {&out});
  LoweredOperation lowered(kernel, pad);
  EXPECT_EQ(lowered.context().input(0).type, kUnsigned);
}

TEST_F(OperandLoweringTest, LshProjectionKeepsItsFloat16BytesForHashing) {
  std::vector<uint16_t> in = {kHalfOne, kHalfTwo};
  std::vector<int32_t> outValues(2);
  Tensor a = over(kHalf, {2}, in), out = over(OperandType::TENSOR_INT32, {2}, outValues);
  const OperationKernel kernel = fakeKernel();
  OperationContext lsh(OperationType::LSH_PROJECTION, {&a}, {&out});
  LoweredOperation loweredLsh(kernel, lsh);
  EXPECT_EQ(&loweredLsh.context(), &lsh);
  // A float16 CAST is computed in float32, though: only the hash needs the raw bytes.
  OperationContext cast(OperationType::CAST, {&a}, {&out});
  LoweredOperation loweredCast(kernel, cast);
  EXPECT_EQ(loweredCast.context().input(0).type, kFloat);
  EXPECT_THAT(valuesOf<float>(loweredCast.context().input(0)), ElementsAre(1.0f, 2.0f));
}

TEST_F(OperandLoweringTest, NchwFeatureMapIsTransposedToNhwcAndBack) {
  // N=1, C=2, H=1, W=3: channel 0 holds 0 1 2, channel 1 holds 3 4 5.
  std::vector<float> in = {0, 1, 2, 3, 4, 5}, outValues(6, -1);
  std::vector<uint8_t> nchw = {1};
  Tensor a = over(kFloat, {1, 2, 1, 3}, in), flag = over(OperandType::BOOL, {}, nchw);
  Tensor out = over(kFloat, {}, outValues);
  OperationContext original(OperationType::AVERAGE_POOL_2D, {&a, &flag}, {&out});
  OperationKernel kernel = fakeKernel();
  kernel.layoutOperand = &layoutAtInput1;
  LoweredOperation lowered(kernel, original);

  const OperationContext& seen = lowered.context();
  EXPECT_THAT(seen.input(0).dimensions, ElementsAre(1, 1, 3, 2));
  EXPECT_THAT(valuesOf<float>(seen.input(0)), ElementsAre(0, 3, 1, 4, 2, 5));  // pixel by pixel, channels inside
  // The kernel is told NHWC, without touching the model's flag.
  EXPECT_EQ(seen.scalar<uint8_t>(1), 0);
  EXPECT_EQ(nchw[0], 1);

  ASSERT_TRUE(lowered.prepare().ok());
  EXPECT_THAT(out.dimensions, ElementsAre(1, 2, 1, 3));
  // The kernel writes pixel-major (w0c0 w0c1 w1c0 ...): back in NCHW, each channel's pixels are together again.
  script().output = bytesOf<float>({0, 1, 2, 3, 4, 5});
  ASSERT_TRUE(lowered.execute().ok());
  EXPECT_THAT(outValues, ElementsAre(0, 2, 4, 1, 3, 5));
}

TEST_F(OperandLoweringTest, NchwShapeOperandIsPermutedWithTheFeatureMap) {
  std::vector<float> in(24);
  std::vector<uint8_t> nchw = {1};
  std::vector<int32_t> shape = {1, 2, 3, 4};  // N C H W, as TRANSPOSE_CONV_2D's output shape
  Tensor a = over(kFloat, {1, 2, 3, 4}, in), flag = over(OperandType::BOOL, {}, nchw);
  Tensor s = over(OperandType::TENSOR_INT32, {4}, shape), out = unknown(kFloat, {});
  OperationContext original(OperationType::TRANSPOSE_CONV_2D, {&a, &flag, &s}, {&out});
  OperationKernel kernel = fakeKernel();
  kernel.layoutOperand = &layoutAtInput1;
  kernel.layoutShapeOperand = &shapeAtInput2;
  LoweredOperation lowered(kernel, original);

  EXPECT_THAT(valuesOf<int32_t>(lowered.context().input(2)), ElementsAre(1, 3, 4, 2));
  EXPECT_THAT(shape, ElementsAre(1, 2, 3, 4));
}

TEST_F(OperandLoweringTest, LayoutIsLoweredOnlyForAKnownTrueFlagAndA4dInput) {
  std::vector<float> in4d(6), in3d(6);
  std::vector<uint8_t> nhwc = {0}, nchw = {1};
  Tensor a4d = over(kFloat, {1, 2, 1, 3}, in4d), a3d = over(kFloat, {2, 1, 3}, in3d);
  Tensor falseFlag = over(OperandType::BOOL, {}, nhwc), trueFlag = over(OperandType::BOOL, {}, nchw);
  Tensor unknownFlag = unknown(OperandType::BOOL, {}), out = unknown(kFloat, {});
  OperationKernel kernel = fakeKernel();
  kernel.layoutOperand = &layoutAtInput1;
  struct Case {
    const char* what;
    Tensor* input;
    Tensor* flag;
  };
  for (const Case& c : {Case{"NHWC flag", &a4d, &falseFlag}, Case{"flag known only at execution", &a4d, &unknownFlag},
                        Case{"3-D input", &a3d, &trueFlag}}) {
    SCOPED_TRACE(c.what);
    OperationContext original(OperationType::AVERAGE_POOL_2D, {c.input, c.flag}, {&out});
    LoweredOperation lowered(kernel, original);
    EXPECT_EQ(&lowered.context(), &original);
  }
  // A layout index past the inputs (an implicit form without the flag) is no flag at all.
  kernel.layoutOperand = &layoutAtInput5;
  OperationContext original(OperationType::AVERAGE_POOL_2D, {&a4d, &trueFlag}, {&out});
  LoweredOperation lowered(kernel, original);
  EXPECT_EQ(&lowered.context(), &original);
}

TEST_F(OperandLoweringTest, Float16NchwOperandsAreTransposedAsFloat32) {
  // N=1, C=2, H=1, W=2: a transposition by 2-byte elements after widening to 4 would scramble the values.
  std::vector<uint16_t> in = {kHalfOne, kHalfTwo, kHalfThree, kHalfFour}, outValues(4);
  std::vector<uint8_t> nchw = {1};
  Tensor a = over(kHalf, {1, 2, 1, 2}, in), flag = over(OperandType::BOOL, {}, nchw);
  Tensor out = over(kHalf, {}, outValues);
  OperationContext original(OperationType::MAX_POOL_2D, {&a, &flag}, {&out});
  OperationKernel kernel = fakeKernel();
  kernel.layoutOperand = &layoutAtInput1;
  LoweredOperation lowered(kernel, original);

  EXPECT_EQ(lowered.context().input(0).type, kFloat);
  EXPECT_THAT(valuesOf<float>(lowered.context().input(0)), ElementsAre(1, 3, 2, 4));

  ASSERT_TRUE(lowered.prepare().ok());
  script().output = bytesOf<float>({1, 2, 3, 4});
  ASSERT_TRUE(lowered.execute().ok());
  EXPECT_THAT(outValues, ElementsAre(kHalfOne, kHalfThree, kHalfTwo, kHalfFour));
}

TEST_F(OperandLoweringTest, AtValidationOnlyValuesAlreadyKnownAreConverted) {
  // Validation sees constants only: a non-constant input gets the kernel's type but no data to convert yet.
  std::vector<uint16_t> weights = {kHalfTwo};
  Tensor activations = unknown(kHalf, {1}), constant = over(kHalf, {1}, weights), out = unknown(kHalf, {1});
  constant.isConstant = true;
  OperationContext original(OperationType::MUL, {&activations, &constant}, {&out});
  const OperationKernel kernel = fakeKernel();
  LoweredOperation lowered(kernel, original);

  const OperationContext& seen = lowered.context();
  EXPECT_EQ(seen.input(0).type, kFloat);
  EXPECT_EQ(seen.input(0).data, nullptr);
  EXPECT_FALSE(seen.hasValue(0));
  EXPECT_EQ(seen.input(1).type, kFloat);
  ASSERT_TRUE(seen.hasValue(1));
  EXPECT_EQ(seen.scalar<float>(1), 2.0f);
  const Status status = lowered.validate();
  EXPECT_TRUE(status.ok()) << status.error().message;
}

TEST_F(OperandLoweringTest, AnOmittedTensorInputIsRefusedUnlessTheKernelTakesOptionalOnes) {
  std::vector<float> in = {1};
  Tensor a = over(kFloat, {1}, in), omitted = unknown(kFloat, {1}), out = unknown(kFloat, {1});
  omitted.isOmitted = true;
  OperationKernel kernel = fakeKernel();
  {
    OperationContext original(OperationType::ADD, {&a, &omitted}, {&out});
    const Status status = LoweredOperation(kernel, original).validate();
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.code(), hal::ErrorStatus::INVALID_ARGUMENT);
    EXPECT_THAT(status.error().message, HasSubstr("ADD input 1 is a tensor with no value (omitted)"));
    EXPECT_EQ(script().validations, 0);  // refused before the kernel could read the missing data
  }
  kernel.takesOmittedTensors = true;
  {
    OperationContext original(OperationType::TRANSPOSE, {&a, &omitted}, {&out});
    EXPECT_TRUE(LoweredOperation(kernel, original).validate().ok());
    EXPECT_EQ(script().validations, 1);
  }
  // The first input is the data itself: no operation can do without it.
  {
    OperationContext original(OperationType::TRANSPOSE, {&omitted, &a}, {&out});
    const Status status = LoweredOperation(kernel, original).validate();
    ASSERT_FALSE(status.ok());
    EXPECT_THAT(status.error().message, HasSubstr("TRANSPOSE input 0 is a tensor with no value"));
    EXPECT_EQ(script().validations, 1);
  }
}

}  // namespace
}  // namespace nnremote::sim
