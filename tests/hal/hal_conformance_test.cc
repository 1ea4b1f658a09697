// The HAL conformance suite: one set of tests, run on every device factory (the simulator in
// process, and the simulator behind npu_emulator through the proxy driver). Both must give
// the same answers, including the same errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "hal/i_device.h"
#include "hal/model_builder.h"
#include "hal/operand_types.h"
#include "tests/common/control_flow_models.h"
#include "tests/hal/device_factories.h"

namespace nnremote::testing {
namespace {

using hal::ErrorStatus;
using hal::OperandType;
using hal::OperationType;
using ::testing::HasSubstr;

constexpr OperandType kFloat = OperandType::TENSOR_FLOAT32;

void expectInvalid(const hal::Status& status, const std::string& field);

class HalConformanceTest : public ::testing::TestWithParam<DeviceFactory> {
 protected:
  void SetUp() override { dut_ = GetParam().create(); }
  const hal::IDevice& device() const { return *dut_.device; }

  hal::Result<hal::SharedPreparedModel> prepare(const hal::Model& model) const {
    return device().prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                 hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  }

  DeviceUnderTest dut_;
};

// out = a + b with a [2, 2] and b [2] broadcast, and a fused activation.
hal::Model addModel(int32_t activation = 0) {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(kFloat, {2, 2});
  const uint32_t c = b.addInput(kFloat, {2});
  const uint32_t out = b.addOutput(kFloat, {2, 2});
  b.addOperation(OperationType::ADD, {a, c, b.addInt32(activation)}, {out});
  return b.build();
}

// A 1x3x3x1 image, one 2x2 filter, VALID padding, stride 1.
hal::Model convModel() {
  hal::ModelBuilder b;
  const uint32_t image = b.addInput(kFloat, {1, 3, 3, 1});
  const uint32_t filter = b.addConstant(kFloat, {1, 2, 2, 1}, std::vector<float>{1, 2, 3, 4});
  const uint32_t bias = b.addConstant(kFloat, {1}, std::vector<float>{0.5f});
  const uint32_t out = b.addOutput(kFloat, {1, 2, 2, 1});
  b.addOperation(OperationType::CONV_2D,
                 {image, filter, bias, b.addInt32(2), b.addInt32(1), b.addInt32(1), b.addInt32(0)},
                 {out});
  return b.build();
}

TEST_P(HalConformanceTest, DescribesItself) {
  EXPECT_TRUE(std::regex_match(device().getName(), std::regex("[A-Za-z0-9_]+-[A-Za-z0-9_]+")))
      << device().getName() << " does not follow {VENDOR}-{DEVICE_NAME}";
  EXPECT_EQ(device().getType(), hal::DeviceType::ACCELERATOR);
  EXPECT_EQ(device().getFeatureLevel(), hal::Version::FEATURE_LEVEL_7);
  EXPECT_FALSE(device().getVersionString().empty());
  const auto& performance = device().getCapabilities().operandPerformance;
  ASSERT_FALSE(performance.empty());
  for (size_t i = 1; i < performance.size(); ++i) {
    EXPECT_LT(performance[i - 1].type, performance[i].type) << "operandPerformance must be sorted";
  }
  EXPECT_EQ(device().getNumberOfCacheFilesNeeded(), std::make_pair(1u, 1u));
}

TEST_P(HalConformanceTest, ReportsSupportedOperationsTruthfully) {
  hal::ModelBuilder b;
  const uint32_t x = b.addInput(kFloat, {1, 4});
  const uint32_t relu = b.addTemporary(kFloat, {1, 4});
  b.addOperation(OperationType::RELU, {x}, {relu});
  const uint32_t projected = b.addOutput(kFloat, {1, 4});
  // OEM_OPERATION is valid HAL (its meaning is the vendor's) and the simulator does not run it.
  b.addOperation(OperationType::OEM_OPERATION, {relu}, {projected});
  auto supported = device().getSupportedOperations(b.build());
  ASSERT_TRUE(supported.ok()) << supported.error().message;
  EXPECT_EQ(*supported, (std::vector<bool>{true, false}));
}

TEST_P(HalConformanceTest, ReportsUnimplementedParameterCombinationsUnsupported) {
  // A layout flag that arrives with the request is valid HAL, but the simulator must know the
  // layout when it prepares the model.
  hal::ModelBuilder b;
  const uint32_t image = b.addInput(kFloat, {1, 3, 3, 1});
  const uint32_t filter = b.addConstant(kFloat, {1, 2, 2, 1}, std::vector<float>{1, 2, 3, 4});
  const uint32_t bias = b.addConstant(kFloat, {1}, std::vector<float>{0});
  const uint32_t layout = b.addInput(OperandType::BOOL, {});
  const uint32_t out = b.addOutput(kFloat, {1, 2, 2, 1});
  b.addOperation(OperationType::CONV_2D,
                 {image, filter, bias, b.addInt32(2), b.addInt32(1), b.addInt32(1), b.addInt32(0), layout},
                 {out});
  auto supported = device().getSupportedOperations(b.build());
  ASSERT_TRUE(supported.ok()) << supported.error().message;
  EXPECT_EQ(*supported, (std::vector<bool>{false}));
  auto prepared = prepare(b.build());
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.error().code, ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(prepared.error().message, HasSubstr("layout flag (input 7) must be a constant"));
}

TEST_P(HalConformanceTest, RunsNchwAndFloat16Variants) {
  // A 1x1 convolution in NCHW mixing two channels: out = ch0 + 10 * ch1.
  hal::ModelBuilder b;
  const uint32_t image = b.addInput(kFloat, {1, 2, 2, 2});
  const uint32_t filter = b.addConstant(kFloat, {1, 1, 1, 2}, std::vector<float>{1, 10});
  const uint32_t bias = b.addConstant(kFloat, {1}, std::vector<float>{0});
  const uint32_t out = b.addOutput(kFloat, {1, 1, 2, 2});
  b.addOperation(OperationType::CONV_2D,
                 {image, filter, bias, b.addInt32(2), b.addInt32(1), b.addInt32(1), b.addInt32(0),
                  b.addBool(true)},
                 {out});
  auto conv = prepare(b.build());
  ASSERT_TRUE(conv.ok()) << conv.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2, 3, 4, 5, 6, 7, 8})}, {16});
  ASSERT_TRUE((*conv)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 4), (std::vector<float>{51, 62, 73, 84}));

  hal::ModelBuilder h;
  const uint32_t x = h.addInput(OperandType::TENSOR_FLOAT16, {2});
  const uint32_t y = h.addInput(OperandType::TENSOR_FLOAT16, {2});
  const uint32_t sum = h.addOutput(OperandType::TENSOR_FLOAT16, {2});
  h.addOperation(OperationType::ADD, {x, y, h.addInt32(0)}, {sum});
  auto add = prepare(h.build());
  ASSERT_TRUE(add.ok()) << add.error().message;
  // 1.5 + 0.25 = 1.75 and 2.25 + 1 = 3.25, exact in binary16.
  auto halves = hal::makeRequest({hal::toBytes<uint16_t>({0x3e00, 0x4080}), hal::toBytes<uint16_t>({0x3400, 0x3c00})}, {4});
  ASSERT_TRUE((*add)->execute(halves->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  EXPECT_EQ(hal::fromMemory<uint16_t>(halves->outputs[0], 2), (std::vector<uint16_t>{0x3f00, 0x4280}));
}

TEST_P(HalConformanceTest, ExecutesAddWithBroadcastAndActivation) {
  auto prepared = prepare(addModel(/*RELU=*/1));
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({1, -2, 3, -4}), hal::toBytes<float>({10, 1})},
                             {16});
  ASSERT_TRUE(io.ok());
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 4), (std::vector<float>{11, 0, 13, 0}));
  ASSERT_EQ(outcome->outputShapes.size(), 1u);
  EXPECT_EQ(outcome->outputShapes[0].dimensions, (std::vector<uint32_t>{2, 2}));
  EXPECT_TRUE(outcome->outputShapes[0].isSufficient);
}

