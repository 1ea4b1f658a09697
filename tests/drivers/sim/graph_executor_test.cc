// The executor's own decisions: which operations an execution must check again, and that one
// it must check is checked with the values only the execution knows.
#include "drivers/sim/graph_executor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "drivers/sim/sim_device.h"
#include "hal/model_builder.h"

namespace nnremote::sim {
namespace {

using hal::OperandType;
using hal::OperationType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr OperandType kFloat = OperandType::TENSOR_FLOAT32;

TEST(SettledOperationsTest, FullyKnownShapesAndConstantParametersAreSettled) {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(kFloat, {2});
  const uint32_t c = b.addInput(kFloat, {2});
  const uint32_t sum = b.addTemporary(kFloat, {2});
  const uint32_t out = b.addOutput(kFloat, {2});
  b.addOperation(OperationType::ADD, {a, c, b.addInt32(0)}, {sum});
  b.addOperation(OperationType::RELU, {sum}, {out});
  EXPECT_THAT(operationsSettledAtPreparation(b.build()), ElementsAre(true, true));
}

TEST(SettledOperationsTest, AnInputOfUnknownShapeIsCheckedAtEveryExecution) {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(kFloat, {0});
  const uint32_t sum = b.addTemporary(kFloat, {0});
  const uint32_t out = b.addOutput(kFloat, {2});
  b.addOperation(OperationType::ADD, {a, a, b.addInt32(0)}, {sum});
  b.addOperation(OperationType::RELU, {sum}, {out});
  EXPECT_THAT(operationsSettledAtPreparation(b.build()), ElementsAre(false, false));
}

// A fused activation that is a model input: preparation cannot see it, so the kernel's check
// of its value must run when the execution brings it.
hal::Model addWithActivationInput() {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(kFloat, {2});
  const uint32_t activation = b.addInput(OperandType::INT32, {});
  const uint32_t out = b.addOutput(kFloat, {2});
  b.addOperation(OperationType::ADD, {a, a, activation}, {out});
  return b.build();
}

TEST(SettledOperationsTest, AParameterKnownOnlyAtExecutionIsCheckedThen) {
  const hal::Model model = addWithActivationInput();
  EXPECT_THAT(operationsSettledAtPreparation(model), ElementsAre(false));

  auto device = SimDevice::create(edgeNpuConfig());
  auto prepared = device->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                                       std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto run = [&](int32_t activation) {
    auto io = hal::makeRequest({hal::toBytes<float>({-1, 2}), hal::toBytes<int32_t>({activation})}, {8});
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    return std::make_pair(std::move(outcome), hal::fromMemory<float>(io->outputs[0], 2));
  };
  auto [relu, values] = run(1);
  ASSERT_TRUE(relu.ok()) << relu.error().message;
  EXPECT_THAT(values, ElementsAre(0, 4));
  auto [invalid, unused] = run(7);
  ASSERT_FALSE(invalid.ok());
  // A valid request whose value the operation cannot run with: the execution fails.
  EXPECT_EQ(invalid.error().code, hal::ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(invalid.error().message, HasSubstr("7"));
}

// A branch for IF: RELU of a float32 [2].
hal::Model reluBranch() {
  hal::ModelBuilder branch;
  const uint32_t in = branch.addInput(kFloat, {2});
  const uint32_t out = branch.addOutput(kFloat, {2});
  branch.addOperation(OperationType::RELU, {in}, {out});
  return branch.build();
}

TEST(SettledOperationsTest, ControlFlowIsCheckedAtEveryExecution) {
  const hal::Model callee = reluBranch();

  hal::ModelBuilder b;
  const uint32_t condition = b.addInput(OperandType::TENSOR_BOOL8, {1});
  const uint32_t x = b.addInput(kFloat, {2});
  const uint32_t y = b.addOutput(kFloat, {2});
  const uint32_t thenBranch = b.addSubgraph(callee);
  const uint32_t elseBranch = b.addSubgraph(callee);
  b.addOperation(OperationType::IF, {condition, thenBranch, elseBranch, x}, {y});
  EXPECT_THAT(operationsSettledAtPreparation(b.build()), ElementsAre(false));
}

// An IF whose condition is omitted (the CTS's if_no_value) prepares, and its execution fails
// saying so, not that the condition, of dimensions [1], should have one element.
TEST(ControlFlowTest, AnOmittedConditionFailsTheExecutionSayingSo) {
  const hal::Model callee = reluBranch();
  hal::ModelBuilder b;
  const uint32_t condition = b.addNoValue(OperandType::TENSOR_BOOL8);
  const uint32_t x = b.addInput(kFloat, {2});
  const uint32_t y = b.addOutput(kFloat, {2});
  b.addOperation(OperationType::IF, {condition, b.addSubgraph(callee), b.addSubgraph(callee), x}, {y});
  auto prepared = SimDevice::create(edgeNpuConfig())
                      ->prepareModel(b.build(), hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                                     std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({-1, 2})}, {8});
  ASSERT_TRUE(io.ok());
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(outcome.ok());
  EXPECT_THAT(outcome.error().message, HasSubstr("the condition has no value (it is omitted)"));
}

// ADD with the constant activation 7, which no kernel takes: valid, but not runnable.
hal::Model addWithBadConstantActivation() {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(kFloat, {2});
  const uint32_t out = b.addOutput(kFloat, {2});
  b.addOperation(OperationType::ADD, {a, a, b.addInt32(7)}, {out});
  return b.build();
}

TEST(SettledOperationsTest, AnOperationItsKernelRefusesIsNeverSettled) {
  EXPECT_THAT(operationsSettledAtPreparation(addWithBadConstantActivation()), ElementsAre(false));
}

TEST(SimDeviceRoleTest, ADriverRefusesWhatItCannotRunAndTheCpuFallbackFailsItWhenItRuns) {
  const hal::Model model = addWithBadConstantActivation();
  auto driver = SimDevice::create(edgeNpuConfig());
  auto supported = driver->getSupportedOperations(model);
  ASSERT_TRUE(supported.ok()) << supported.error().message;
  EXPECT_THAT(*supported, ElementsAre(false));
  auto refused = driver->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                                      std::nullopt, {}, {}, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, hal::ErrorStatus::INVALID_ARGUMENT);

