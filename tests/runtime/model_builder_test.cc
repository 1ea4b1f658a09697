// runtime::ModelBuilder: the NDK's ANeuralNetworksModel_* rules and result codes, and the
// hal::Model a finished model becomes.
#include "runtime/model_builder.h"

#include <android/NeuralNetworksOEM.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "hal/memory.h"
#include "hal/operand_types.h"

namespace nnremote::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using hal::Operand;
using hal::OperandType;
using hal::OperationType;
using LifeTime = hal::Operand::LifeTime;

// Adds an operand; dimensions stay alive only for the call, as the NDK allows.
int addOperand(ModelBuilder& b, int32_t type, std::vector<uint32_t> dimensions = {}, float scale = 0.0f,
               int32_t zeroPoint = 0) {
  const ANeuralNetworksOperandType operandType{type, static_cast<uint32_t>(dimensions.size()),
                                               dimensions.empty() ? nullptr : dimensions.data(), scale, zeroPoint};
  return b.addOperand(&operandType);
}

// Operands are numbered in the order added; the builders below count them themselves.
struct Counter {
  ModelBuilder& b;
  uint32_t count = 0;
  uint32_t add(int32_t type, std::vector<uint32_t> dimensions = {}, float scale = 0.0f, int32_t zeroPoint = 0) {
    const int code = addOperand(b, type, std::move(dimensions), scale, zeroPoint);
    EXPECT_EQ(code, ANEURALNETWORKS_NO_ERROR) << b.lastError();
    return count++;
  }
};

int addOperation(ModelBuilder& b, int32_t type, const std::vector<uint32_t>& inputs,
                 const std::vector<uint32_t>& outputs) {
  return b.addOperation(type, static_cast<uint32_t>(inputs.size()), inputs.data(),
                        static_cast<uint32_t>(outputs.size()), outputs.data());
}

int identify(ModelBuilder& b, const std::vector<uint32_t>& inputs, const std::vector<uint32_t>& outputs) {
  return b.identifyInputsAndOutputs(static_cast<uint32_t>(inputs.size()), inputs.data(),
                                    static_cast<uint32_t>(outputs.size()), outputs.data());
}

int setInt32(ModelBuilder& b, uint32_t index, int32_t value) {
  return b.setOperandValue(static_cast<int32_t>(index), &value, sizeof(value));
}