TEST_P(HalConformanceTest, ExecutesConvolution) {
  auto prepared = prepare(convModel());
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2, 3, 4, 5, 6, 7, 8, 9})}, {16});
  ASSERT_TRUE(io.ok());
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  // 1*1+2*2+3*4+4*5 = 37, +0.5 bias; then 1*2+2*3+3*5+4*6 = 47, and so on.
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 4), (std::vector<float>{37.5, 47.5, 67.5, 77.5}));
}

TEST_P(HalConformanceTest, ReportsTimingOnlyWhenAskedAndDriverTimeCoversDeviceTime) {
  auto prepared = prepare(convModel());
  ASSERT_TRUE(prepared.ok());
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2, 3, 4, 5, 6, 7, 8, 9})}, {16});
  auto timed = (*prepared)->execute(io->request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
  ASSERT_TRUE(timed.ok());
  ASSERT_TRUE(timed->timing.timeOnDevice.has_value());
  ASSERT_TRUE(timed->timing.timeInDriver.has_value());
  EXPECT_GT(timed->timing.timeOnDevice->count(), 0);
  EXPECT_GE(*timed->timing.timeInDriver, *timed->timing.timeOnDevice);
  auto untimed = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(untimed.ok());
  EXPECT_FALSE(untimed->timing.timeOnDevice.has_value());
  EXPECT_FALSE(untimed->timing.timeInDriver.has_value());
}

