// Partitioning a model across devices (runtime/partitioning.h, partitioned_prepared_model.h):
// a device that supports only some operation types runs its part, nnapi-reference the rest, and
// the outputs are those of the whole model on one device. The devices are in process, so each
// case is small and exact; c_api_partitioning_test runs the conformance set this way on Arm NN.
#include <android/NeuralNetworks.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "drivers/sim/sim_device.h"
#include "hal/model_builder.h"
#include "runtime/compilation.h"
#include "runtime/devices.h"
#include "runtime/partitioned_prepared_model.h"
#include "tests/common/scripted_device.h"

namespace nnremote::runtime {
namespace {

using hal::OperandType;
using hal::OperationType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr OperandType kFloat = OperandType::TENSOR_FLOAT32;

// The simulator as `name`, claiming not to support `refused` operation types (and refusing to
// prepare them, as a bad argument).
hal::SharedDevice partialDevice(const std::set<OperationType>& refused, const std::string& name = "partial",
                                testing::DeviceScript::Shapes shapes = testing::DeviceScript::Shapes::kComputed) {
  testing::DeviceScript script{name, refused, {}};
  script.shapesOnSuccess = shapes;
  for (OperationType type : refused) script.failsToPrepare[type] = hal::ErrorStatus::INVALID_ARGUMENT;
  return std::make_shared<testing::ScriptedDevice>(sim::SimDevice::create(sim::edgeNpuConfig()), std::move(script));
}

struct Devices {
  explicit Devices(std::set<OperationType> refused,
                   testing::DeviceScript::Shapes shapes = testing::DeviceScript::Shapes::kComputed)
      : partial{partialDevice(refused, "partial", shapes), nullptr, false},
        reference{makeReferenceDevice(), nullptr, true} {}
  RuntimeDevice partial, reference;
};

// Runs `model` compiled over `devices` on `inputs`; the outputs' floats.
struct Outcome {
  int finished = ANEURALNETWORKS_OP_FAILED;
  std::vector<std::string> deviceNames;
  hal::Result<hal::ExecutionOutcome> outcome = hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "not run";
  std::vector<std::vector<float>> outputs;
};

Outcome runModel(const hal::Model& model, std::vector<const RuntimeDevice*> devices,
        const std::vector<std::vector<float>>& inputs, const std::vector<size_t>& outputCounts, bool onBurst = false) {
  Outcome result;
  Compilation compilation(model, std::move(devices), false);
  result.finished = compilation.finish();
  if (result.finished != ANEURALNETWORKS_NO_ERROR) return result;
  result.deviceNames = compilation.deviceNames();
  std::vector<std::vector<uint8_t>> bytes;
  for (const auto& input : inputs) bytes.push_back(hal::toBytes(input));
  std::vector<size_t> sizes;
  for (size_t count : outputCounts) sizes.push_back(count * sizeof(float));
  auto io = hal::makeRequest(bytes, sizes);
  if (!io.ok()) return result;
  if (onBurst) {
    auto burst = compilation.prepared()->configureExecutionBurst();
    if (!burst.ok()) return result;
    result.outcome = (*burst)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  } else {
    result.outcome = compilation.prepared()->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  }
  for (size_t i = 0; i < outputCounts.size(); ++i) result.outputs.push_back(hal::fromMemory<float>(io->outputs[i], outputCounts[i]));
  return result;
}

// x -> ADD(x, x) -> RELU -> ADD(r, r): the middle operation where the partial device refuses it.
hal::Model chain(std::vector<uint32_t> dimensions, std::vector<uint32_t> temporaryDimensions,
                 std::vector<uint32_t> outputDimensions = {}) {
  hal::ModelBuilder b;
  const uint32_t x = b.addInput(kFloat, dimensions);
  const uint32_t doubled = b.addTemporary(kFloat, temporaryDimensions);
  const uint32_t rectified = b.addTemporary(kFloat, temporaryDimensions);
  const uint32_t out = b.addOutput(kFloat, outputDimensions.empty() ? dimensions : outputDimensions);
  b.addOperation(OperationType::ADD, {x, x, b.addInt32(0)}, {doubled});
  b.addOperation(OperationType::RELU, {doubled}, {rectified});
  b.addOperation(OperationType::ADD, {rectified, rectified, b.addInt32(0)}, {out});
  return b.build();
}

// Also where the device answers its successes with no output shapes, which the HAL allows (the
// outputs were fully specified): the steps after it read the declared shapes.
TEST(PartitioningTest, WhatTheRemoteDeviceRefusesRunsOnTheReference) {
  for (const auto shapes : {testing::DeviceScript::Shapes::kComputed, testing::DeviceScript::Shapes::kNone}) {
    SCOPED_TRACE(shapes == testing::DeviceScript::Shapes::kNone ? "answering no shapes" : "answering shapes");
    Devices devices({OperationType::RELU}, shapes);
    const Outcome result = runModel(chain({4}, {4}), {&devices.partial, &devices.reference}, {{-1, 2, -3, 4}}, {4});
    ASSERT_EQ(result.finished, ANEURALNETWORKS_NO_ERROR);
    EXPECT_THAT(result.deviceNames, ElementsAre("partial", "nnapi-reference", "partial"));
    ASSERT_TRUE(result.outcome.ok()) << result.outcome.error().message;
    EXPECT_THAT(result.outputs[0], ElementsAre(0, 8, 0, 16));
    EXPECT_THAT(result.outcome->outputShapes[0].dimensions, ElementsAre(4));
  }
}

// A success whose shapes break the HAL's rules is the device's failure: the step fails, naming
// it, or runs on the CPU where the compilation may fall back.
TEST(PartitioningTest, AStepAnsweredWithBrokenOutputShapesIsItsDevicesFailure) {
  Devices devices({OperationType::RELU}, testing::DeviceScript::Shapes::kFirstInsufficient);
  Compilation chosen(chain({4}, {4}), {&devices.partial, &devices.reference}, /*explicitDevices=*/true);
  ASSERT_EQ(chosen.finish(), ANEURALNETWORKS_NO_ERROR);
  auto io = hal::makeRequest({hal::toBytes<float>({-1, 2, -3, 4})}, {4 * sizeof(float)});
  ASSERT_TRUE(io.ok());
  auto failed = chosen.prepared()->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, hal::ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(failed.error().message, HasSubstr("partition step 0 on partial"));
  EXPECT_THAT(failed.error().message, HasSubstr("output 0 marked insufficient"));

  const Outcome fellBack = runModel(chain({4}, {4}), {&devices.partial, &devices.reference}, {{-1, 2, -3, 4}}, {4});
  ASSERT_TRUE(fellBack.outcome.ok()) << fellBack.outcome.error().message;
  EXPECT_THAT(fellBack.outputs[0], ElementsAre(0, 8, 0, 16));
}

TEST(PartitioningTest, AModelOneRemoteDeviceSupportsWholeIsNotPartitioned) {
  Devices devices({OperationType::FLOOR});
  Compilation compilation(chain({4}, {4}), {&devices.partial, &devices.reference}, false);
  ASSERT_EQ(compilation.finish(), ANEURALNETWORKS_NO_ERROR);
  EXPECT_THAT(compilation.deviceNames(), ElementsAre("partial"));
  EXPECT_EQ(dynamic_cast<const PartitionedPreparedModel*>(compilation.prepared().get()), nullptr);
}

TEST(PartitioningTest, ATensorOfUnknownShapeBetweenStepsGetsTheSpaceItNeeds) {
  Devices devices({OperationType::RELU});
  std::vector<float> x(300), expected(300);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = float(i % 7) - 3;
    expected[i] = std::max(0.0f, 2 * x[i]) * 2;
  }
  // 300 floats between the steps, declared of unknown size: the first buffer is too small.
  const Outcome result = runModel(chain({300}, {0}), {&devices.partial, &devices.reference}, {x}, {300});
  ASSERT_EQ(result.finished, ANEURALNETWORKS_NO_ERROR);
  EXPECT_EQ(result.deviceNames.size(), 3u);
  ASSERT_TRUE(result.outcome.ok()) << result.outcome.error().message;
  EXPECT_EQ(result.outputs[0], expected);
}

// op0 RELU(x) -> t (partial), op1 FLOOR(x) -> out1 (reference), op2 ABS(t) -> out0 (partial): op2
// does not wait for op1, so the partial device's operations make one step.
hal::Model branches() {
  hal::ModelBuilder b;
  const uint32_t x = b.addInput(kFloat, {3});
  const uint32_t t = b.addTemporary(kFloat, {3});
  const uint32_t out0 = b.addOutput(kFloat, {3});
  const uint32_t out1 = b.addOutput(kFloat, {3});
  b.addOperation(OperationType::RELU, {x}, {t});
  b.addOperation(OperationType::FLOOR, {x}, {out1});
  b.addOperation(OperationType::ABS, {t}, {out0});
  return b.build();
}

TEST(PartitioningTest, OperationsOfOneDeviceThatCanRunTogetherAreOneStep) {
  Devices devices({OperationType::FLOOR});
  const Outcome result = runModel(branches(), {&devices.partial, &devices.reference}, {{-1.5f, 0.5f, 2.5f}}, {3, 3});
  ASSERT_EQ(result.finished, ANEURALNETWORKS_NO_ERROR);
  EXPECT_THAT(result.deviceNames, ElementsAre("partial", "nnapi-reference"));
  ASSERT_TRUE(result.outcome.ok()) << result.outcome.error().message;
  EXPECT_THAT(result.outputs[0], ElementsAre(0, 0.5f, 2.5f));
  EXPECT_THAT(result.outputs[1], ElementsAre(-2, 0, 2));
}

// A model output that a later step on another device also reads.
TEST(PartitioningTest, AModelOutputReadByALaterStepIsReadFromTheOutputBuffer) {
  hal::ModelBuilder b;
  const uint32_t x = b.addInput(kFloat, {2});
  const uint32_t first = b.addOutput(kFloat, {2});
  const uint32_t second = b.addOutput(kFloat, {2});
  b.addOperation(OperationType::FLOOR, {x}, {first});
  b.addOperation(OperationType::ADD, {first, first, b.addInt32(0)}, {second});
  Devices devices({OperationType::FLOOR});
  const Outcome result = runModel(b.build(), {&devices.partial, &devices.reference}, {{1.5f, -0.5f}}, {2, 2}, true);
  ASSERT_EQ(result.finished, ANEURALNETWORKS_NO_ERROR);
  EXPECT_THAT(result.deviceNames, ElementsAre("nnapi-reference", "partial"));
  ASSERT_TRUE(result.outcome.ok()) << result.outcome.error().message;
  EXPECT_THAT(result.outputs[0], ElementsAre(1, -1));
  EXPECT_THAT(result.outputs[1], ElementsAre(2, -2));
}

TEST(PartitioningTest, AnOutputTooSmallIsReportedWithTheShapeItNeeds) {
  Devices devices({OperationType::RELU});
  // The output's size is known only at execution: the program's buffer may be too small.
  const Outcome result = runModel(chain({4}, {4}, {0}), {&devices.partial, &devices.reference}, {{1, 2, 3, 4}}, {2});
  ASSERT_EQ(result.finished, ANEURALNETWORKS_NO_ERROR);
  ASSERT_FALSE(result.outcome.ok());
  EXPECT_EQ(result.outcome.error().code, hal::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE);
  ASSERT_EQ(result.outcome.error().outputShapes.size(), 1u);
  EXPECT_THAT(result.outcome.error().outputShapes[0].dimensions, ElementsAre(4));
  EXPECT_FALSE(result.outcome.error().outputShapes[0].isSufficient);
}

// As Android's IntrospectionControlTest.ModelNeedTwoDevices: devices the program chose that
// together support the model run it partitioned between them, without nnapi-reference.
TEST(PartitioningTest, TwoChosenDevicesThatTogetherSupportAModelRunItBetweenThem) {
  const RuntimeDevice noRelu{partialDevice({OperationType::RELU}, "no-relu"), nullptr, false};
  const RuntimeDevice noAdd{partialDevice({OperationType::ADD}, "no-add"), nullptr, false};
  Compilation compilation(chain({4}, {4}), {&noRelu, &noAdd}, /*explicitDevices=*/true);
  ASSERT_EQ(compilation.finish(), ANEURALNETWORKS_NO_ERROR);
  EXPECT_THAT(compilation.deviceNames(), ElementsAre("no-relu", "no-add", "no-relu"));
  auto io = hal::makeRequest({hal::toBytes<float>({-1, 2, -3, 4})}, {4 * sizeof(float)});
  ASSERT_TRUE(io.ok());
  auto outcome = compilation.prepared()->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_THAT(hal::fromMemory<float>(io->outputs[0], 4), ElementsAre(0, 8, 0, 16));
}

TEST(PartitioningTest, WithoutTheReferenceAnOperationNoDeviceSupportsIsRefused) {
  Devices devices({OperationType::RELU});
  Compilation compilation(chain({4}, {4}), {&devices.partial}, true);
  EXPECT_EQ(compilation.finish(), ANEURALNETWORKS_BAD_DATA);
  EXPECT_FALSE(compilation.usable());
}

}  // namespace
}  // namespace nnremote::runtime
