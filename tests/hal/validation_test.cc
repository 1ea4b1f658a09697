// hal::validateModel and hal::validateRequestForModel, rule by rule.
#include "hal/validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hal/model_builder.h"
#include "tests/common/control_flow_models.h"

namespace nnremote::hal {
namespace {

using ::testing::HasSubstr;
using LifeTime = Operand::LifeTime;

// in0 + in1 -> t; relu(t) -> out
Model twoStepModel() {
  ModelBuilder b;
  const uint32_t a = b.addInput(OperandType::TENSOR_FLOAT32, {2});
  const uint32_t c = b.addInput(OperandType::TENSOR_FLOAT32, {2});
  const uint32_t t = b.addTemporary(OperandType::TENSOR_FLOAT32, {2});
  const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {2});
  b.addOperation(OperationType::ADD, {a, c, b.addInt32(0)}, {t});
  b.addOperation(OperationType::RELU, {t}, {out});
  return b.build();
}

void expectRejected(const Status& status, const std::string& text) {
  ASSERT_FALSE(status.ok()) << "expected: " << text;
  EXPECT_EQ(status.error().code, ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(status.error().message, HasSubstr(text));
}

TEST(ModelValidationTest, AcceptsAWellFormedModel) {
  const Status status = validateModel(twoStepModel());
  EXPECT_TRUE(status.ok()) << status.error().message;
}

TEST(ModelValidationTest, ExecutionOrder) {
  Model swapped = twoStepModel();
  std::swap(swapped.main.operations[0], swapped.main.operations[1]);
  expectRejected(validateModel(swapped), "main.operations[0].inputs[0] = 2 is read before");

  Model writtenTwice = twoStepModel();
  writtenTwice.main.operations[1].outputs[0] = 2;
  expectRejected(validateModel(writtenTwice), "main.operations[1].outputs[0] = 2 is written twice");

  Model neverWritten = twoStepModel();
  neverWritten.main.operations.pop_back();
  expectRejected(validateModel(neverWritten), "main.operands[3] (SUBGRAPH_OUTPUT) is never written");
}

TEST(ModelValidationTest, OperandTypesAndQuantization) {
  Model badType = twoStepModel();
  badType.main.operands[0].type = static_cast<OperandType>(42);
  expectRejected(validateModel(badType), "main.operands[0].type = 42 is not a valid operand type");

  // An extension operand, read by an extension operation (which its extension defines): valid
  // once the model names the prefix. A built-in ADD would refuse it (its signature).
  Model extension = twoStepModel();
  extension.main.operands[0].type = static_cast<OperandType>((7 << kExtensionTypeBits) | 1);
  extension.main.operations[0].type = static_cast<OperationType>((7 << kExtensionTypeBits) | 2);
  expectRejected(validateModel(extension), "extension prefix missing from extensionNameToPrefix");
  extension.extensionNameToPrefix.push_back({"com.example.ext", 7});
  EXPECT_TRUE(validateModel(extension).ok());
  extension.main.operations[0].type = OperationType::ADD;
  expectRejected(validateModel(extension), "main.operations[0] ADD: input 0");

  ModelBuilder q;
  const uint32_t in = q.addInput(OperandType::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 300);
  const uint32_t out = q.addOutput(OperandType::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 0);
  q.addOperation(OperationType::RELU, {in}, {out});
  expectRejected(validateModel(q.build()), "main.operands[0].zeroPoint = 300 is outside [0, 255]");

  Model floatWithScale = twoStepModel();
  floatWithScale.main.operands[1].scale = 0.5f;
  expectRejected(validateModel(floatWithScale), "main.operands[1].scale = 0.5 must be 0");

  Model scalarWithDims = twoStepModel();
  scalarWithDims.main.operands[4].dimensions = {1};
  expectRejected(validateModel(scalarWithDims), "must be empty for scalar type INT32");

  ModelBuilder pc;
  const uint32_t weights = pc.addConstant(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 1},
                                          std::vector<int8_t>{1, 2});
  pc.model().main.operands[weights].extraParams = Operand::SymmPerChannelQuantParams{{0.5f}, 0};
  const uint32_t o = pc.addOutput(OperandType::TENSOR_FLOAT32, {2});
  const uint32_t i = pc.addInput(OperandType::TENSOR_FLOAT32, {2});
  pc.addOperation(OperationType::ADD, {i, i, pc.addInt32(0)}, {o});
  expectRejected(validateModel(pc.build()), "extraParams.scales has 1 entries but dimension 0 is 2");
}

TEST(ModelValidationTest, DataLocations) {
  Model copyOutOfRange = twoStepModel();
  copyOutOfRange.main.operands[4].location.offset = 1000;
  expectRejected(validateModel(copyOutOfRange), "main.operands[4].location [offset 1000, length 4] is outside operandValues");

  Model wrongLength = twoStepModel();
  wrongLength.main.operands[4].location.length = 2;
  expectRejected(validateModel(wrongLength), "main.operands[4].location.length = 2 but a INT32");

  Model reference = twoStepModel();
  reference.main.operands[4].lifetime = LifeTime::CONSTANT_REFERENCE;
  reference.main.operands[4].location = {nullptr, 0, 8, 4, 0};
  expectRejected(validateModel(reference), "poolIndex = 0 is out of range (model has 0 pools)");
  reference.pools.push_back(*createHeapMemory(10));
  expectRejected(validateModel(reference), "is outside pools[0] (10 bytes)");
  reference.pools[0] = *createHeapMemory(12);
  EXPECT_TRUE(validateModel(reference).ok());

  Model temporaryWithLocation = twoStepModel();
  temporaryWithLocation.main.operands[2].location.length = 8;
  expectRejected(validateModel(temporaryWithLocation), "main.operands[2].location must be empty");

  Model pointer = twoStepModel();
  const int32_t zero = 0;
  pointer.main.operands[4].lifetime = LifeTime::POINTER;
  pointer.main.operands[4].location = {&zero, 0, 0, 4, 0};
  EXPECT_TRUE(validateModel(pointer).ok());
  expectRejected(validateModel(pointer, /*allowPointers=*/false), "cannot cross a process boundary");
}

TEST(ModelValidationTest, InputsAndOutputs) {
  Model duplicate = twoStepModel();
  duplicate.main.inputIndexes = {0, 0};
  expectRejected(validateModel(duplicate), "main.inputIndexes[1] = 0 is listed twice");

  Model unlisted = twoStepModel();
  unlisted.main.inputIndexes = {0};
  expectRejected(validateModel(unlisted), "main.operands[1] has lifetime SUBGRAPH_INPUT but is not listed");

  Model outOfRange = twoStepModel();
  outOfRange.main.outputIndexes = {99};
  expectRejected(validateModel(outOfRange), "main.outputIndexes[0] = 99 is out of range");
}

TEST(ModelValidationTest, ReferencedSubgraphs) {
  Model model = twoStepModel();
  Operand subgraphOperand;
  subgraphOperand.type = OperandType::SUBGRAPH;
  subgraphOperand.lifetime = LifeTime::SUBGRAPH;

  Model unreachable = model;
  unreachable.referenced.push_back(twoStepModel().main);
  expectRejected(validateModel(unreachable), "referenced[0] is not reachable from main");

  // main -> referenced[0] -> referenced[1] -> referenced[0]
  Model cycle = model;
  cycle.referenced = {twoStepModel().main, twoStepModel().main};
  subgraphOperand.location.offset = 0;
  cycle.main.operands.push_back(subgraphOperand);
  subgraphOperand.location.offset = 1;
  cycle.referenced[0].operands.push_back(subgraphOperand);
  subgraphOperand.location.offset = 0;
  cycle.referenced[1].operands.push_back(subgraphOperand);
  expectRejected(validateModel(cycle),
                 "referenced[1].operands[5] refers to referenced[0], which forms a cycle: "
                 "referenced[0] -> referenced[1] -> referenced[0]");

  Model dag = cycle;
  dag.referenced[1].operands.pop_back();
  EXPECT_TRUE(validateModel(dag).ok()) << validateModel(dag).error().message;

  Model badOffset = model;
  subgraphOperand.location.offset = 3;
  badOffset.main.operands.push_back(subgraphOperand);
  expectRejected(validateModel(badOffset), "location.offset = 3 is out of range (model has 0 referenced subgraphs)");
}

// IF (condition) { x } else { x } with the branches' signatures broken one way at a time.
TEST(ModelValidationTest, ControlFlowSignatures) {
  ModelBuilder identity;
  const uint32_t in = identity.addInput(OperandType::TENSOR_FLOAT32, {2});
  const uint32_t out = identity.addOutput(OperandType::TENSOR_FLOAT32, {2});
  identity.addOperation(OperationType::RELU, {in}, {out});
  auto ifModel = [&](OperandType conditionType, OperandType valueType, size_t extraInputs) {
    ModelBuilder b;
    const uint32_t condition = b.addInput(conditionType, {1});
    std::vector<uint32_t> inputs = {condition, b.addSubgraph(identity.build()), b.addSubgraph(identity.build())};
    for (size_t i = 0; i < 1 + extraInputs; ++i) inputs.push_back(b.addInput(valueType, {2}));
    const uint32_t result = b.addOutput(OperandType::TENSOR_FLOAT32, {2});
    b.addOperation(OperationType::IF, inputs, {result});
    return b.build();
  };
  EXPECT_TRUE(validateModel(ifModel(OperandType::TENSOR_BOOL8, OperandType::TENSOR_FLOAT32, 0)).ok());
  expectRejected(validateModel(ifModel(OperandType::TENSOR_INT32, OperandType::TENSOR_FLOAT32, 0)),
                 "main.operations[0] IF: input 0 (condition) must be TENSOR_BOOL8, got TENSOR_INT32");
  expectRejected(validateModel(ifModel(OperandType::TENSOR_BOOL8, OperandType::TENSOR_FLOAT32, 1)),
                 "then-branch has 1 inputs and 1 outputs; the IF passes 2");
  expectRejected(validateModel(ifModel(OperandType::TENSOR_BOOL8, OperandType::TENSOR_INT32, 0)),
                 "main.operations[0].inputs[3] (TENSOR_INT32, scale 0, zero point 0) does not match");
}

// Found by wire_fuzzer: a referenced subgraph's own input index out of range was read by the
// WHILE check before the subgraph itself was validated.
TEST(ModelValidationTest, ReferencedSubgraphsAreCheckedBeforeControlFlowLooksIntoThem) {
  Model model = testing::whileModel();
  ASSERT_TRUE(validateModel(model).ok());
  for (auto& subgraph : model.referenced) {
    for (uint32_t& index : subgraph.inputIndexes) index += 1000;
  }
  expectRejected(validateModel(model), "referenced[0].inputIndexes[0] = 1000");
  Model ifModel = testing::ifModel();
  for (uint32_t& index : ifModel.referenced[1].outputIndexes) index = 77;
  expectRejected(validateModel(ifModel), "referenced[1].outputIndexes[0] = 77");
}

TEST(RequestValidationTest, ArgumentsAgainstTheModel) {
  const Model model = twoStepModel();
  auto io = makeRequest({toBytes<float>({1, 2}), toBytes<float>({3, 4})}, {8});
  ASSERT_TRUE(io.ok());
  EXPECT_TRUE(validateRequestForModel(io->request, model).ok());

  Request noValueOutput = io->request;
  noValueOutput.outputs[0].lifetime = Request::Argument::LifeTime::NO_VALUE;
  noValueOutput.outputs[0].location = {};
  expectRejected(validateRequestForModel(noValueOutput, model), "request.outputs[0] has no value");

  Request unspecifiedInput = io->request;
  Model dynamic = model;
  dynamic.main.operands[0].dimensions = {0};
  expectRejected(validateRequestForModel(unspecifiedInput, dynamic), "request.inputs[0] has unspecified dimensions [0]");
  unspecifiedInput.inputs[0].dimensions = {2};
  EXPECT_TRUE(validateRequestForModel(unspecifiedInput, dynamic).ok());

  Request zeroToken = io->request;
  zeroToken.pools[2] = static_cast<Request::MemoryDomainToken>(0);
  expectRejected(validateRequestForModel(zeroToken, model), "request.pools[2] is memory-domain token 0");

  Request scalarDims = io->request;
  Model scalarInput = model;
  scalarInput.main.operands[1].type = OperandType::FLOAT32;
  scalarInput.main.operands[1].dimensions = {};
  scalarDims.inputs[1].dimensions = {1};
  expectRejected(validateRequestForModel(scalarDims, scalarInput), "given for scalar operand");
}

// A device's answer to an execution, by AOSP's rules for a driver's answer (ExecutionBuilder's
// validateOutputShapesFromDriver): a broken one is the device's GENERAL_FAILURE.
TEST(OutcomeValidationTest, OutputShapesFollowTheHalsRules) {
  ModelBuilder b;
  const uint32_t in = b.addInput(OperandType::TENSOR_FLOAT32, {2});
  const uint32_t sum = b.addOutput(OperandType::TENSOR_FLOAT32, {2});
  const uint32_t count = b.addOutput(OperandType::INT32, {});
  b.addOperation(OperationType::ADD, {in, in, b.addInt32(0)}, {sum});
  b.addOperation(OperationType::ADD, {b.addInt32(1), b.addInt32(2), b.addInt32(0)}, {count});
  const Model model = b.build();
  auto check = [&](const Result<ExecutionOutcome>& outcome) {
    return validateExecutionOutcome(outcome, model.main.operands, model.main.outputIndexes);
  };
  auto expectBroken = [&](const Result<ExecutionOutcome>& outcome, const std::string& text) {
    const Status status = check(outcome);
    ASSERT_FALSE(status.ok()) << "expected: " << text;
    EXPECT_EQ(status.error().code, ErrorStatus::GENERAL_FAILURE);
    EXPECT_THAT(status.error().message, HasSubstr(text));
  };
  auto success = [](std::vector<OutputShape> shapes) { return ExecutionOutcome{std::move(shapes), {}, nullptr}; };
  auto insufficient = [](std::vector<OutputShape> shapes) {
    Error error = makeError(ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) << "too small";
    error.outputShapes = std::move(shapes);
    return error;
  };

  EXPECT_TRUE(check(success({{{2}, true}, {{}, true}})).ok());
  EXPECT_TRUE(check(success({})).ok()) << "none: the outputs' shapes were fully specified";
  expectBroken(success({{{2}, true}}), "the device answered success with 1 output shapes for 2 outputs");
  expectBroken(success({{{2}, true}, {{}, true}, {{}, true}}), "3 output shapes for 2 outputs");
  expectBroken(success({{{2}, true}, {{}, false}}), "output 1 marked insufficient");
  expectBroken(success({{{}, true}, {{}, true}}), "no dimensions for output 0, a tensor");

  EXPECT_TRUE(check(insufficient({{{2}, false}, {{}, true}})).ok());
  expectBroken(insufficient({}), "OUTPUT_INSUFFICIENT_SIZE with 0 output shapes for 2 outputs (one each)");
  expectBroken(insufficient({{{2}, true}, {{}, true}}), "every output marked sufficient");

  Error unavailable = makeError(ErrorStatus::DEVICE_UNAVAILABLE) << "gone";
  unavailable.outputShapes = {{{7}, false}};
  EXPECT_TRUE(check(unavailable).ok()) << "another status's shapes mean nothing and are not read";
}

}  // namespace
}  // namespace nnremote::hal
