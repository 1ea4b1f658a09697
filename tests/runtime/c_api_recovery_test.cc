// The NDK's DEAD_OBJECT through the C API: a remote device's server (a real npu_emulator started
// with --fault=crash) dies during an execution, which gives ANEURALNETWORKS_DEAD_OBJECT. Once a
// server is back on the same address, Device_wait returns, and the same compilation, and a new
// one, run again: the resilient proxy re-prepares the model in a new session by itself.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "testing/add_model.h"
#include "testing/emulator_process.h"
#include "tests/runtime/c_api_model.h"

namespace nnremote::testing {
namespace {

constexpr int kOk = ANEURALNETWORKS_NO_ERROR;

// Started before the library first looks for devices, and named to it through NNREMOTE_TARGETS.
class CrashingServer : public ::testing::Environment {
 public:
  void SetUp() override {
    address_ = EmulatorProcess::uniqueAddress("capi-recovery");
    // Execution 1 runs; the 2nd kills the server while the program waits for it.
    process_ = std::make_unique<EmulatorProcess>(address_, std::vector<std::string>{"--fault=crash:1"});
    setenv("NNREMOTE_TARGETS", address_.c_str(), 1);
  }
  void TearDown() override { process_.reset(); }

  // A server without the fault on the same address, once the crashed one has gone.
  void restart() {
    EXPECT_NE(process_->waitForExit(std::chrono::seconds(30)), -1) << "the crashed server did not exit";
    process_ = std::make_unique<EmulatorProcess>(address_);
  }

 private:
  std::string address_;
  std::unique_ptr<EmulatorProcess> process_;
};

CrashingServer* const kServer =
    static_cast<CrashingServer*>(::testing::AddGlobalTestEnvironment(new CrashingServer()));

const ANeuralNetworksDevice* remoteDevice() {
  uint32_t count = 0;
  if (ANeuralNetworks_getDeviceCount(&count) != kOk) return nullptr;
  for (uint32_t i = 0; i < count; ++i) {
    ANeuralNetworksDevice* device = nullptr;
    const char* name = nullptr;
    if (ANeuralNetworks_getDevice(i, &device) == kOk && ANeuralNetworksDevice_getName(device, &name) == kOk &&
        std::string(name) != "nnapi-reference") {
      return device;
    }
  }
  return nullptr;
}

// A finished compilation of `model` for `device` alone; null if a call failed.
ANeuralNetworksCompilation* compileFor(ANeuralNetworksModel* model, const ANeuralNetworksDevice* device) {
  ANeuralNetworksCompilation* compilation = nullptr;
  if (ANeuralNetworksCompilation_createForDevices(model, &device, 1, &compilation) != kOk) return nullptr;
  if (ANeuralNetworksCompilation_finish(compilation) != kOk) {
    ANeuralNetworksCompilation_free(compilation);
    return nullptr;
  }
  return compilation;
}

// (1, 2) + (10, 20) on `compilation`: the result code, and the sums when it succeeds.
int add(ANeuralNetworksCompilation* compilation, std::vector<float>* out) {
  const float a[] = {1, 2}, b[] = {10, 20};
  out->assign(2, 0.0f);
  ANeuralNetworksExecution* execution = nullptr;
  if (ANeuralNetworksExecution_create(compilation, &execution) != kOk) return -1;
  int code = ANeuralNetworksExecution_setInput(execution, 0, nullptr, a, sizeof a);
  if (code == kOk) code = ANeuralNetworksExecution_setInput(execution, 1, nullptr, b, sizeof b);
  if (code == kOk) code = ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out->data(), 2 * sizeof(float));
  if (code == kOk) code = ANeuralNetworksExecution_compute(execution);
  ANeuralNetworksExecution_free(execution);
  return code;
}

TEST(CApiRecoveryTest, AServerDyingMidExecutionIsDeadObjectAndTheNextExecutionRecovers) {
  const ANeuralNetworksDevice* device = remoteDevice();
  ASSERT_NE(device, nullptr) << "no remote device through NNREMOTE_TARGETS";
  const hal::Model added = twoInputAddModel();
  CApiModel model;
  std::string failure;
  ASSERT_EQ(model.build(added, &failure), kOk) << failure;
  ANeuralNetworksCompilation* compilation = compileFor(model.main(), device);
  ASSERT_NE(compilation, nullptr);
  std::vector<float> out;
  ASSERT_EQ(add(compilation, &out), kOk);
  EXPECT_EQ(out, (std::vector<float>{11, 22}));

  EXPECT_EQ(add(compilation, &out), ANEURALNETWORKS_DEAD_OBJECT) << "the server died during this execution";

  kServer->restart();
  EXPECT_EQ(ANeuralNetworksDevice_wait(device), kOk);
  ASSERT_EQ(add(compilation, &out), kOk) << "the same compilation, re-prepared in a new session";
  EXPECT_EQ(out, (std::vector<float>{11, 22}));
  ANeuralNetworksCompilation* fresh = compileFor(model.main(), device);
  ASSERT_NE(fresh, nullptr);
  ASSERT_EQ(add(fresh, &out), kOk);
  EXPECT_EQ(out, (std::vector<float>{11, 22}));
  ANeuralNetworksCompilation_free(fresh);
  ANeuralNetworksCompilation_free(compilation);
}

}  // namespace
}  // namespace nnremote::testing
