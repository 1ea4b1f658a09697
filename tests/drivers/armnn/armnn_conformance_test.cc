// The conformance models on Arm NN (CpuRef), served by a real npu_emulator from
// armnn_backend.so and reached through the proxy driver. Nothing may fail: an operation Arm NN
// computes differently must be reported unsupported, not passed wrongly. The supported count is
// held at what the lowering covers today (float32, float16, quant8 and int32; docs/backends.md),
// so losing an operation shows up here.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>

#include "hal/model_builder.h"
#include "conformance/cts_loader.h"
#include "conformance/cts_runner.h"
#include "tests/hal/device_factories.h"

namespace nnremote::conformance {
namespace {

testing::DeviceFactory armnnFactory() {
  return testing::emulatorProcessFactory("ArmNN", {"--backend=drivers/armnn/armnn_backend.so:CpuRef"});
}

TEST(ArmnnConformanceTest, SupportedModelsPassAndNoneFails) {
  if (defaultConformanceDirectory().empty()) {
    GTEST_SKIP() << "../shared/conformance is absent; set NNREMOTE_CONFORMANCE_DIR to run it";
  }
  const testing::DeviceUnderTest dut = armnnFactory().create();
  EXPECT_EQ(dut.device->getName(), "armnn-cpuref");
  std::ostringstream failures;
  auto totals = runDirectory(*dut.device, defaultConformanceDirectory(), failures);
  ASSERT_TRUE(totals.ok()) << totals.error().message;
  std::cout << "All versions on armnn-cpuref through the proxy: " << totals->passed << " passed, " << totals->failed
            << " failed, " << totals->unsupported << " unsupported\n";
  EXPECT_EQ(totals->failed, 0u) << failures.str();
  EXPECT_GE(totals->passed, 3626u);
}

TEST(ArmnnConformanceTest, SupportIsAnsweredPerOperation) {
  const testing::DeviceUnderTest dut = armnnFactory().create();
  // FLOOR and ARGMAX lower; CAST does not, and integer DIV is refused (Arm NN's integer
  // division by zero would kill the server).
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(hal::OperandType::TENSOR_FLOAT32, {2, 2});
  const uint32_t floored = b.addTemporary(hal::OperandType::TENSOR_FLOAT32, {2, 2});
  b.addOperation(hal::OperationType::FLOOR, {in}, {floored});
  const uint32_t index = b.addTemporary(hal::OperandType::TENSOR_INT32, {2});
  b.addOperation(hal::OperationType::ARGMAX, {floored, b.addInt32(1)}, {index});
  const uint32_t cast = b.addTemporary(hal::OperandType::TENSOR_INT32, {2});
  b.addOperation(hal::OperationType::CAST, {index}, {cast});
  const uint32_t out = b.addOutput(hal::OperandType::TENSOR_INT32, {2});
  b.addOperation(hal::OperationType::DIV, {cast, index, b.addInt32(0)}, {out});
  auto supported = dut.device->getSupportedOperations(b.build());
  ASSERT_TRUE(supported.ok()) << supported.error().message;
  EXPECT_EQ(*supported, (std::vector<bool>{true, true, false, false}));
}

}  // namespace
}  // namespace nnremote::conformance