TEST_P(HalConformanceTest, ResolvesUnknownOutputShapeAndReportsInsufficientSize) {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(kFloat, {2, 3});
  const uint32_t c = b.addInput(kFloat, {3});
  const uint32_t out = b.addOutput(kFloat, {0, 0});  // dimensions left to the execution
  b.addOperation(OperationType::MUL, {a, c, b.addInt32(0)}, {out});
  auto prepared = prepare(b.build());
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;

  auto small = hal::makeRequest({hal::toBytes<float>({1, 2, 3, 4, 5, 6}), hal::toBytes<float>({1, 2, 3})},
                                {8});
  auto tooSmall = (*prepared)->execute(small->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(tooSmall.ok());
  EXPECT_EQ(tooSmall.error().code, ErrorStatus::OUTPUT_INSUFFICIENT_SIZE);
  ASSERT_EQ(tooSmall.error().outputShapes.size(), 1u);
  EXPECT_EQ(tooSmall.error().outputShapes[0].dimensions, (std::vector<uint32_t>{2, 3}));
  EXPECT_FALSE(tooSmall.error().outputShapes[0].isSufficient);
  EXPECT_EQ(hal::fromMemory<float>(small->outputs[0], 2), (std::vector<float>{0, 0}))
      << "nothing may be written when an output does not fit";

  auto enough = hal::makeRequest({hal::toBytes<float>({1, 2, 3, 4, 5, 6}), hal::toBytes<float>({1, 2, 3})},
                                 {24});
  auto outcome = (*prepared)->execute(enough->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(outcome->outputShapes[0].dimensions, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(hal::fromMemory<float>(enough->outputs[0], 6), (std::vector<float>{1, 4, 9, 4, 10, 18}));
}

TEST_P(HalConformanceTest, ExecutesQuantizedFullyConnected) {
  constexpr OperandType kQuant = OperandType::TENSOR_QUANT8_ASYMM;
  hal::ModelBuilder b;
  const uint32_t input = b.addInput(kQuant, {1, 3}, 0.5f, 10);
  const uint32_t weights =
      b.addConstant(kQuant, {2, 3}, std::vector<uint8_t>{12, 14, 16, 10, 8, 10}, 0.5f, 10);
  const uint32_t bias = b.addConstant(OperandType::TENSOR_INT32, {2}, std::vector<int32_t>{4, -4}, 0.25f);
  const uint32_t out = b.addOutput(kQuant, {1, 2}, 1.0f, 100);
  b.addOperation(OperationType::FULLY_CONNECTED, {input, weights, bias, b.addInt32(0)}, {out});
  auto prepared = prepare(b.build());
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  // Real input [1, 2, 3]; weights [[1, 2, 3], [0, -1, 0]]; bias [1, -1].
  auto io = hal::makeRequest({std::vector<uint8_t>{12, 14, 16}}, {2});
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  // [1+4+9+1, -2-1] = [15, -3] -> quantized with scale 1, zero point 100.
  EXPECT_EQ(hal::fromMemory<uint8_t>(io->outputs[0], 2), (std::vector<uint8_t>{115, 97}));
}

TEST_P(HalConformanceTest, ReusableExecutionBurstAndFencedExecutionAgree) {
  auto prepared = prepare(addModel());
  ASSERT_TRUE(prepared.ok());
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2, 3, 4}), hal::toBytes<float>({1, 1})}, {16});
  const std::vector<float> expected{2, 3, 4, 5};

  // A request that does not fit the model is refused when the reusable execution is created.
  hal::Request wrong = io->request;
  wrong.inputs[0].dimensions = {5};
  auto refused = (*prepared)->createReusableExecution(wrong, hal::MeasureTiming::NO, std::nullopt);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorStatus::INVALID_ARGUMENT);

  auto execution = (*prepared)->createReusableExecution(io->request, hal::MeasureTiming::NO, std::nullopt);
  ASSERT_TRUE(execution.ok()) << execution.error().message;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE((*execution)->compute(std::nullopt).ok());
    EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 4), expected);
  }
  auto burst = (*prepared)->configureExecutionBurst();
  ASSERT_TRUE(burst.ok());
  auto hold = (*burst)->cacheMemory(io->inputs[0]);
  ASSERT_TRUE((*burst)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());

  auto fence = hal::SyncFence::create();
  fence.signal();
  auto fenced = (*prepared)->executeFenced(io->request, {fence}, hal::MeasureTiming::YES,
                                           std::nullopt, std::nullopt, std::nullopt);
  ASSERT_TRUE(fenced.ok()) << fenced.error().message;
  EXPECT_EQ(fenced->first.wait(std::chrono::seconds(10)), hal::SyncFence::State::SIGNALED);
  auto info = fenced->second();
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->first.timeOnDevice.has_value());
  // HAL 1.3: timingLaunched counts from the call, timingFenced from the fences' signaling.
  ASSERT_TRUE(info->first.timeInDriver.has_value() && info->second.timeInDriver.has_value());
  EXPECT_GE(*info->first.timeInDriver, *info->second.timeInDriver);

  auto errored = hal::SyncFence::create();
  errored.signal(/*error=*/true);
  auto failed = (*prepared)->executeFenced(io->request, {errored}, hal::MeasureTiming::NO,
                                           std::nullopt, std::nullopt, std::nullopt);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, ErrorStatus::GENERAL_FAILURE);
}