// out = a + b over float32 [2]: operands a, b, activation (constant 0), out.
void buildAdd(ModelBuilder& b, std::vector<uint32_t> dimensions = {2}) {
  Counter c{b};
  const uint32_t a = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, dimensions);
  const uint32_t x = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, dimensions);
  const uint32_t act = c.add(ANEURALNETWORKS_INT32);
  const uint32_t out = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, dimensions);
  ASSERT_EQ(setInt32(b, act, 0), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(addOperation(b, ANEURALNETWORKS_ADD, {a, x, act}, {out}), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  ASSERT_EQ(identify(b, {a, x}, {out}), ANEURALNETWORKS_NO_ERROR) << b.lastError();
}

void expectRefused(const ModelBuilder& b, int code, int expected, const std::string& text) {
  EXPECT_EQ(code, expected) << "expected a refusal mentioning: " << text;
  EXPECT_THAT(b.lastError(), HasSubstr(text));
}

TEST(ModelBuilderTest, AddModelBecomesTheExpectedHalModel) {
  ModelBuilder b;
  buildAdd(b);
  EXPECT_FALSE(b.isFinished());
  EXPECT_FALSE(b.model().ok());
  ASSERT_EQ(b.finish(), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  EXPECT_TRUE(b.isFinished());

  hal::Model expected;
  const Operand tensor{OperandType::TENSOR_FLOAT32, {2}, 0.0f, 0, LifeTime::SUBGRAPH_INPUT, {}, {}};
  Operand activation{OperandType::INT32, {}, 0.0f, 0, LifeTime::CONSTANT_COPY, {}, {}};
  activation.location.length = 4;
  Operand out = tensor;
  out.lifetime = LifeTime::SUBGRAPH_OUTPUT;
  expected.main.operands = {tensor, tensor, activation, out};
  expected.main.operations = {{OperationType::ADD, {0, 1, 2}, {3}}};
  expected.main.inputIndexes = {0, 1};
  expected.main.outputIndexes = {3};
  expected.operandValues = {0, 0, 0, 0};

  const hal::Result<hal::Model> model = b.model();
  ASSERT_TRUE(model.ok()) << model.error().message;
  EXPECT_EQ(model->main, expected.main);
  EXPECT_TRUE(model->referenced.empty());
  EXPECT_EQ(model->operandValues, expected.operandValues);
  EXPECT_TRUE(model->pools.empty());
  EXPECT_FALSE(model->relaxComputationFloat32toFloat16);
  EXPECT_TRUE(model->extensionNameToPrefix.empty());
  EXPECT_THAT(b.operationOrder(), ElementsAre(0u));
}

TEST(ModelBuilderTest, NothingChangesAfterFinish) {
  ModelBuilder b;
  buildAdd(b);
  ASSERT_EQ(b.finish(), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  ModelBuilder other;
  buildAdd(other);
  ASSERT_EQ(other.finish(), ANEURALNETWORKS_NO_ERROR);
  auto memory = hal::createHeapMemory(16);
  ASSERT_TRUE(memory.ok());
  const int32_t value = 1;
  const float scale = 1.0f;
  const ANeuralNetworksSymmPerChannelQuantParams channelQuant{0, 1, &scale};
  const uint32_t inputs[] = {0, 1, 2};
  const uint32_t outputs[] = {3};

  expectRefused(b, addOperand(b, ANEURALNETWORKS_INT32), ANEURALNETWORKS_BAD_STATE, "finished");
  expectRefused(b, b.setOperandValue(2, &value, 4), ANEURALNETWORKS_BAD_STATE, "finished");
  expectRefused(b, b.setOperandValueFromMemory(0, *memory, 0, 8), ANEURALNETWORKS_BAD_STATE, "finished");
  expectRefused(b, b.setOperandValueFromModel(0, &other), ANEURALNETWORKS_BAD_STATE, "finished");
  expectRefused(b, b.setOperandSymmPerChannelQuantParams(0, &channelQuant), ANEURALNETWORKS_BAD_STATE, "finished");
  expectRefused(b, b.setOperandExtensionData(0, &value, 4), ANEURALNETWORKS_BAD_STATE, "finished");
  expectRefused(b, b.addOperation(ANEURALNETWORKS_ADD, 3, inputs, 1, outputs), ANEURALNETWORKS_BAD_STATE, "finished");
  expectRefused(b, b.identifyInputsAndOutputs(0, nullptr, 0, nullptr), ANEURALNETWORKS_BAD_STATE, "finished");
  expectRefused(b, b.relaxComputationFloat32toFloat16(true), ANEURALNETWORKS_BAD_STATE, "finished");
  expectRefused(b, b.finish(), ANEURALNETWORKS_BAD_STATE, "already finished");
  EXPECT_TRUE(b.isFinished());

  // A query, not a change: AOSP answers it whatever the model's state.
  int32_t type = 0;
  EXPECT_EQ(b.getExtensionOperandType("com.example.after_finish", 1, &type), ANEURALNETWORKS_NO_ERROR);
}

TEST(ModelBuilderTest, OperandIndexesOutOfRange) {
  ModelBuilder b;
  Counter c{b};
  const uint32_t t = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  ModelBuilder finished;
  buildAdd(finished);
  ASSERT_EQ(finished.finish(), ANEURALNETWORKS_NO_ERROR);
  auto memory = hal::createHeapMemory(16);
  ASSERT_TRUE(memory.ok());
  const int32_t value = 0;
  const float scale = 1.0f;
  const ANeuralNetworksSymmPerChannelQuantParams channelQuant{0, 1, &scale};

  for (const int32_t index : {-1, 1, 1000}) {
    SCOPED_TRACE(index);
    expectRefused(b, b.setOperandValue(index, &value, 4), ANEURALNETWORKS_BAD_DATA, "out of range");
    expectRefused(b, b.setOperandValueFromMemory(index, *memory, 0, 8), ANEURALNETWORKS_BAD_DATA, "out of range");
    expectRefused(b, b.setOperandValueFromModel(index, &finished), ANEURALNETWORKS_BAD_DATA, "out of range");
    expectRefused(b, b.setOperandSymmPerChannelQuantParams(index, &channelQuant), ANEURALNETWORKS_BAD_DATA,
                  "out of range");
    expectRefused(b, b.setOperandExtensionData(index, &value, 4), ANEURALNETWORKS_BAD_DATA, "out of range");
  }
  expectRefused(b, addOperation(b, ANEURALNETWORKS_RELU, {t}, {7}), ANEURALNETWORKS_BAD_DATA,
                "operations[0].outputs[0] = 7 is out of range");
  expectRefused(b, addOperation(b, ANEURALNETWORKS_RELU, {5}, {t}), ANEURALNETWORKS_BAD_DATA,
                "operations[0].inputs[0] = 5 is out of range");
  expectRefused(b, identify(b, {3}, {}), ANEURALNETWORKS_BAD_DATA, "inputs[0] = 3 is out of range");
  expectRefused(b, identify(b, {}, {t, 9}), ANEURALNETWORKS_BAD_DATA, "outputs[1] = 9 is out of range");
}

TEST(ModelBuilderTest, MissingPointersAreUnexpectedNull) {
  ModelBuilder b;
  Counter c{b};
  c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  int32_t type = 0;
  EXPECT_EQ(b.addOperand(nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(b.setOperandValueFromMemory(0, nullptr, 0, 8), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(b.setOperandValueFromModel(0, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(b.setOperandSymmPerChannelQuantParams(0, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(b.addOperation(ANEURALNETWORKS_RELU, 1, nullptr, 0, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(b.identifyInputsAndOutputs(0, nullptr, 1, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(b.getExtensionOperandType(nullptr, 1, &type), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(b.getExtensionOperationType("com.example.null", 1, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST(ModelBuilderTest, AddOperandChecksTypesDimensionsAndQuantization) {
  ModelBuilder b;
  expectRefused(b, addOperand(b, 42), ANEURALNETWORKS_BAD_DATA, "operand 0.type = 42 is not a valid operand type");
  expectRefused(b, addOperand(b, ANEURALNETWORKS_INT32, {1}), ANEURALNETWORKS_BAD_DATA,
                "operand 0.dimensions = [1] must be empty for scalar type INT32");
  expectRefused(b, addOperand(b, ANEURALNETWORKS_FLOAT32, {}, 0.5f), ANEURALNETWORKS_BAD_DATA,
                "operand 0.scale = 0.5 must be 0");
  expectRefused(b, addOperand(b, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2}, 0.0f, 0), ANEURALNETWORKS_BAD_DATA,
                "operand 0.scale = 0 must be > 0 for TENSOR_QUANT8_ASYMM");
  expectRefused(b, addOperand(b, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2}, 0.5f, 256), ANEURALNETWORKS_BAD_DATA,
                "operand 0.zeroPoint = 256 is outside [0, 255]");
  expectRefused(b, addOperand(b, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, {2}, 0.5f, 128),
                ANEURALNETWORKS_BAD_DATA, "outside [-128, 127]");
  expectRefused(b, addOperand(b, ANEURALNETWORKS_TENSOR_INT32, {2}, 0.5f, 1), ANEURALNETWORKS_BAD_DATA,
                "operand 0.zeroPoint = 1 is outside [0, 0]");
  expectRefused(b, addOperand(b, ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, {2}, 0.5f), ANEURALNETWORKS_BAD_DATA,
                "takes scale 0 and zero point 0");
  expectRefused(b, addOperand(b, ANEURALNETWORKS_TENSOR_FLOAT32, {0x10000, 0x10000}), ANEURALNETWORKS_BAD_DATA,
                "too large");
  expectRefused(b, addOperand(b, ANEURALNETWORKS_MODEL, {1}), ANEURALNETWORKS_BAD_DATA, "must be empty");
  // dimensionCount and dimensions must agree about whether there are dimensions.
  const uint32_t dims[] = {2};
  const ANeuralNetworksOperandType countWithoutDims{ANEURALNETWORKS_TENSOR_FLOAT32, 1, nullptr, 0.0f, 0};
  const ANeuralNetworksOperandType dimsWithoutCount{ANEURALNETWORKS_TENSOR_FLOAT32, 0, dims, 0.0f, 0};
  expectRefused(b, b.addOperand(&countWithoutDims), ANEURALNETWORKS_BAD_DATA, "dimensionCount is 1");
  expectRefused(b, b.addOperand(&dimsWithoutCount), ANEURALNETWORKS_BAD_DATA, "dimensionCount is 0");

  // Accepted: unknown rank and unknown dimensions, TENSOR_INT32 bias scales, OEM types with
  // quantization (as AOSP allows), a SUBGRAPH operand, per-channel without its scales yet.
  EXPECT_EQ(addOperand(b, ANEURALNETWORKS_TENSOR_FLOAT32), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  EXPECT_EQ(addOperand(b, ANEURALNETWORKS_TENSOR_FLOAT32, {0, 3}), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  EXPECT_EQ(addOperand(b, ANEURALNETWORKS_TENSOR_INT32, {2}, 0.25f), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  EXPECT_EQ(addOperand(b, ANEURALNETWORKS_OEM_SCALAR, {}, 0.5f, 3), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  EXPECT_EQ(addOperand(b, ANEURALNETWORKS_TENSOR_OEM_BYTE, {4}, 0.5f, 3), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  EXPECT_EQ(addOperand(b, ANEURALNETWORKS_MODEL), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  EXPECT_EQ(addOperand(b, ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 0}), ANEURALNETWORKS_NO_ERROR)
      << b.lastError();
}

TEST(ModelBuilderTest, SetOperandValueChecksLengths) {
  ModelBuilder b;
  Counter c{b};
  const uint32_t scalar = c.add(ANEURALNETWORKS_INT32);
  const uint32_t tensor = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {3});
  const uint32_t unknown = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {0, 3});
  const uint32_t unranked = c.add(ANEURALNETWORKS_TENSOR_FLOAT32);
  const std::vector<float> values(6, 1.0f);
  expectRefused(b, b.setOperandValue(scalar, values.data(), 8), ANEURALNETWORKS_BAD_DATA,
                "operand 0 (INT32 []) needs 4 bytes, got 8");
  expectRefused(b, b.setOperandValue(tensor, values.data(), 8), ANEURALNETWORKS_BAD_DATA, "needs 12 bytes, got 8");
  expectRefused(b, b.setOperandValue(unknown, values.data(), 24), ANEURALNETWORKS_BAD_DATA, "unspecified dimensions");
  expectRefused(b, b.setOperandValue(unranked, values.data(), 4), ANEURALNETWORKS_BAD_DATA, "unspecified dimensions");
  expectRefused(b, b.setOperandValue(tensor, nullptr, 12), ANEURALNETWORKS_BAD_DATA, "buffer is NULL");
  EXPECT_EQ(b.setOperandValue(tensor, values.data(), 12), ANEURALNETWORKS_NO_ERROR);
  EXPECT_EQ(b.setOperandValue(scalar, values.data(), 4), ANEURALNETWORKS_NO_ERROR);
}

TEST(ModelBuilderTest, NullValueOfLengthZeroOmitsAnOperand) {
  ModelBuilder b;
  buildAdd(b);
  const int omitted = addOperand(b, ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  ASSERT_EQ(omitted, ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(b.setOperandValue(4, nullptr, 0), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(b.finish(), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  const auto model = b.model();
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(model->main.operands[4].lifetime, LifeTime::NO_VALUE);
  EXPECT_EQ(model->main.operands[4].location, hal::DataLocation{});
}

// out = in + constant over float32 [n]; the constant's bytes come from `values`.
void buildAddConstant(ModelBuilder& b, uint32_t n, const std::vector<float>& values) {
  Counter c{b};
  const uint32_t in = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {n});
  const uint32_t constant = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {n});
  const uint32_t act = c.add(ANEURALNETWORKS_INT32);
  const uint32_t out = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {n});
  ASSERT_EQ(b.setOperandValue(constant, values.data(), values.size() * sizeof(float)), ANEURALNETWORKS_NO_ERROR)
      << b.lastError();
  ASSERT_EQ(setInt32(b, act, 0), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(addOperation(b, ANEURALNETWORKS_ADD, {in, constant, act}, {out}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(identify(b, {in}, {out}), ANEURALNETWORKS_NO_ERROR);
}

std::vector<float> constantOf(const hal::Model& model, uint32_t index) {
  const Operand& operand = model.main.operands[index];
  const uint8_t* base = operand.lifetime == LifeTime::CONSTANT_COPY ? model.operandValues.data()
                                                                     : model.pools[operand.location.poolIndex]->data();
  std::vector<float> values(operand.location.length / sizeof(float));
  std::memcpy(values.data(), base + operand.location.offset, operand.location.length);
  return values;
}

TEST(ModelBuilderTest, ValuesUpTo128BytesAreCopiedAtOnce) {
  static_assert(ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES == 128, "32 floats");
  std::vector<float> values(32, 1.0f);
  ModelBuilder b;
  buildAddConstant(b, 32, values);
  values.assign(32, 2.0f);  // the model took its copy already
  ASSERT_EQ(b.finish(), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  const auto model = b.model();
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(model->main.operands[1].lifetime, LifeTime::CONSTANT_COPY);
  EXPECT_EQ(constantOf(*model, 1), std::vector<float>(32, 1.0f));
  EXPECT_TRUE(model->pools.empty());
}

TEST(ModelBuilderTest, LargerValuesAreReadAtFinish) {
  std::vector<float> values(33, 1.0f);  // 132 bytes
  ModelBuilder b;
  buildAddConstant(b, 33, values);
  values.assign(33, 2.0f);  // before finish(): the model sees it
  ASSERT_EQ(b.finish(), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  values.assign(33, 3.0f);  // after finish(): it does not
  const auto model = b.model();
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(model->main.operands[1].lifetime, LifeTime::CONSTANT_REFERENCE);
  ASSERT_EQ(model->pools.size(), 1u);
  EXPECT_EQ(model->main.operands[1].location.length, 132u);
  EXPECT_EQ(constantOf(*model, 1), std::vector<float>(33, 2.0f));
}

TEST(ModelBuilderTest, ValuesFromMemory) {
  auto memory = hal::createHeapMemory(64);
  ASSERT_TRUE(memory.ok());
  const std::vector<float> values = {1, 2, 3, 4};
  std::memcpy((*memory)->data() + 16, values.data(), 16);
  std::memcpy((*memory)->data() + 32, values.data(), 16);
  ModelBuilder b;
  Counter c{b};
  const uint32_t in = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {4});
  const uint32_t k1 = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {4});
  const uint32_t k2 = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {4});
  const uint32_t act = c.add(ANEURALNETWORKS_INT32);
  const uint32_t t = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {4});
  const uint32_t out = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {4});
  expectRefused(b, b.setOperandValueFromMemory(k1, *memory, 56, 16), ANEURALNETWORKS_BAD_DATA,
                "[56, 72) is outside the memory (64 bytes)");
  expectRefused(b, b.setOperandValueFromMemory(k1, *memory, 0, 12), ANEURALNETWORKS_BAD_DATA, "needs 16 bytes");
  ASSERT_EQ(b.setOperandValueFromMemory(k1, *memory, 16, 16), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  ASSERT_EQ(b.setOperandValueFromMemory(k2, *memory, 32, 16), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  ASSERT_EQ(setInt32(b, act, 0), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(addOperation(b, ANEURALNETWORKS_ADD, {in, k1, act}, {t}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(addOperation(b, ANEURALNETWORKS_ADD, {t, k2, act}, {out}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(identify(b, {in}, {out}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(b.finish(), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  const auto model = b.model();
  ASSERT_TRUE(model.ok());
  ASSERT_EQ(model->pools.size(), 1u);  // one memory, one pool
  EXPECT_EQ(model->pools[0], *memory);
  EXPECT_EQ(model->main.operands[k1].lifetime, LifeTime::CONSTANT_REFERENCE);
  EXPECT_EQ(model->main.operands[k1].location, (hal::DataLocation{nullptr, 0, 16, 16, 0}));
  EXPECT_EQ(model->main.operands[k2].location, (hal::DataLocation{nullptr, 0, 32, 16, 0}));
}

TEST(ModelBuilderTest, AddOperationChecksTheSignatureAtOnce) {
  ModelBuilder b;
  Counter c{b};
  const uint32_t input = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {1, 3, 3, 1});
  const uint32_t filter = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {1, 2, 2, 1});
  const uint32_t bias = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {1});
  std::vector<uint32_t> inputs = {input, filter, bias};
  for (int i = 0; i < 5; ++i) inputs.push_back(c.add(ANEURALNETWORKS_INT32));  // input 7 should be the layout
  const uint32_t out = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {1, 2, 2, 1});
  expectRefused(b, addOperation(b, ANEURALNETWORKS_CONV_2D, inputs, {out}), ANEURALNETWORKS_BAD_DATA,
                "operations[0] CONV_2D: input 7 (layout) must be BOOL with 8 inputs, got INT32");
  expectRefused(b, addOperation(b, 9999, {input}, {out}), ANEURALNETWORKS_BAD_DATA, "not a valid operation type");
  inputs.pop_back();
  EXPECT_EQ(addOperation(b, ANEURALNETWORKS_CONV_2D, inputs, {out}), ANEURALNETWORKS_NO_ERROR) << b.lastError();
}

TEST(ModelBuilderTest, IdentifyInputsAndOutputs) {
  ModelBuilder b;
  Counter c{b};
  const uint32_t a = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  const uint32_t x = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  const uint32_t act = c.add(ANEURALNETWORKS_INT32);
  const uint32_t out = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  ASSERT_EQ(setInt32(b, act, 0), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(addOperation(b, ANEURALNETWORKS_ADD, {a, x, act}, {out}), ANEURALNETWORKS_NO_ERROR);
  expectRefused(b, identify(b, {a, act}, {out}), ANEURALNETWORKS_BAD_DATA,
                "inputs[1] = 2 has lifetime CONSTANT_COPY");
  expectRefused(b, identify(b, {a, a}, {out}), ANEURALNETWORKS_BAD_DATA, "inputs[1] = 0 is listed twice");
  expectRefused(b, identify(b, {a, x}, {a}), ANEURALNETWORKS_BAD_DATA, "outputs[0] = 0 is listed twice");
  // Refused calls changed nothing: the right lists are accepted now.
  ASSERT_EQ(identify(b, {a, x}, {out}), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  ASSERT_EQ(b.finish(), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  const auto model = b.model();
  ASSERT_TRUE(model.ok());
  EXPECT_THAT(model->main.inputIndexes, ElementsAre(a, x));
  EXPECT_THAT(model->main.outputIndexes, ElementsAre(out));
}

TEST(ModelBuilderTest, FinishSortsOperationsIntoExecutionOrder) {
  ModelBuilder b;
  Counter c{b};
  const uint32_t a = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  const uint32_t x = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  const uint32_t act = c.add(ANEURALNETWORKS_INT32);
  const uint32_t t = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  const uint32_t out = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  ASSERT_EQ(setInt32(b, act, 0), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(addOperation(b, ANEURALNETWORKS_RELU, {t}, {out}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(addOperation(b, ANEURALNETWORKS_ADD, {a, x, act}, {t}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(identify(b, {a, x}, {out}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(b.finish(), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  const auto model = b.model();
  ASSERT_TRUE(model.ok());
  ASSERT_EQ(model->main.operations.size(), 2u);
  EXPECT_EQ(model->main.operations[0].type, OperationType::ADD);
  EXPECT_EQ(model->main.operations[1].type, OperationType::RELU);
  EXPECT_THAT(b.operationOrder(), ElementsAre(1u, 0u));
}

TEST(ModelBuilderTest, CyclicGraphIsRefusedAtFinishForGood) {
  ModelBuilder b;
  Counter c{b};
  const uint32_t in = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  const uint32_t act = c.add(ANEURALNETWORKS_INT32);
  const uint32_t t1 = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  const uint32_t t2 = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  const uint32_t out = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  ASSERT_EQ(setInt32(b, act, 0), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(addOperation(b, ANEURALNETWORKS_ADD, {in, t2, act}, {t1}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(addOperation(b, ANEURALNETWORKS_ADD, {in, t1, act}, {t2}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(addOperation(b, ANEURALNETWORKS_RELU, {t1}, {out}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(identify(b, {in}, {out}), ANEURALNETWORKS_NO_ERROR);
  expectRefused(b, b.finish(), ANEURALNETWORKS_BAD_DATA, "operations [0, 1, 2] can never run: they form a cycle");
  EXPECT_FALSE(b.isFinished());
  EXPECT_FALSE(b.model().ok());
  expectRefused(b, b.finish(), ANEURALNETWORKS_BAD_STATE, "invalid");
  expectRefused(b, addOperand(b, ANEURALNETWORKS_INT32), ANEURALNETWORKS_BAD_STATE, "invalid");
}

TEST(ModelBuilderTest, FinishRunsHalValidationOnTheWholeModel) {
  ModelBuilder noOperations;
  Counter c{noOperations};
  const uint32_t in = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  ASSERT_EQ(identify(noOperations, {in}, {}), ANEURALNETWORKS_NO_ERROR);
  expectRefused(noOperations, noOperations.finish(), ANEURALNETWORKS_BAD_DATA, "at least one operation");

  // An output no operation writes.
  ModelBuilder unwritten;
  Counter c2{unwritten};
  const uint32_t a = c2.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  const uint32_t out = c2.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  const uint32_t never = c2.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  ASSERT_EQ(addOperation(unwritten, ANEURALNETWORKS_RELU, {a}, {out}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(identify(unwritten, {a}, {out, never}), ANEURALNETWORKS_NO_ERROR);
  expectRefused(unwritten, unwritten.finish(), ANEURALNETWORKS_BAD_DATA,
                "main.operands[2] (SUBGRAPH_OUTPUT) is never written");
}

// out = x op x over float32 [2], x and out its input and output.
void buildBranch(ModelBuilder& b, int32_t operation) {
  Counter c{b};
  const uint32_t x = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  const uint32_t act = c.add(ANEURALNETWORKS_INT32);
  const uint32_t out = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  ASSERT_EQ(setInt32(b, act, 0), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(addOperation(b, operation, {x, x, act}, {out}), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  ASSERT_EQ(identify(b, {x}, {out}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(b.finish(), ANEURALNETWORKS_NO_ERROR) << b.lastError();
}

// IF (condition) then `thenModel` else `elseModel` on x; condition is an input, or a constant.
void buildIf(ModelBuilder& b, const ModelBuilder* thenModel, const ModelBuilder* elseModel,
             bool constantCondition = false) {
  Counter c{b};
  const uint32_t condition = c.add(ANEURALNETWORKS_TENSOR_BOOL8, {1});
  const uint32_t thenOperand = c.add(ANEURALNETWORKS_MODEL);
  const uint32_t elseOperand = c.add(ANEURALNETWORKS_MODEL);
  const uint32_t x = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  const uint32_t out = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  if (constantCondition) {
    const uint8_t yes = 1;
    ASSERT_EQ(b.setOperandValue(condition, &yes, 1), ANEURALNETWORKS_NO_ERROR);
  }
  ASSERT_EQ(b.setOperandValueFromModel(thenOperand, thenModel), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  ASSERT_EQ(b.setOperandValueFromModel(elseOperand, elseModel), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  ASSERT_EQ(addOperation(b, ANEURALNETWORKS_IF, {condition, thenOperand, elseOperand, x}, {out}),
            ANEURALNETWORKS_NO_ERROR)
      << b.lastError();
  if (constantCondition) {
    ASSERT_EQ(identify(b, {x}, {out}), ANEURALNETWORKS_NO_ERROR);
  } else {
    ASSERT_EQ(identify(b, {condition, x}, {out}), ANEURALNETWORKS_NO_ERROR);
  }
  ASSERT_EQ(b.finish(), ANEURALNETWORKS_NO_ERROR) << b.lastError();
}

TEST(ModelBuilderTest, IfModelReferencesTwoModels) {
  ModelBuilder add;
  ModelBuilder mul;
  buildBranch(add, ANEURALNETWORKS_ADD);
  buildBranch(mul, ANEURALNETWORKS_MUL);
  ModelBuilder main;
  buildIf(main, &add, &mul);
  const auto model = main.model();
  ASSERT_TRUE(model.ok());
  ASSERT_EQ(model->referenced.size(), 2u);
  EXPECT_EQ(model->main.operands[1].lifetime, LifeTime::SUBGRAPH);
  EXPECT_EQ(model->main.operands[1].location.offset, 0u);
  EXPECT_EQ(model->main.operands[2].location.offset, 1u);
  EXPECT_EQ(model->referenced[0].operations[0].type, OperationType::ADD);
  EXPECT_EQ(model->referenced[1].operations[0].type, OperationType::MUL);
  // Each branch's activation constant was gathered into the one model's operand values.
  for (const auto& subgraph : model->referenced) {
    const Operand& act = subgraph.operands[1];
    ASSERT_EQ(act.lifetime, LifeTime::CONSTANT_COPY);
    int32_t value = -1;
    std::memcpy(&value, model->operandValues.data() + act.location.offset, 4);
    EXPECT_EQ(value, 0);
  }
  // The branch models are unchanged by being referenced.
  const auto addModel = add.model();
  ASSERT_TRUE(addModel.ok());
  EXPECT_EQ(addModel->main, model->referenced[0]);
}

TEST(ModelBuilderTest, EveryReachableModelIsReferencedOnce) {
  ModelBuilder add;
  ModelBuilder mul;
  buildBranch(add, ANEURALNETWORKS_ADD);
  buildBranch(mul, ANEURALNETWORKS_MUL);
  ModelBuilder inner;  // IF (true) add else mul
  buildIf(inner, &add, &mul, /*constantCondition=*/true);
  ModelBuilder same;  // IF (c) mul else mul
  buildIf(same, &mul, &mul);
  const auto sameModel = same.model();
  ASSERT_TRUE(sameModel.ok());
  EXPECT_EQ(sameModel->referenced.size(), 1u);

  // main: IF (c) inner else mul. mul is reached twice (from main and from inner), kept once.
  ModelBuilder main;
  buildIf(main, &inner, &mul);
  const auto model = main.model();
  ASSERT_TRUE(model.ok());
  ASSERT_EQ(model->referenced.size(), 3u);
  const hal::Model::Subgraph& innerGraph = model->referenced[model->main.operands[1].location.offset];
  EXPECT_EQ(innerGraph.operations[0].type, OperationType::IF);
  const uint32_t mulIndex = model->main.operands[2].location.offset;
  EXPECT_EQ(innerGraph.operands[2].location.offset, mulIndex);
  EXPECT_EQ(model->referenced[mulIndex].operations[0].type, OperationType::MUL);
  EXPECT_EQ(model->referenced[innerGraph.operands[1].location.offset].operations[0].type, OperationType::ADD);
  // inner's constant condition came along with it.
  EXPECT_EQ(model->operandValues[innerGraph.operands[0].location.offset], 1);
}

TEST(ModelBuilderTest, ReferencedModelsMustBeFinishedAndMatch) {
  ModelBuilder unfinished;
  ModelBuilder b;
  Counter c{b};
  const uint32_t condition = c.add(ANEURALNETWORKS_TENSOR_BOOL8, {1});
  const uint32_t thenOperand = c.add(ANEURALNETWORKS_MODEL);
  const uint32_t elseOperand = c.add(ANEURALNETWORKS_MODEL);
  const uint32_t x = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {3});  // the branches take [2]
  const uint32_t out = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {3});
  expectRefused(b, b.setOperandValueFromModel(thenOperand, &unfinished), ANEURALNETWORKS_BAD_STATE, "not finished");
  expectRefused(b, b.setOperandValueFromModel(thenOperand, &b), ANEURALNETWORKS_BAD_STATE, "not finished");
  ModelBuilder add;
  buildBranch(add, ANEURALNETWORKS_ADD);
  ASSERT_EQ(b.setOperandValueFromModel(thenOperand, &add), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(b.setOperandValueFromModel(elseOperand, &add), ANEURALNETWORKS_NO_ERROR);
  expectRefused(b, addOperation(b, ANEURALNETWORKS_IF, {condition, thenOperand, elseOperand, x}, {out}),
                ANEURALNETWORKS_BAD_DATA, "has dimensions [3]");
}

TEST(ModelBuilderTest, PerChannelQuantization) {
  ModelBuilder b;
  Counter c{b};
  const uint32_t filter = c.add(ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 3});
  const uint32_t unknownChannels = c.add(ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, {0, 3});
  const uint32_t notPerChannel = c.add(ANEURALNETWORKS_TENSOR_QUANT8_SYMM, {2}, 0.5f);
  const uint32_t out = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 3});
  const float scales[] = {0.5f, 0.25f, 0.0f};
  auto set = [&](uint32_t index, uint32_t channelDim, uint32_t count, const float* values) {
    const ANeuralNetworksSymmPerChannelQuantParams params{channelDim, count, values};
    return b.setOperandSymmPerChannelQuantParams(static_cast<int32_t>(index), &params);
  };
  expectRefused(b, set(notPerChannel, 0, 2, scales), ANEURALNETWORKS_BAD_DATA, "not a TENSOR_QUANT8_SYMM_PER_CHANNEL");
  expectRefused(b, set(filter, 2, 2, scales), ANEURALNETWORKS_BAD_DATA, "channelDim 2 is not one of its dimensions");
  expectRefused(b, set(filter, 0, 3, scales), ANEURALNETWORKS_BAD_DATA, "got scaleCount 3");
  expectRefused(b, set(filter, 0, 2, nullptr), ANEURALNETWORKS_BAD_DATA, "scales NULL");
  expectRefused(b, set(unknownChannels, 0, 0, scales), ANEURALNETWORKS_BAD_DATA, "a known channel dimension");
  expectRefused(b, set(filter, 1, 3, scales), ANEURALNETWORKS_BAD_DATA,
                "operand 0.extraParams.scales[2] = 0 must be > 0");
  ASSERT_EQ(set(filter, 0, 2, scales), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  ASSERT_EQ(addOperation(b, ANEURALNETWORKS_DEQUANTIZE, {filter}, {out}), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  ASSERT_EQ(identify(b, {filter}, {out}), ANEURALNETWORKS_NO_ERROR);
  // unknownChannels never got its scales: hal refuses the model.
  expectRefused(b, b.finish(), ANEURALNETWORKS_BAD_DATA, "must hold per-channel quantization");

  ModelBuilder good;
  Counter g{good};
  const uint32_t in = g.add(ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 3});
  const uint32_t result = g.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 3});
  const ANeuralNetworksSymmPerChannelQuantParams params{0, 2, scales};
  ASSERT_EQ(good.setOperandSymmPerChannelQuantParams(in, &params), ANEURALNETWORKS_NO_ERROR) << good.lastError();
  ASSERT_EQ(addOperation(good, ANEURALNETWORKS_DEQUANTIZE, {in}, {result}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(identify(good, {in}, {result}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(good.finish(), ANEURALNETWORKS_NO_ERROR) << good.lastError();
  const auto model = good.model();
  ASSERT_TRUE(model.ok());
  const Operand::ExtraParams expected = Operand::SymmPerChannelQuantParams{{0.5f, 0.25f}, 0};
  EXPECT_EQ(model->main.operands[in].extraParams, expected);
}

TEST(ModelBuilderTest, ExtensionPrefixes) {
  ModelBuilder b;
  int32_t a1 = 0;
  int32_t a2 = 0;
  int32_t bType = 0;
  ANeuralNetworksOperationType aOperation = 0;
  ASSERT_EQ(b.getExtensionOperandType("com.example.prefix_a", 1, &a1), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(b.getExtensionOperandType("com.example.prefix_a", 2, &a2), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(b.getExtensionOperationType("com.example.prefix_a", 7, &aOperation), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(b.getExtensionOperandType("com.example.prefix_b", 1, &bType), ANEURALNETWORKS_NO_ERROR);
  const uint16_t prefixA = static_cast<uint32_t>(a1) >> 16;
  EXPECT_NE(prefixA, 0);
  EXPECT_EQ(a1 & 0xFFFF, 1);
  EXPECT_EQ(a2, (prefixA << 16) | 2);
  EXPECT_EQ(aOperation, (prefixA << 16) | 7);
  EXPECT_NE(static_cast<uint32_t>(bType) >> 16, prefixA);
  EXPECT_TRUE(hal::isExtension(a1));

  // Another model gets the same prefix for the same extension, so models referencing each other agree.
  ModelBuilder other;
  int32_t again = 0;
  ASSERT_EQ(other.getExtensionOperandType("com.example.prefix_a", 1, &again), ANEURALNETWORKS_NO_ERROR);
  EXPECT_EQ(again, a1);

  // An extension operation on extension operands: the model names only the extensions it uses.
  Counter c{b};
  const uint32_t in = c.add(a1, {4});
  const uint32_t out = c.add(a2);
  ASSERT_EQ(addOperation(b, aOperation, {in}, {out}), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  ASSERT_EQ(identify(b, {in}, {out}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(b.finish(), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  const auto model = b.model();
  ASSERT_TRUE(model.ok());
  ASSERT_EQ(model->extensionNameToPrefix.size(), 1u);
  EXPECT_EQ(model->extensionNameToPrefix[0], (hal::Model::ExtensionNameAndPrefix{"com.example.prefix_a", prefixA}));
}

TEST(ModelBuilderTest, ExtensionOperandsAndData) {
  ModelBuilder b;
  int32_t type = 0;
  ASSERT_EQ(b.getExtensionOperandType("com.example.data", 1, &type), ANEURALNETWORKS_NO_ERROR);
  const int32_t unknownPrefix = (0x7FFE << 16) | 1;  // no getExtension*Type call returned it
  expectRefused(b, addOperand(b, unknownPrefix), ANEURALNETWORKS_BAD_DATA, "extension prefix");
  expectRefused(b, addOperand(b, type, {}, 0.5f), ANEURALNETWORKS_BAD_DATA, "no scale or zero point");
  expectRefused(b, addOperation(b, (0x7FFE << 16) | 2, {}, {}), ANEURALNETWORKS_BAD_DATA, "extension prefix");
  Counter c{b};
  const uint32_t ext = c.add(type, {2});
  const uint32_t plain = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {2});
  const uint8_t data[] = {1, 2, 3};
  expectRefused(b, b.setOperandExtensionData(plain, data, 3), ANEURALNETWORKS_BAD_DATA, "not an extension type");
  expectRefused(b, b.setOperandExtensionData(ext, nullptr, 3), ANEURALNETWORKS_BAD_DATA, "data is NULL");
  expectRefused(b, b.setOperandExtensionData(ext, data, 0), ANEURALNETWORKS_BAD_DATA, "data is not NULL");
  ASSERT_EQ(b.setOperandExtensionData(ext, data, 3), ANEURALNETWORKS_NO_ERROR);
  // The runtime cannot know an extension type's size, so any value length is the device's to judge.
  ASSERT_EQ(b.setOperandValue(ext, data, 3), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  int32_t operation = 0;
  ASSERT_EQ(b.getExtensionOperationType("com.example.data", 1, &operation), ANEURALNETWORKS_NO_ERROR);
  const uint32_t out = c.add(type, {2});
  ASSERT_EQ(addOperation(b, operation, {ext, plain}, {out}), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  ASSERT_EQ(identify(b, {plain}, {out}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(b.finish(), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  const auto model = b.model();
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(model->main.operands[ext].extraParams, Operand::ExtraParams(Operand::ExtensionParams{1, 2, 3}));
  EXPECT_EQ(model->main.operands[ext].lifetime, LifeTime::CONSTANT_COPY);
}

TEST(ModelBuilderTest, RelaxComputation) {
  ModelBuilder b;
  buildAdd(b);
  ASSERT_EQ(b.relaxComputationFloat32toFloat16(true), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(b.finish(), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  const auto model = b.model();
  ASSERT_TRUE(model.ok());
  EXPECT_TRUE(model->relaxComputationFloat32toFloat16);
}

TEST(ModelBuilderTest, OperandsOfUnknownShapeFinish) {
  ModelBuilder b;
  Counter c{b};
  const uint32_t a = c.add(ANEURALNETWORKS_TENSOR_FLOAT32, {0, 2});
  const uint32_t out = c.add(ANEURALNETWORKS_TENSOR_FLOAT32);  // unknown rank
  ASSERT_EQ(addOperation(b, ANEURALNETWORKS_RELU, {a}, {out}), ANEURALNETWORKS_NO_ERROR) << b.lastError();
  ASSERT_EQ(identify(b, {a}, {out}), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(b.finish(), ANEURALNETWORKS_NO_ERROR) << b.lastError();
}

}  // namespace
}  // namespace nnremote::runtime
