// runtime/cpu_fallback.h on its own: a request whose arguments live in another device's buffers
// (the simulated NPU's, real ones) runs on nnapi-reference through shared memory, read from the
// buffers for inputs and written back for outputs; an output buffer whose shape is not known
// cannot be staged; a failure on the CPU too says both; each part is prepared on the CPU once.
#include "runtime/cpu_fallback.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "drivers/sim/sim_device.h"
#include "hal/memory.h"
#include "hal/model_builder.h"
#include "runtime/devices.h"
#include "testing/add_model.h"

namespace nnremote::runtime {
namespace {

using Argument = hal::Request::Argument;
using ::testing::HasSubstr;

constexpr hal::Duration kLoopTimeout = std::chrono::seconds(2);

struct Prepared {
  hal::Model model = testing::twoInputAddModel();
  hal::SharedDevice npu = sim::SimDevice::create(sim::edgeNpuConfig());
  hal::SharedPreparedModel onNpu, onCpu;

  Prepared() {
    auto npuPrepared = npu->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                                         std::nullopt, {}, {}, {});
    auto cpuPrepared = makeReferenceDevice()->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                                           hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
    EXPECT_TRUE(npuPrepared.ok() && cpuPrepared.ok());
    if (npuPrepared.ok()) onNpu = *npuPrepared;
    if (cpuPrepared.ok()) onCpu = *cpuPrepared;
  }
  // A buffer of the NPU's for input or output `index` of the model.
  hal::SharedBuffer buffer(bool isInput, uint32_t index) const {
    const std::vector<hal::BufferRole> role = {{0, index, 1.0f}};
    auto allocated = npu->allocate({}, {onNpu}, isInput ? role : std::vector<hal::BufferRole>{},
                                   isInput ? std::vector<hal::BufferRole>{} : role);
    EXPECT_TRUE(allocated.ok()) << allocated.error().message;
    return allocated.ok() ? *allocated : nullptr;
  }
};

// Every device buffer a float32 tensor of `dimensions`, completed by its argument's.
StagedBytes floatsOf(std::vector<uint32_t> dimensions) {
  return [dimensions](bool /*isInput*/, size_t /*index*/, const Argument& argument) {
    return fullyKnownBytes(hal::OperandType::TENSOR_FLOAT32, argument.dimensions, dimensions);
  };
}

hal::SharedMemory floats(const std::vector<float>& values) {
  auto memory = hal::createHeapMemory(values.size() * sizeof(float));
  EXPECT_TRUE(memory.ok());
  if (!memory.ok()) return nullptr;
  std::memcpy((*memory)->data(), values.data(), values.size() * sizeof(float));
  return *memory;
}

Argument inPool(uint32_t pool, uint32_t length) {
  Argument argument;
  argument.location.poolIndex = pool;
  argument.location.length = length;
  return argument;
}

TEST(CpuFallbackTest, DeviceBuffersAreReadForTheCpuAndWrittenBack) {
  Prepared prepared;
  ASSERT_NE(prepared.onCpu, nullptr);
  hal::SharedBuffer a = prepared.buffer(/*isInput=*/true, 0), out = prepared.buffer(/*isInput=*/false, 0);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(out, nullptr);
  ASSERT_TRUE(a->copyFrom(floats({1, 2}), {2}).ok());

  // As the runtime names a device's buffer: the pool itself, used whole (length 0).
  hal::Request request;
  request.pools = {a, floats({10, 20}), out};
  request.inputs = {inPool(0, 0), inPool(1, 8)};
  request.outputs = {inPool(2, 0)};
  auto outcome = executeOnCpu(*prepared.onCpu, request, floatsOf({2}), kLoopTimeout);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  auto result = hal::createHeapMemory(8);
  ASSERT_TRUE(result.ok());
  ASSERT_TRUE(out->copyTo(*result).ok()) << "the CPU's result is in the device's buffer";
  EXPECT_EQ(hal::fromMemory<float>(*result, 2), (std::vector<float>{11, 22}));
}

TEST(CpuFallbackTest, AnOutputBufferOfUnknownShapeCannotBeStaged) {
  Prepared prepared;
  ASSERT_NE(prepared.onCpu, nullptr);
  hal::SharedBuffer out = prepared.buffer(/*isInput=*/false, 0);
  ASSERT_NE(out, nullptr);
  hal::Request request;
  request.pools = {floats({1, 2}), out};
  request.inputs = {inPool(0, 8), inPool(0, 8)};
  request.outputs = {inPool(1, 0)};
  // A driver that made a buffer of unknown size (Android's CPU device and sample driver do not):
  // the CPU cannot know how much to stage, as on Android.
  auto outcome = executeOnCpu(*prepared.onCpu, request, floatsOf({0}), kLoopTimeout);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, hal::ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(outcome.error().message, HasSubstr("output 0's device memory has no fully known shape"));
}

TEST(CpuFallbackTest, EachPartIsPreparedOnTheCpuOnce) {
  const RuntimeDevice cpu{makeReferenceDevice(), nullptr, true};
  const CpuFallback fallback(&cpu);
  const hal::Model model = testing::twoInputAddModel();
  auto whole = fallback.prepared(CpuFallback::kWholeModel, model);
  ASSERT_TRUE(whole.ok()) << whole.error().message;
  auto again = fallback.prepared(CpuFallback::kWholeModel, model);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*whole, *again);
  auto step = fallback.prepared(0, model);
  ASSERT_TRUE(step.ok());
  EXPECT_NE(*step, *whole) << "a partition step has its own";

  const CpuFallback never(nullptr);
  EXPECT_FALSE(never.prepared(CpuFallback::kWholeModel, model).ok());
}

TEST(CpuFallbackTest, WhenTheCpuFailsTooItsStatusIsTheAnswerAfterTheDevicesFailure) {
  Prepared prepared;
  ASSERT_NE(prepared.onCpu, nullptr);
  const hal::Error failed = hal::makeError(hal::ErrorStatus::DEAD_OBJECT) << "the backend host died";
  hal::Request request;  // no arguments for a model with three: the CPU refuses it
  auto outcome = rerunOnCpu(prepared.onCpu, request, floatsOf({2}), kLoopTimeout, failed);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(outcome.error().message, ::testing::StartsWith("the backend host died; then on nnapi-reference: "));

  const hal::Result<hal::SharedPreparedModel> unprepared = hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
                                                           << "out of memory";
  outcome = rerunOnCpu(unprepared, request, floatsOf({2}), kLoopTimeout, failed);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, hal::ErrorStatus::GENERAL_FAILURE);
  EXPECT_EQ(outcome.error().message, "the backend host died; then on nnapi-reference: out of memory");
}

}  // namespace
}  // namespace nnremote::runtime