TEST_P(HalConformanceTest, MissedDeadlinesAreReported) {
  const auto past = hal::Clock::now() - std::chrono::milliseconds(1);
  auto prepared = device().prepareModel(addModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                        hal::Priority::MEDIUM, past, {}, {}, {});
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.error().code, ErrorStatus::MISSED_DEADLINE_PERSISTENT);

  auto ready = prepare(addModel());
  ASSERT_TRUE(ready.ok());
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2, 3, 4}), hal::toBytes<float>({1, 1})}, {16});
  auto outcome = (*ready)->execute(io->request, hal::MeasureTiming::NO, past, std::nullopt);
  ASSERT_FALSE(outcome.ok());
  EXPECT_TRUE(outcome.error().code == ErrorStatus::MISSED_DEADLINE_TRANSIENT ||
              outcome.error().code == ErrorStatus::MISSED_DEADLINE_PERSISTENT);
}

TEST_P(HalConformanceTest, AnOperationThatCannotRunOnTheShapesItMeetsFailsTheExecution) {
  // The model and the request are valid (an input of unspecified shape), but [3] and [2] cannot be
  // broadcast: a failure of the execution (GENERAL_FAILURE, Android's OP_FAILED), not a refusal.
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(kFloat, {0});
  const uint32_t c = b.addInput(kFloat, {2});
  const uint32_t out = b.addOutput(kFloat, {0});
  b.addOperation(OperationType::ADD, {a, c, b.addInt32(0)}, {out});
  auto prepared = prepare(b.build());
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2, 3}), hal::toBytes<float>({1, 1})}, {12});
  ASSERT_TRUE(io.ok());
  io->request.inputs[0].dimensions = {3};
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, ErrorStatus::GENERAL_FAILURE) << outcome.error().message;
  EXPECT_THAT(outcome.error().message, ::testing::HasSubstr("cannot be broadcast"));
  // The same prepared model still runs shapes that fit.
  io->request.inputs[0].dimensions = {2};
  io->request.inputs[0].location.length = 8;
  EXPECT_TRUE((*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
}

TEST_P(HalConformanceTest, TheFarthestDeadlineNeverComes) {
  // TimePoint::max() is what Android's runtime passes for a timeout too long for its clock.
  const hal::TimePoint never = hal::TimePoint::max();
  auto prepared = device().prepareModel(addModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                                        never, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2, 3, 4}), hal::toBytes<float>({1, 1})}, {16});
  const std::vector<float> expected{2, 3, 4, 5};
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, never, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 4), expected);

  auto execution = (*prepared)->createReusableExecution(io->request, hal::MeasureTiming::NO, std::nullopt);
  ASSERT_TRUE(execution.ok()) << execution.error().message;
  auto computed = (*execution)->compute(never);
  EXPECT_TRUE(computed.ok()) << computed.error().message;
  auto burst = (*prepared)->configureExecutionBurst();
  ASSERT_TRUE(burst.ok());
  auto bursted = (*burst)->execute(io->request, hal::MeasureTiming::NO, never, std::nullopt);
  EXPECT_TRUE(bursted.ok()) << bursted.error().message;

  auto fenced = (*prepared)->executeFenced(io->request, {hal::SyncFence::createAsSignaled()}, hal::MeasureTiming::NO,
                                           never, std::nullopt, hal::Duration::max());
  ASSERT_TRUE(fenced.ok()) << fenced.error().message;
  EXPECT_EQ(fenced->first.wait(std::chrono::seconds(10)), hal::SyncFence::State::SIGNALED);
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 4), expected);
}