  auto cpu = SimDevice::create(edgeNpuConfig(), hal::randomCacheSecret(), SimDevice::Role::kCpuFallback);
  supported = cpu->getSupportedOperations(model);
  ASSERT_TRUE(supported.ok()) << supported.error().message;
  EXPECT_THAT(*supported, ElementsAre(true));
  auto prepared = cpu->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                                    std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({-1, 2})}, {8});
  ASSERT_TRUE(io.ok());
  for (int i = 0; i < 2; ++i) {  // and at every execution, not only the first
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    ASSERT_FALSE(outcome.ok());
    EXPECT_EQ(outcome.error().code, hal::ErrorStatus::GENERAL_FAILURE);
    EXPECT_THAT(outcome.error().message, HasSubstr("7"));
  }
}

TEST(SimDeviceRoleTest, NoRoleAllocatesABufferOfUnknownSize) {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(kFloat, {0});
  const uint32_t out = b.addOutput(kFloat, {0});
  b.addOperation(OperationType::RELU, {a}, {out});
  const hal::Model model = b.build();
  for (const SimDevice::Role role : {SimDevice::Role::kDriver, SimDevice::Role::kCpuFallback}) {
    auto device = SimDevice::create(edgeNpuConfig(), hal::randomCacheSecret(), role);
    auto prepared = device->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                                         std::nullopt, {}, {}, {});
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    auto buffer = device->allocate({}, {*prepared}, {}, {{0, 0, 1.0f}});
    ASSERT_FALSE(buffer.ok());
    EXPECT_EQ(buffer.error().code, hal::ErrorStatus::GENERAL_FAILURE);
    EXPECT_THAT(buffer.error().message, HasSubstr("unknown dimensions"));
    // The descriptor's dimensions complete the roles' shape.
    EXPECT_TRUE(device->allocate({{3}}, {*prepared}, {}, {{0, 0, 1.0f}}).ok());
  }
}

}  // namespace
}  // namespace nnremote::sim
