// The conformance set through the NNAPI C API with Compilation_create, on two devices: Arm NN
// (CpuRef, served by a real npu_emulator from armnn_backend.so) and nnapi-reference. Arm NN
// supports part of NNAPI, so the library runs each model whole on Arm NN, partitioned between
// the two (what Arm NN does not support on nnapi-reference), or whole on nnapi-reference; every
// model must pass, on the devices the library chose (a model that passes only because its devices
// failed it and nnapi-reference ran it instead, the CPU fallback, fails here), and a good share
// must run partitioned. The executors take turns. CI runs every
// NNREMOTE_PARTITIONING_STRIDE-th model; c_api_partitioning_full_test runs them all.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>

#include "runtime/handles.h"
#include "testing/emulator_process.h"
#include "conformance/cts_loader.h"
#include "tests/runtime/c_api_case.h"

#ifndef NNREMOTE_PARTITIONING_STRIDE
#define NNREMOTE_PARTITIONING_STRIDE 8
#endif

namespace nnremote::testing {
namespace {

// Started before the library first looks for devices, and named to it through NNREMOTE_TARGETS.
class ArmnnServer : public ::testing::Environment {
 public:
  void SetUp() override {
    const std::string address = EmulatorProcess::uniqueAddress("partition");
    process_ = std::make_unique<EmulatorProcess>(address,
                                                 std::vector<std::string>{"--backend=drivers/armnn/armnn_backend.so:CpuRef"});
    setenv("NNREMOTE_TARGETS", address.c_str(), 1);
  }
  void TearDown() override { process_.reset(); }

 private:
  std::unique_ptr<EmulatorProcess> process_;
};

const auto* const kServer = ::testing::AddGlobalTestEnvironment(new ArmnnServer());

TEST(CApiPartitioningTest, ModelsArmNnSupportsInPartRunPartitionedWithTheReference) {
  const std::string directory = conformance::defaultConformanceDirectory();
  if (directory.empty()) GTEST_SKIP() << "../shared/conformance is absent; set NNREMOTE_CONFORMANCE_DIR to run it";
  uint32_t count = 0;
  ASSERT_EQ(ANeuralNetworks_getDeviceCount(&count), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(count, 2u) << "armnn-cpuref and nnapi-reference";

  size_t wholeOnArmnn = 0, partitioned = 0, wholeOnReference = 0, refused = 0, fellBack = 0, turn = 0;
  std::ostringstream log;
  auto counts = runEveryNthCase(
      directory, NNREMOTE_PARTITIONING_STRIDE,
      [&](const conformance::CtsTestCase& testCase) {
        std::vector<std::string> devices;
        std::shared_ptr<const runtime::Compilation> compiled;
        CaseOptions options;
        options.executor = static_cast<Executor>(++turn % 4);  // sync, async, burst and fenced in turn
        options.onFinished = [&devices, &compiled](ANeuralNetworksCompilation* compilation) {
          compiled = runtime::fromHandle(compilation)->compilation;
          devices = compiled->deviceNames();
        };
        std::string failure = runCase(testCase, options);
        // What the devices failed and nnapi-reference ran instead (CPU fallback) is a failure
        // of the devices or of partitioning, which this test is for.
        if (compiled != nullptr && (compiled->preparedOnCpuInstead() || compiled->executionsOnCpuInstead() > 0 ||
                                    compiled->stepsOnCpuInstead() > 0)) {
          ++fellBack;
          if (failure.empty() && !testCase.expectFailure) {
            failure = "passed only on nnapi-reference, after its devices failed it";
          }
        }
        if (devices.empty()) {
          ++refused;  // an expect_failure model, refused before it was compiled
        } else if (devices.size() > 1) {
          ++partitioned;
        } else {
          ++(devices.front() == "nnapi-reference" ? wholeOnReference : wholeOnArmnn);
        }
        return failure;
      },
      log);
  ASSERT_TRUE(counts.ok()) << counts.error().message;
  const size_t ran = counts->ran, failures = counts->failed;
  std::cout << ran << " models: " << ran - failures << " passed, " << failures << " failed; " << wholeOnArmnn
            << " whole on armnn-cpuref, " << partitioned << " partitioned between armnn-cpuref and nnapi-reference, "
            << wholeOnReference << " whole on nnapi-reference, " << refused << " refused before compiling; " << fellBack
            << " fell back to nnapi-reference (expected failures only)\n";
  EXPECT_EQ(failures, 0u) << log.str();
  EXPECT_GE(ran, 9374u / NNREMOTE_PARTITIONING_STRIDE);
  EXPECT_GE(wholeOnArmnn, 3000u / NNREMOTE_PARTITIONING_STRIDE);
  EXPECT_GE(partitioned, 100u / NNREMOTE_PARTITIONING_STRIDE);
}

}  // namespace
}  // namespace nnremote::testing