TEST_P(HalConformanceTest, IfRunsTheBranchTheConditionPicks) {
  auto prepared = prepare(ifModel());
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  for (const auto& [condition, expected] : {std::pair{uint8_t{1}, 11.0f}, std::pair{uint8_t{0}, 9.0f}}) {
    auto io = hal::makeRequest({{condition}, hal::toBytes<float>({10})}, {4});
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 1)[0], expected) << "condition " << int(condition);
  }
}

TEST_P(HalConformanceTest, WhileLoopsUntilTheConditionFails) {
  auto prepared = prepare(whileModel());
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({0}), hal::toBytes<float>({0}), hal::toBytes<float>({4})}, {4, 4});
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 1)[0], 4.0f);
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[1], 1)[0], 1 + 2 + 3 + 4.0f);
  // A loop whose condition is false at once returns its inputs.
  auto none = hal::makeRequest({hal::toBytes<float>({7}), hal::toBytes<float>({5}), hal::toBytes<float>({4})}, {4, 4});
  ASSERT_TRUE((*prepared)->execute(none->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  EXPECT_EQ(hal::fromMemory<float>(none->outputs[1], 1)[0], 5.0f);
}

TEST_P(HalConformanceTest, AWhileThatRunsTooLongMissesItsLoopTimeout) {
  auto prepared = prepare(whileModel());
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({0}), hal::toBytes<float>({0}), hal::toBytes<float>({1e30f})}, {4, 4});
  const auto start = hal::Clock::now();
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::chrono::milliseconds(50));
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  EXPECT_THAT(outcome.error().message, HasSubstr("loop timeout"));
  EXPECT_LT(hal::Clock::now() - start, std::chrono::seconds(2)) << "the request's timeout, not the default, applies";
}

// OEM_OPERATION is valid NN HAL 1.3 but runs nowhere here: unsupported, and refused with a reason.
TEST_P(HalConformanceTest, TheOemOperationIsReportedUnsupportedAndRefused) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(OperandType::TENSOR_OEM_BYTE, {4});
  const uint32_t out = b.addOutput(OperandType::TENSOR_OEM_BYTE, {4});
  b.addOperation(OperationType::OEM_OPERATION, {in}, {out});
  auto supported = device().getSupportedOperations(b.build());
  ASSERT_TRUE(supported.ok()) << supported.error().message;
  EXPECT_EQ(*supported, std::vector<bool>{false});
  auto prepared = prepare(b.build());
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.error().code, ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(prepared.error().message, HasSubstr("OEM_OPERATION is not supported"));
}

TEST_P(HalConformanceTest, PreparingFromNoCacheFilesIsRefusedClearly) {
  auto fromCache = device().prepareModelFromCache(std::nullopt, {}, {}, {});
  ASSERT_FALSE(fromCache.ok());
  EXPECT_EQ(fromCache.error().code, ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(fromCache.error().message, HasSubstr("model_cache has 0 handles; this device needs 1"));
}

// ---- Memory domains -------------------------------------------------------------------------

hal::Model reluModel(OperandType type, std::vector<uint32_t> dims, float scale = 0.0f, int32_t zeroPoint = 0) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(type, dims, scale, zeroPoint);
  const uint32_t out = b.addOutput(type, dims, scale, zeroPoint);
  b.addOperation(OperationType::RELU, {in}, {out});
  return b.build();
}

TEST_P(HalConformanceTest, DeviceBuffersCarryInputsAndOutputs) {
  auto prepared = prepare(addModel());
  ASSERT_TRUE(prepared.ok());
  auto in = device().allocate({{2, 2}}, {*prepared}, {{0, 0, 1.0f}}, {});
  auto out = device().allocate({}, {*prepared}, {}, {{0, 0, 1.0f}});
  ASSERT_TRUE(in.ok()) << in.error().message;
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_NE((*in)->getToken(), (*out)->getToken());
  ASSERT_TRUE((*in)->copyFrom(*hal::createHeapMemory(hal::toBytes<float>({1, 2, 3, 4})), {}).ok());

  auto bias = *hal::createHeapMemory(hal::toBytes<float>({10, 20}));
  hal::Request request;
  request.inputs = {{hal::Request::Argument::LifeTime::POOL, {nullptr, 0, 0, 0, 0}, {}},
                    {hal::Request::Argument::LifeTime::POOL, {nullptr, 1, 0, 8, 0}, {}}};
  request.outputs = {{hal::Request::Argument::LifeTime::POOL, {nullptr, 2, 0, 0, 0}, {}}};
  request.pools = {*in, bias, *out};
  auto outcome = (*prepared)->execute(request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  auto result = *hal::createHeapMemory(16);
  ASSERT_TRUE((*out)->copyTo(result).ok());
  EXPECT_EQ(hal::fromMemory<float>(result, 4), (std::vector<float>{11, 22, 13, 24}));

  // A buffer is only usable in the roles it was allocated for.
  hal::Request wrongRole = request;
  wrongRole.pools[0] = *out;
  auto refused = (*prepared)->execute(wrongRole, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error().message, HasSubstr("not allocated with a role for this input"));

  // A device buffer is used whole.
  hal::Request offset = request;
  offset.inputs[0].location.length = 16;
  expectInvalid((*prepared)->execute(offset, hal::MeasureTiming::NO, std::nullopt, std::nullopt).status(),
                "must have offset 0 and length 0 for device buffer pools[0]");
}

TEST_P(HalConformanceTest, MemoryDomainRolesAreValidated) {
  auto floats = prepare(reluModel(kFloat, {2, 2}));
  auto quant = prepare(reluModel(OperandType::TENSOR_QUANT8_ASYMM, {2, 2}, 0.5f, 0));
  auto otherScale = prepare(reluModel(OperandType::TENSOR_QUANT8_ASYMM, {2, 2}, 0.25f, 0));
  auto otherZero = prepare(reluModel(OperandType::TENSOR_QUANT8_ASYMM, {2, 2}, 0.5f, 3));
  auto otherDims = prepare(reluModel(kFloat, {2, 3}));
  ASSERT_TRUE(floats.ok() && quant.ok() && otherScale.ok() && otherZero.ok() && otherDims.ok());
  auto refuse = [&](const hal::BufferDesc& desc, const std::vector<hal::SharedPreparedModel>& models,
                    const std::vector<hal::BufferRole>& inputs, const std::vector<hal::BufferRole>& outputs,
                    const std::string& text) {
    auto buffer = device().allocate(desc, models, inputs, outputs);
    ASSERT_FALSE(buffer.ok()) << "expected: " << text;
    EXPECT_EQ(buffer.error().code, ErrorStatus::INVALID_ARGUMENT);
    EXPECT_THAT(buffer.error().message, HasSubstr(text));
  };
  refuse({}, {*floats}, {}, {}, "at least one input or output role");
  refuse({}, {nullptr}, {{0, 0, 1.0f}}, {}, "modelIndex = 0 does not name");
  refuse({}, {*floats}, {{1, 0, 1.0f}}, {}, "modelIndex = 1 does not name");
  refuse({}, {*floats}, {{0, 5, 1.0f}}, {}, "ioIndex = 5 is out of range");
  refuse({}, {*floats}, {}, {{0, 1, 1.0f}}, "ioIndex = 1 is out of range");
  refuse({}, {*floats}, {{0, 0, 0.0f}}, {}, "probability = 0 is not in (0, 1]");
  refuse({}, {*floats}, {{0, 0, 1.5f}}, {}, "probability = 1.5 is not in (0, 1]");
  refuse({}, {*floats}, {{0, 0, 1.0f}, {0, 0, 0.5f}}, {}, "repeats the role");
  refuse({}, {*floats, *quant}, {{0, 0, 1.0f}, {1, 0, 1.0f}}, {}, "conflicting with the buffer's other roles");
  refuse({}, {*quant, *otherScale}, {{0, 0, 1.0f}, {1, 0, 1.0f}}, {}, "conflicting with the buffer's other roles");
  refuse({}, {*quant, *otherZero}, {{0, 0, 1.0f}, {1, 0, 1.0f}}, {}, "conflicting with the buffer's other roles");
  refuse({{4}}, {*floats}, {{0, 0, 1.0f}}, {}, "conflicting rank");
  refuse({{3, 2}}, {*floats}, {{0, 0, 1.0f}}, {}, "conflicting dimensions");
  refuse({}, {*floats, *otherDims}, {{0, 0, 1.0f}, {1, 0, 1.0f}}, {}, "conflicting dimensions");

  // An input and an output role of matching operands share one buffer.
  auto shared = device().allocate({}, {*floats}, {{0, 0, 0.5f}}, {{0, 0, 0.5f}});
  ASSERT_TRUE(shared.ok()) << shared.error().message;

  // Uninitialized buffers cannot be read; sizes must match.
  auto blank = device().allocate({}, {*floats}, {{0, 0, 1.0f}}, {});
  ASSERT_TRUE(blank.ok());
  auto copied = (*blank)->copyTo(*hal::createHeapMemory(16));
  ASSERT_FALSE(copied.ok());
  EXPECT_EQ(copied.error().code, ErrorStatus::GENERAL_FAILURE);
  hal::Request request;
  request.inputs = {{hal::Request::Argument::LifeTime::POOL, {nullptr, 0, 0, 0, 0}, {}}};
  request.outputs = {{hal::Request::Argument::LifeTime::POOL, {nullptr, 1, 0, 16, 0}, {}}};
  request.pools = {*blank, *hal::createHeapMemory(16)};
  auto uninitialized = (*floats)->execute(request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(uninitialized.ok());
  EXPECT_EQ(uninitialized.error().code, ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(uninitialized.error().message, HasSubstr("read before anything was written"));
  auto wrongSize = (*blank)->copyFrom(*hal::createHeapMemory(12), {});
  ASSERT_FALSE(wrongSize.ok());
  EXPECT_EQ(wrongSize.error().code, ErrorStatus::INVALID_ARGUMENT);
  ASSERT_TRUE((*blank)->copyFrom(*hal::createHeapMemory(hal::toBytes<float>({-1, 2, -3, 4})), {}).ok());
  auto relu = (*floats)->execute(request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(relu.ok()) << relu.error().message;
  EXPECT_EQ(hal::fromMemory<float>(std::get<hal::SharedMemory>(request.pools[1]), 4), (std::vector<float>{0, 2, 0, 4}));
}

// ---- Malformed models and requests: INVALID_ARGUMENT naming the field ----------------------

void expectInvalid(const hal::Status& status, const std::string& field) {
  ASSERT_FALSE(status.ok()) << "expected a rejection mentioning " << field;
  EXPECT_EQ(status.error().code, ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(status.error().message, HasSubstr(field));
}

TEST_P(HalConformanceTest, RejectsOutOfRangeOperandIndex) {
  hal::Model model = addModel();
  model.main.operations[0].inputs[1] = 57;
  expectInvalid(prepare(model).status(), "main.operations[0].inputs[1] = 57 is out of range (model has 4 operands)");
  expectInvalid(device().getSupportedOperations(model).status(), "main.operations[0].inputs[1] = 57");
}

TEST_P(HalConformanceTest, RejectsWrongLifetime) {
  hal::Model model = addModel();
  model.main.operands[0].lifetime = hal::Operand::LifeTime::TEMPORARY_VARIABLE;  // an input
  expectInvalid(prepare(model).status(),
                "main.inputIndexes[0] = 0 names an operand with lifetime TEMPORARY_VARIABLE, "
                "expected SUBGRAPH_INPUT");
}

TEST_P(HalConformanceTest, RejectsOutOfRangePool) {
  hal::Model model = convModel();
  model.main.operands[1].lifetime = hal::Operand::LifeTime::CONSTANT_REFERENCE;
  model.main.operands[1].location.poolIndex = 3;
  expectInvalid(prepare(model).status(), "main.operands[1].location.poolIndex = 3 is out of range (model has 0 pools)");
}

TEST_P(HalConformanceTest, RejectsConstantOutsideOperandValues) {
  hal::Model model = convModel();
  model.main.operands[1].location.offset = 1u << 20;
  expectInvalid(prepare(model).status(), "main.operands[1].location");
}

TEST_P(HalConformanceTest, RejectsCycle) {
  // t1 = relu(t2); t2 = relu(t1): each operation reads what the other writes.
  hal::ModelBuilder b;
  const uint32_t input = b.addInput(kFloat, {2});
  const uint32_t t1 = b.addTemporary(kFloat, {2});
  const uint32_t t2 = b.addTemporary(kFloat, {2});
  const uint32_t out = b.addOutput(kFloat, {2});
  b.addOperation(OperationType::ADD, {t2, input, b.addInt32(0)}, {t1});
  b.addOperation(OperationType::RELU, {t1}, {t2});
  b.addOperation(OperationType::RELU, {t2}, {out});
  expectInvalid(prepare(b.build()).status(), "main.operations[0].inputs[0] = 2 is read before");
}

TEST_P(HalConformanceTest, RejectsReferencedSubgraphCycle) {
  hal::Model model = addModel();
  hal::Model::Subgraph sub = model.main;
  hal::Operand self;
  self.type = OperandType::SUBGRAPH;
  self.lifetime = hal::Operand::LifeTime::SUBGRAPH;
  self.location.offset = 0;  // referenced[0] refers to itself
  sub.operands.push_back(self);
  model.referenced.push_back(sub);
  hal::Operand ref = self;
  model.main.operands.push_back(ref);
  expectInvalid(prepare(model).status(), "forms a cycle");
}

TEST_P(HalConformanceTest, RejectsHugeDimensions) {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(kFloat, {1u << 20, 1u << 20});
  const uint32_t out = b.addOutput(kFloat, {1u << 20, 1u << 20});
  b.addOperation(OperationType::RELU, {a}, {out});
  expectInvalid(prepare(b.build()).status(), "main.operands[0].dimensions = [1048576, 1048576] is too large");
}

TEST_P(HalConformanceTest, RejectsRequestsThatDisagreeWithTheModel) {
  auto prepared = prepare(addModel());
  ASSERT_TRUE(prepared.ok());
  auto run = [&](const hal::Request& request) {
    return (*prepared)->execute(request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).status();
  };
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2, 3, 4}), hal::toBytes<float>({1, 1})}, {16});

  hal::Request wrongDims = io->request;
  wrongDims.inputs[0].dimensions = {4, 1};
  expectInvalid(run(wrongDims), "request.inputs[0].dimensions[0] = 4 disagrees");

  hal::Request wrongRank = io->request;
  wrongRank.inputs[1].dimensions = {1, 2};
  expectInvalid(run(wrongRank), "request.inputs[1].dimensions = [1, 2] has rank 2");

  hal::Request badPool = io->request;
  badPool.inputs[0].location.poolIndex = 9;
  expectInvalid(run(badPool), "request.inputs[0].location.poolIndex = 9 is out of range (request has 3 pools)");

  hal::Request outsidePool = io->request;
  outsidePool.outputs[0].location.offset = 8;
  expectInvalid(run(outsidePool), "request.outputs[0].location [offset 8, length 16] is outside pools[2]");

  hal::Request shortInput = io->request;
  shortInput.inputs[0].location.length = 8;
  expectInvalid(run(shortInput), "request.inputs[0].location.length = 8");

  hal::Request missingInput = io->request;
  missingInput.inputs.pop_back();
  expectInvalid(run(missingInput), "request.inputs has 1 entries but the model has 2 inputs");

  // After all that, the same prepared model still serves a good request.
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 4), (std::vector<float>{2, 3, 4, 5}));
}

INSTANTIATE_TEST_SUITE_P(AllDevices, HalConformanceTest, ::testing::ValuesIn(allDeviceFactories()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nnremote::testing
