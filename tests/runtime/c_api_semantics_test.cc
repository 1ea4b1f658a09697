// The NDK's documented semantics of every NNAPI C API function but ANeuralNetworksModel_* (which
// model_builder_test covers, but for the NULL checks made before the builder): NULL arguments,
// calls in the wrong state, bad values, and what each call does, on a remote device (an
// npu_emulator this test starts, reached through NNREMOTE_TARGETS) and on nnapi-reference. The
// models are tiny: ADD of two float32 [2] tensors, the same with an output of unspecified shape,
// RANK (a scalar output) and a WHILE loop.
#include <android/NeuralNetworks.h>
#include <android/NeuralNetworksExtensions.h>
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "drivers/sim/sim_device.h"
#include "emulator/emulator_server.h"
#include "hal/model_builder.h"
#include "testing/unique_names.h"
#include "tests/common/control_flow_models.h"
#include "tests/common/scripted_device.h"
#include "tests/common/server_options.h"
#include "tests/runtime/c_api_helpers.h"
#include "tests/runtime/c_api_model.h"
#include "tests/runtime/remote_server.h"

namespace nnremote::testing {
namespace {

// The remote device: the simulated NPU, counted (its script refuses nothing).
const std::shared_ptr<ScriptedDevice>& remote() {
  static const auto* device = new std::shared_ptr<ScriptedDevice>(
      std::make_shared<ScriptedDevice>(sim::SimDevice::create(sim::edgeNpuConfig()), DeviceScript{}));
  return *device;
}

const auto* const kServer = ::testing::AddGlobalTestEnvironment(new RemoteServer("capi-semantics", {remote()}));

// ---- Devices and runtime-wide queries ----------------------------------------------------------

TEST(CApiSemanticsTest, EveryDeviceAnswersItsQueries) {
  uint32_t count = 0;
  ASSERT_EQ(ANeuralNetworks_getDeviceCount(&count), kOk);
  ASSERT_GE(count, 2u) << "the test's server's device and nnapi-reference";
  std::vector<std::string> names;
  for (uint32_t i = 0; i < count; ++i) {
    ANeuralNetworksDevice* device = nullptr;
    ASSERT_EQ(ANeuralNetworks_getDevice(i, &device), kOk);
    ANeuralNetworksDevice* again = nullptr;
    ASSERT_EQ(ANeuralNetworks_getDevice(i, &again), kOk);
    EXPECT_EQ(device, again) << "the same representation every time";
    const char* name = nullptr;
    const char* version = nullptr;
    int32_t type = -1;
    int64_t level = 0;
    ASSERT_EQ(ANeuralNetworksDevice_getName(device, &name), kOk);
    ASSERT_EQ(ANeuralNetworksDevice_getVersion(device, &version), kOk);
    ASSERT_EQ(ANeuralNetworksDevice_getType(device, &type), kOk);
    ASSERT_EQ(ANeuralNetworksDevice_getFeatureLevel(device, &level), kOk);
    EXPECT_EQ(ANeuralNetworksDevice_wait(device), kOk) << name;
    ASSERT_NE(name, nullptr);
    EXPECT_NE(std::string(name), "");
    ASSERT_NE(version, nullptr);
    EXPECT_NE(std::string(version), "");
    EXPECT_GE(type, ANEURALNETWORKS_DEVICE_OTHER);
    EXPECT_LE(type, ANEURALNETWORKS_DEVICE_ACCELERATOR);
    EXPECT_GE(level, ANEURALNETWORKS_FEATURE_LEVEL_1);
    EXPECT_LE(level, ANeuralNetworks_getRuntimeFeatureLevel()) << "the NDK: never above the runtime's level";
    if (std::string(name) == "nnapi-reference") {
      EXPECT_EQ(type, ANEURALNETWORKS_DEVICE_CPU);
    }
    names.push_back(name);
  }
  EXPECT_EQ(names.back(), "nnapi-reference") << "nnapi-reference comes after the remote devices";
  EXPECT_NE(names.front(), "nnapi-reference") << "the test's server gave no device";
}

TEST(CApiSemanticsTest, DeviceFunctionsRefuseNullAndBadIndexes) {
  uint32_t count = 0;
  ASSERT_EQ(ANeuralNetworks_getDeviceCount(&count), kOk);
  EXPECT_EQ(ANeuralNetworks_getDeviceCount(nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  ANeuralNetworksDevice* device = nullptr;
  EXPECT_EQ(ANeuralNetworks_getDevice(count, &device), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworks_getDevice(0, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  ASSERT_EQ(ANeuralNetworks_getDevice(0, &device), kOk);
  const char* text = nullptr;
  int32_t type = 0;
  int64_t level = 0;
  bool supported = true;
  EXPECT_EQ(ANeuralNetworksDevice_getName(nullptr, &text), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksDevice_getName(device, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksDevice_getVersion(nullptr, &text), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksDevice_getVersion(device, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksDevice_getType(nullptr, &type), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksDevice_getType(device, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksDevice_getFeatureLevel(nullptr, &level), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksDevice_getFeatureLevel(device, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksDevice_wait(nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksDevice_getExtensionSupport(nullptr, "x", &supported), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksDevice_getExtensionSupport(device, nullptr, &supported), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksDevice_getExtensionSupport(device, "x", nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  ASSERT_EQ(ANeuralNetworksDevice_getExtensionSupport(device, "com.example.none", &supported), kOk);
  EXPECT_FALSE(supported);
}

TEST(CApiSemanticsTest, RuntimeWideQueries) {
  EXPECT_EQ(ANeuralNetworks_getDefaultLoopTimeout(), 2'000'000'000u);
  EXPECT_EQ(ANeuralNetworks_getMaximumLoopTimeout(), 15'000'000'000u);
  const int64_t level = ANeuralNetworks_getRuntimeFeatureLevel();
  const int64_t levels[] = {ANEURALNETWORKS_FEATURE_LEVEL_1, ANEURALNETWORKS_FEATURE_LEVEL_2,
                            ANEURALNETWORKS_FEATURE_LEVEL_3, ANEURALNETWORKS_FEATURE_LEVEL_4,
                            ANEURALNETWORKS_FEATURE_LEVEL_5, ANEURALNETWORKS_FEATURE_LEVEL_6,
                            ANEURALNETWORKS_FEATURE_LEVEL_7, ANEURALNETWORKS_FEATURE_LEVEL_8};
  EXPECT_NE(std::find(std::begin(levels), std::end(levels), level), std::end(levels))
      << level << " is not a FeatureLevelCode";
  // The device functions this test calls are feature level 3's.
  EXPECT_GE(level, ANEURALNETWORKS_FEATURE_LEVEL_3);
}

TEST(CApiSemanticsTest, SupportedOperationsForDevices) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  const auto devices = allDevices();
  ASSERT_GE(devices.size(), 2u);
  std::vector<const ANeuralNetworksDevice*> both(devices.begin(), devices.end());
  for (const ANeuralNetworksDevice* device : both) {
    bool supported[1] = {false};
    ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model.get(), &device, 1, supported), kOk);
    EXPECT_TRUE(supported[0]) << nameOf(device) << " runs ADD";
  }
  bool supported[1] = {false};
  ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model.get(), both.data(),
                                                                  static_cast<uint32_t>(both.size()), supported),
            kOk);
  EXPECT_TRUE(supported[0]);
  const ANeuralNetworksDevice* twice[] = {both[0], both[0]};
  EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model.get(), twice, 2, supported),
            ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model.get(), both.data(), 0, supported),
            ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(nullptr, both.data(), 1, supported),
            ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model.get(), nullptr, 1, supported),
            ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model.get(), both.data(), 1, nullptr),
            ANEURALNETWORKS_UNEXPECTED_NULL);
  Model unfinished = addModel({2}, ANEURALNETWORKS_FUSED_NONE, /*finish=*/false);
  ASSERT_NE(unfinished, nullptr);
  EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(unfinished.get(), both.data(), 1, supported),
            ANEURALNETWORKS_BAD_STATE);
}

// ---- Models (the checks made before runtime::ModelBuilder) ----------------------------------------

TEST(CApiSemanticsTest, OperandListsMayNotBeNullEvenWhenEmpty) {
  // Android's runtime refuses a NULL list whatever its count; a refused call changes nothing.
  Model model = addModel({2}, ANEURALNETWORKS_FUSED_NONE, /*finish=*/false);
  ASSERT_NE(model, nullptr);
  const uint32_t inputs[] = {0, 1}, outputs[] = {3};
  EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model.get(), 0, nullptr, 1, outputs),
            ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model.get(), 2, inputs, 0, nullptr),
            ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksModel_addOperation(model.get(), ANEURALNETWORKS_ADD, 0, nullptr, 1, outputs),
            ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksModel_addOperation(model.get(), ANEURALNETWORKS_ADD, 2, inputs, 0, nullptr),
            ANEURALNETWORKS_UNEXPECTED_NULL);
  // The model still has its inputs, outputs and one operation.
  ASSERT_EQ(ANeuralNetworksModel_finish(model.get()), kOk);
  Compilation compilation = compile(model.get());
  ASSERT_NE(compilation, nullptr);
  expectSum(compilation.get());
}

// ---- Compilations ------------------------------------------------------------------------------

TEST(CApiSemanticsTest, CompilationCreateRefusesNullAndUnfinishedModels) {
  Model model = addModel();
  Model unfinished = addModel({2}, ANEURALNETWORKS_FUSED_NONE, /*finish=*/false);
  ASSERT_NE(model, nullptr);
  ASSERT_NE(unfinished, nullptr);
  ANeuralNetworksCompilation* compilation = reinterpret_cast<ANeuralNetworksCompilation*>(&model);
  EXPECT_EQ(ANeuralNetworksCompilation_create(nullptr, &compilation), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(compilation, nullptr) << "set to NULL if unsuccessful";
  EXPECT_EQ(ANeuralNetworksCompilation_create(model.get(), nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  compilation = reinterpret_cast<ANeuralNetworksCompilation*>(&model);
  EXPECT_EQ(ANeuralNetworksCompilation_create(unfinished.get(), &compilation), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(compilation, nullptr);
}

TEST(CApiSemanticsTest, ABadConstantParameterCompilesOnTheReferenceAndFailsItsComputations) {
  Model model = addModel({2}, /*activation=*/999);  // valid, but no kernel takes it
  ASSERT_NE(model, nullptr);
  // A simulated NPU reports it unsupported, as a driver may...
  ANeuralNetworksCompilation* raw = nullptr;
  const ANeuralNetworksDevice* remote = deviceFor(true);
  ASSERT_NE(remote, nullptr);
  ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(model.get(), &remote, 1, &raw), kOk);
  Compilation refused(raw);
  EXPECT_EQ(ANeuralNetworksCompilation_finish(refused.get()), ANEURALNETWORKS_BAD_DATA);
  // ... so it falls to nnapi-reference, which takes every valid operation as Android's CPU device
  // does: it compiles, and each computation fails.
  Compilation compilation = compile(model.get());
  ASSERT_NE(compilation, nullptr);
  for (int i = 0; i < 2; ++i) {
    float out[2] = {};
    Execution execution = addExecution(compilation.get(), kA, kB, out);
    ASSERT_NE(execution, nullptr);
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_OP_FAILED);
  }
}

TEST(CApiSemanticsTest, CreateForDevicesRefusesEmptyDuplicatedAndUnknownDevices) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  const ANeuralNetworksDevice* device = deviceFor(false);
  ASSERT_NE(device, nullptr);
  ANeuralNetworksCompilation* compilation = nullptr;
  EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model.get(), &device, 0, &compilation),
            ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(compilation, nullptr);
  const ANeuralNetworksDevice* twice[] = {device, device};
  EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model.get(), twice, 2, &compilation), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(compilation, nullptr);
  int notADevice = 0;
  const ANeuralNetworksDevice* unknown[] = {reinterpret_cast<const ANeuralNetworksDevice*>(&notADevice)};
  EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model.get(), unknown, 1, &compilation),
            ANEURALNETWORKS_BAD_DATA);
  const ANeuralNetworksDevice* withNull[] = {device, nullptr};
  EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model.get(), withNull, 2, &compilation),
            ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(nullptr, &device, 1, &compilation),
            ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model.get(), nullptr, 1, &compilation),
            ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model.get(), &device, 1, nullptr),
            ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(compilation, nullptr);
}

TEST(CApiSemanticsTest, CompilationSettersCheckTheirValuesAndState) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compile(model.get(), deviceFor(false), /*finish=*/false);
  ASSERT_NE(compilation, nullptr);
  ANeuralNetworksCompilation* c = compilation.get();
  EXPECT_EQ(ANeuralNetworksCompilation_setPreference(c, 3), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksCompilation_setPreference(c, -1), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksCompilation_setPreference(c, ANEURALNETWORKS_PREFER_SUSTAINED_SPEED), kOk);
  EXPECT_EQ(ANeuralNetworksCompilation_setPriority(c, 0), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksCompilation_setPriority(c, 105), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksCompilation_setPriority(c, ANEURALNETWORKS_PRIORITY_HIGH), kOk);
  EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(c, 60'000'000'000u), kOk) << "one device: allowed";
  const uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN] = {};
  EXPECT_EQ(ANeuralNetworksCompilation_setCaching(c, nullptr, token), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksCompilation_setCaching(c, "/tmp", nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksCompilation_setCaching(nullptr, "/tmp", token), ANEURALNETWORKS_UNEXPECTED_NULL);

  ASSERT_EQ(ANeuralNetworksCompilation_finish(c), kOk);
  EXPECT_EQ(ANeuralNetworksCompilation_finish(c), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(ANeuralNetworksCompilation_setPreference(c, ANEURALNETWORKS_PREFER_LOW_POWER), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(ANeuralNetworksCompilation_setPriority(c, ANEURALNETWORKS_PRIORITY_LOW), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(c, 1), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(ANeuralNetworksCompilation_setCaching(c, "/tmp", token), ANEURALNETWORKS_BAD_STATE);

  EXPECT_EQ(ANeuralNetworksCompilation_setPreference(nullptr, 0), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksCompilation_setPriority(nullptr, ANEURALNETWORKS_PRIORITY_LOW),
            ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(nullptr, 1), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksCompilation_finish(nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  ANeuralNetworksCompilation_free(nullptr);  // the NDK: no operation
}

TEST(CApiSemanticsTest, TimeoutsAndTimingNeedACompilationForExactlyOneDevice) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  std::vector<ANeuralNetworksDevice*> devices = allDevices();
  ASSERT_GE(devices.size(), 2u);
  const ANeuralNetworksDevice* two[] = {devices[0], devices[1]};
  ANeuralNetworksCompilation* raw = nullptr;
  ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(model.get(), two, 2, &raw), kOk);
  Compilation forTwo(raw);
  Compilation byCreate = compile(model.get(), nullptr, /*finish=*/false);
  Compilation forOne = compile(model.get(), devices[0], /*finish=*/false);
  ASSERT_NE(byCreate, nullptr);
  ASSERT_NE(forOne, nullptr);
  EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(byCreate.get(), 1'000'000'000), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(forTwo.get(), 1'000'000'000), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(forOne.get(), 0), kOk) << "0: no timeout";
  for (ANeuralNetworksCompilation* c : {byCreate.get(), forTwo.get(), forOne.get()}) {
    ASSERT_EQ(ANeuralNetworksCompilation_finish(c), kOk);
  }
  for (ANeuralNetworksCompilation* c : {byCreate.get(), forTwo.get()}) {
    Execution execution = executionOf(c);
    ASSERT_NE(execution, nullptr);
    EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution.get(), true), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setTimeout(execution.get(), 1'000'000'000), ANEURALNETWORKS_BAD_DATA);
    // Still BAD_DATA once computed: Android's runtime checks the compilation before the state.
    float out[2] = {};
    ASSERT_EQ(setAddArguments(execution.get(), kA, kB, out), kOk);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), kOk);
    EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution.get(), true), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setTimeout(execution.get(), 1'000'000'000), ANEURALNETWORKS_BAD_DATA);
  }
  Execution execution = executionOf(forOne.get());
  ASSERT_NE(execution, nullptr);
  EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution.get(), true), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_setTimeout(execution.get(), 60'000'000'000u), kOk);
  float out[2] = {};
  ASSERT_EQ(setAddArguments(execution.get(), kA, kB, out), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), kOk) << "a generous timeout is met";
  EXPECT_EQ(values(out), kSum);
}

TEST(CApiSemanticsTest, CompilationCreateChoosesADeviceThatRunsTheModel) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  for (int32_t preference : {ANEURALNETWORKS_PREFER_LOW_POWER, ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER,
                             ANEURALNETWORKS_PREFER_SUSTAINED_SPEED}) {
    Compilation compilation = compile(model.get(), nullptr, /*finish=*/false);
    ASSERT_NE(compilation, nullptr);
    ASSERT_EQ(ANeuralNetworksCompilation_setPreference(compilation.get(), preference), kOk);
    ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation.get()), kOk) << "preference " << preference;
    expectSum(compilation.get());
  }
}

TEST(CApiSemanticsTest, PreferredAlignmentAndPaddingArePowersOfTwoAfterFinish) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compile(model.get(), nullptr, /*finish=*/false);
  ASSERT_NE(compilation, nullptr);
  using Query = int (*)(const ANeuralNetworksCompilation*, uint32_t, uint32_t*);
  struct Case {
    Query query;
    uint32_t count;  // inputs or outputs
  };
  const Case cases[] = {{ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput, 2},
                        {ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput, 2},
                        {ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput, 1},
                        {ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput, 1}};
  uint32_t value = 0;
  for (const Case& c : cases) {
    EXPECT_EQ(c.query(compilation.get(), 0, &value), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(c.query(nullptr, 0, &value), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(c.query(compilation.get(), 0, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  }
  ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation.get()), kOk);
  for (const Case& c : cases) {
    for (uint32_t index = 0; index < c.count; ++index) {
      value = 0;
      ASSERT_EQ(c.query(compilation.get(), index, &value), kOk);
      EXPECT_GE(value, 1u);
      EXPECT_EQ(value & (value - 1), 0u) << value << " is not a power of two";
    }
    EXPECT_EQ(c.query(compilation.get(), c.count, &value), ANEURALNETWORKS_BAD_DATA);
  }
}

// ---- Executions: creation, arguments, state ----------------------------------------------------

TEST(CApiSemanticsTest, ExecutionCreateNeedsAFinishedCompilation) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation unfinished = compile(model.get(), nullptr, /*finish=*/false);
  ASSERT_NE(unfinished, nullptr);
  ANeuralNetworksExecution* execution = reinterpret_cast<ANeuralNetworksExecution*>(&model);
  EXPECT_EQ(ANeuralNetworksExecution_create(unfinished.get(), &execution), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(execution, nullptr) << "set to NULL if unsuccessful";
  execution = reinterpret_cast<ANeuralNetworksExecution*>(&model);
  EXPECT_EQ(ANeuralNetworksExecution_create(nullptr, &execution), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(execution, nullptr);
  EXPECT_EQ(ANeuralNetworksExecution_create(unfinished.get(), nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  ASSERT_EQ(ANeuralNetworksCompilation_finish(unfinished.get()), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_create(unfinished.get(), &execution), kOk);
  ANeuralNetworksExecution_free(execution);
  ANeuralNetworksExecution_free(nullptr);  // the NDK: no operation
}

TEST(CApiSemanticsTest, ExecutionFunctionsRefuseNull) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compile(model.get());
  ASSERT_NE(compilation, nullptr);
  Execution execution = executionOf(compilation.get());
  ASSERT_NE(execution, nullptr);
  ANeuralNetworksExecution* e = execution.get();
  float buffer[2] = {};
  constexpr int kNull = ANEURALNETWORKS_UNEXPECTED_NULL;
  EXPECT_EQ(ANeuralNetworksExecution_setInput(nullptr, 0, nullptr, buffer, sizeof buffer), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(e, 0, nullptr, nullptr, sizeof buffer), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(nullptr, 0, nullptr, buffer, sizeof buffer), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(e, 0, nullptr, nullptr, sizeof buffer), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(e, 0, nullptr, nullptr, 0, sizeof buffer), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(e, 0, nullptr, nullptr, 0, sizeof buffer), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_compute(nullptr), kNull);
  ANeuralNetworksEvent* event = reinterpret_cast<ANeuralNetworksEvent*>(&buffer);
  EXPECT_EQ(ANeuralNetworksExecution_startCompute(nullptr, &event), kNull);
  EXPECT_EQ(event, nullptr) << "set to NULL if there is an error";
  EXPECT_EQ(ANeuralNetworksExecution_startCompute(e, nullptr), kNull);
  event = reinterpret_cast<ANeuralNetworksEvent*>(&buffer);
  EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(nullptr, nullptr, 0, 0, &event), kNull);
  EXPECT_EQ(event, nullptr);
  EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(e, nullptr, 0, 0, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(e, nullptr, 1, 0, &event), kNull);
  const ANeuralNetworksEvent* nullDependency[] = {nullptr};
  EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(e, nullDependency, 1, 0, &event), kNull);
  EXPECT_EQ(event, nullptr);
  uint64_t duration = 0;
  uint32_t rank = 0;
  EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(nullptr, true), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_getDuration(nullptr, ANEURALNETWORKS_DURATION_IN_DRIVER, &duration), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_getDuration(e, ANEURALNETWORKS_DURATION_IN_DRIVER, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(nullptr, 0, &rank), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(e, 0, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(nullptr, 0, &rank), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(e, 0, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setTimeout(nullptr, 1), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setLoopTimeout(nullptr, 1), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setReusable(nullptr, true), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_enableInputAndOutputPadding(nullptr, true), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_burstCompute(e, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksEvent_wait(nullptr), kNull);
  ANeuralNetworksEvent_free(nullptr);  // the NDK: no operation
  // None of the refusals changed the execution: it still runs.
  ASSERT_EQ(setAddArguments(e, kA, kB, buffer), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_compute(e), kOk);
  EXPECT_EQ(values(buffer), kSum);
}

TEST(CApiSemanticsTest, ArgumentsAreCheckedAgainstTheModel) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compile(model.get());
  ASSERT_NE(compilation, nullptr);
  Execution execution = executionOf(compilation.get());
  ASSERT_NE(execution, nullptr);
  ANeuralNetworksExecution* e = execution.get();
  float out[4] = {};
  EXPECT_EQ(ANeuralNetworksExecution_setInput(e, 2, nullptr, kA, sizeof kA), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(e, -1, nullptr, kA, sizeof kA), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(e, 1, nullptr, out, 8), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(e, 0, nullptr, kA, 4), ANEURALNETWORKS_BAD_DATA) << "too short";
  EXPECT_EQ(ANeuralNetworksExecution_setInput(e, 0, nullptr, out, 16), ANEURALNETWORKS_BAD_DATA)
      << "too long without padding";
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(e, 0, nullptr, out, 12), ANEURALNETWORKS_BAD_DATA);
  const std::vector<uint32_t> two = {2}, twoByOne = {2, 1}, three = {3};
  const ANeuralNetworksOperandType intType = tensorType(two, ANEURALNETWORKS_TENSOR_INT32);
  const ANeuralNetworksOperandType rank2 = tensorType(twoByOne);
  const ANeuralNetworksOperandType otherDimension = tensorType(three);
  const ANeuralNetworksOperandType same = tensorType(two);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(e, 0, &intType, kA, sizeof kA), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(e, 0, &rank2, kA, sizeof kA), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(e, 0, &otherDimension, out, 12), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(e, 0, &rank2, out, 8), ANEURALNETWORKS_BAD_DATA);
  // An omitted output (NULL, 0) is accepted here, as the NDK documents for optional outputs.
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(e, 0, nullptr, nullptr, 0), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_compute(e), ANEURALNETWORKS_BAD_DATA) << "the inputs are not set";
  ANeuralNetworksExecution_free(execution.release());

  execution = executionOf(compilation.get());
  ASSERT_NE(execution, nullptr);
  e = execution.get();
  ASSERT_EQ(ANeuralNetworksExecution_setInput(e, 0, &same, kA, sizeof kA), kOk) << "the model's own type";
  ASSERT_EQ(ANeuralNetworksExecution_setInput(e, 1, nullptr, kB, sizeof kB), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutput(e, 0, &same, out, 8), kOk);
  // An argument is given once, as Android's runtime has it; the first one stays.
  float other[2] = {};
  EXPECT_EQ(ANeuralNetworksExecution_setInput(e, 1, nullptr, other, sizeof other), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(e, 0, nullptr, other, sizeof other), ANEURALNETWORKS_BAD_STATE);
  ASSERT_EQ(ANeuralNetworksExecution_compute(e), kOk);
  EXPECT_EQ(values(out), kSum);
}

TEST(CApiSemanticsTest, AnArgumentsTypeMustFitFourGibibytes) {
  Model model = addModel({0});  // an output of unspecified length
  ASSERT_NE(model, nullptr);
  Compilation compilation = compile(model.get());
  ASSERT_NE(compilation, nullptr);
  Execution execution = executionOf(compilation.get());
  ASSERT_NE(execution, nullptr);
  float out[2] = {};
  const std::vector<uint32_t> huge = {1u << 30};  // 4 GiB of float32
  const ANeuralNetworksOperandType hugeType = tensorType(huge);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, &hugeType, out, sizeof out),
            ANEURALNETWORKS_BAD_DATA);
  const std::vector<uint32_t> two = {2};
  const ANeuralNetworksOperandType twoType = tensorType(two);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, &twoType, out, sizeof out), kOk)
      << "the refused call set nothing";
}

TEST(CApiSemanticsTest, AnExecutionComputesOnceUnlessReusable) {
  AddRun run;
  ASSERT_NO_FATAL_FAILURE(makeAddRun(deviceFor(false), &run));
  ANeuralNetworksExecution* once = run.execution.get();
  ASSERT_EQ(ANeuralNetworksExecution_compute(once), kOk);
  EXPECT_EQ(values(run.out), kSum);
  EXPECT_EQ(ANeuralNetworksExecution_compute(once), ANEURALNETWORKS_BAD_STATE);
  ANeuralNetworksEvent* event = nullptr;
  EXPECT_EQ(ANeuralNetworksExecution_startCompute(once, &event), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(event, nullptr);
  // Everything that prepares an execution is refused once it has computed.
  EXPECT_EQ(ANeuralNetworksExecution_setInput(once, 0, nullptr, kA, sizeof kA), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(once, 0, nullptr, run.out, sizeof run.out), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(ANeuralNetworksExecution_setReusable(once, true), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(once, true), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(ANeuralNetworksExecution_setTimeout(once, 1'000'000'000), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(ANeuralNetworksExecution_setLoopTimeout(once, 1'000'000'000), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(ANeuralNetworksExecution_enableInputAndOutputPadding(once, true), ANEURALNETWORKS_BAD_STATE);

  float a[2] = {1.0f, 2.0f};
  Execution reusable = executionOf(run.compilation.get());
  ASSERT_NE(reusable, nullptr);
  ASSERT_EQ(ANeuralNetworksExecution_setReusable(reusable.get(), true), kOk);
  ASSERT_EQ(setAddArguments(reusable.get(), a, kB, run.out), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_compute(reusable.get()), kOk);
  EXPECT_EQ(values(run.out), kSum);
  a[0] = 100.0f;  // the buffer is read again by the next computation
  ASSERT_EQ(ANeuralNetworksExecution_compute(reusable.get()), kOk) << "a reusable execution computes again";
  EXPECT_EQ(values(run.out), (std::vector<float>{110.0f, 22.0f}));
  EXPECT_EQ(ANeuralNetworksExecution_setInput(reusable.get(), 0, nullptr, a, sizeof a), ANEURALNETWORKS_BAD_STATE);
}

TEST(CApiSemanticsTest, OutputShapesAndDurationsNeedACompletedExecution) {
  AddRun run;
  ASSERT_NO_FATAL_FAILURE(makeAddRun(deviceFor(false), &run));
  ANeuralNetworksExecution* e = run.execution.get();
  ASSERT_EQ(ANeuralNetworksExecution_setMeasureTiming(e, true), kOk);
  uint32_t rank = 7, dimensions[1] = {7};
  uint64_t duration = 0;
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(e, 0, &rank), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(e, 0, dimensions), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(ANeuralNetworksExecution_getDuration(e, ANEURALNETWORKS_DURATION_ON_HARDWARE, &duration),
            ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(duration, UINT64_MAX) << "no duration to give";
  EXPECT_EQ(ANeuralNetworksExecution_getDuration(e, 4, &duration), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksExecution_getDuration(e, -1, &duration), ANEURALNETWORKS_BAD_DATA);

  ASSERT_EQ(ANeuralNetworksExecution_compute(e), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_getOutputOperandRank(e, 0, &rank), kOk);
  EXPECT_EQ(rank, 1u);
  ASSERT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(e, 0, dimensions), kOk);
  EXPECT_EQ(dimensions[0], 2u);
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(e, 1, &rank), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(e, 1, dimensions), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksExecution_getDuration(e, 4, &duration), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksExecution_getDuration(e, ANEURALNETWORKS_DURATION_IN_DRIVER, &duration), kOk);
  EXPECT_NE(duration, UINT64_MAX);

  // Without setMeasureTiming there is no duration: UINT64_MAX, refused as AOSP's runtime does.
  Execution unmeasured = addExecution(run.compilation.get(), kA, kB, run.out);
  ASSERT_NE(unmeasured, nullptr);
  ASSERT_EQ(ANeuralNetworksExecution_compute(unmeasured.get()), kOk);
  duration = 0;
  EXPECT_EQ(ANeuralNetworksExecution_getDuration(unmeasured.get(), ANEURALNETWORKS_DURATION_IN_DRIVER, &duration),
            ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(duration, UINT64_MAX);
}

TEST(CApiSemanticsTest, PaddingIsChosenBeforeAnyArgument) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compile(model.get());
  ASSERT_NE(compilation, nullptr);
  Execution execution = executionOf(compilation.get());
  ASSERT_NE(execution, nullptr);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, kA, sizeof kA), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_enableInputAndOutputPadding(execution.get(), true), ANEURALNETWORKS_BAD_STATE);
}

TEST(CApiSemanticsTest, StartComputeWithDependenciesChecksDurationAndOutputShapes) {
  Model model = addModel();
  Model unspecified = addModel({0});
  ASSERT_NE(model, nullptr);
  ASSERT_NE(unspecified, nullptr);
  Compilation byCreate = compile(model.get());
  Compilation forOne = compile(model.get(), deviceFor(false));
  Compilation unknownShape = compile(unspecified.get(), deviceFor(false));
  ASSERT_NE(byCreate, nullptr);
  ASSERT_NE(forOne, nullptr);
  ASSERT_NE(unknownShape, nullptr);
  float out[2] = {};
  int code = kOk;

  // A duration after the fences needs a compilation for exactly one device.
  Execution execution = addExecution(byCreate.get(), kA, kB, out);
  ASSERT_NE(execution, nullptr);
  EXPECT_EQ(startAfter(execution.get(), {}, &code, 1'000'000'000), nullptr);
  EXPECT_EQ(code, ANEURALNETWORKS_BAD_DATA);
  Event event = startAfter(execution.get(), {}, &code);
  ASSERT_EQ(code, kOk) << "the refusal left the execution as it was";
  ASSERT_EQ(ANeuralNetworksEvent_wait(event.get()), kOk);
  EXPECT_EQ(values(out), kSum);

  execution = addExecution(forOne.get(), kA, kB, out);
  ASSERT_NE(execution, nullptr);
  event = startAfter(execution.get(), {}, &code, 60'000'000'000u);
  ASSERT_EQ(code, kOk);
  EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), kOk);

  // Every output's shape must be fully specified, by the model or by setOutput's type.
  execution = addExecution(unknownShape.get(), kA, kB, out);
  ASSERT_NE(execution, nullptr);
  EXPECT_EQ(startAfter(execution.get(), {}, &code), nullptr);
  EXPECT_EQ(code, ANEURALNETWORKS_BAD_DATA);
  execution = executionOf(unknownShape.get());
  ASSERT_NE(execution, nullptr);
  const std::vector<uint32_t> two = {2};
  const ANeuralNetworksOperandType known = tensorType(two);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, kA, sizeof kA), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, kB, sizeof kB), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, &known, out, sizeof out), kOk);
  event = startAfter(execution.get(), {}, &code);
  ASSERT_EQ(code, kOk);
  EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), kOk);
  EXPECT_EQ(values(out), kSum);
}

// ---- Memories ----------------------------------------------------------------------------------

// A memfd of `size` bytes; -1 if none could be made.
int memfdOf(size_t size) {
  const int fd = memfd_create("c_api_semantics_test", MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

TEST(CApiSemanticsTest, MemoryCreateFromFdRefusesBadArguments) {
  const int fd = memfdOf(4096);
  ASSERT_GE(fd, 0);
  ANeuralNetworksMemory* memory = reinterpret_cast<ANeuralNetworksMemory*>(&memory);
  EXPECT_EQ(ANeuralNetworksMemory_createFromFd(0, PROT_READ | PROT_WRITE, fd, 0, &memory), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(memory, nullptr) << "set to NULL if unsuccessful";
  EXPECT_EQ(ANeuralNetworksMemory_createFromFd(4096, PROT_READ | PROT_EXEC, fd, 0, &memory), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksMemory_createFromFd(4096, PROT_READ | PROT_WRITE, -1, 0, &memory), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(memory, nullptr);
  EXPECT_EQ(ANeuralNetworksMemory_createFromFd(4096, PROT_READ | PROT_WRITE, fd, 0, nullptr),
            ANEURALNETWORKS_UNEXPECTED_NULL);
  // Past the file's end: mapped, the first touch of a page there would raise SIGBUS.
  EXPECT_EQ(ANeuralNetworksMemory_createFromFd(8192, PROT_READ | PROT_WRITE, fd, 0, &memory), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksMemory_createFromFd(4096, PROT_READ | PROT_WRITE, fd, 1, &memory), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksMemory_createFromFd(16, PROT_READ | PROT_WRITE, fd, SIZE_MAX - 4, &memory),
            ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(memory, nullptr);
  ASSERT_EQ(ANeuralNetworksMemory_createFromFd(4095, PROT_READ | PROT_WRITE, fd, 1, &memory), kOk);
  ANeuralNetworksMemory_free(memory);
  ASSERT_EQ(ANeuralNetworksMemory_createFromFd(4096, PROT_READ | PROT_WRITE, fd, 0, &memory), kOk);
  ANeuralNetworksMemory_free(memory);
  ANeuralNetworksMemory_free(nullptr);  // the NDK: no operation
  close(fd);
}

TEST(CApiSemanticsTest, MemoryCopyCopiesBetweenFdMemories) {
  constexpr size_t kSize = 4096;
  const int from = memfdOf(kSize), to = memfdOf(kSize), small = memfdOf(kSize / 2);
  ASSERT_GE(from, 0);
  ASSERT_GE(to, 0);
  ASSERT_GE(small, 0);
  auto* src = static_cast<uint8_t*>(mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_SHARED, from, 0));
  auto* dst = static_cast<uint8_t*>(mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_SHARED, to, 0));
  ASSERT_NE(src, MAP_FAILED);
  ASSERT_NE(dst, MAP_FAILED);
  for (size_t i = 0; i < kSize; ++i) src[i] = static_cast<uint8_t>(i * 7 + 1);
  ANeuralNetworksMemory *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_EQ(ANeuralNetworksMemory_createFromFd(kSize, PROT_READ | PROT_WRITE, from, 0, &a), kOk);
  Memory memoryA(a);
  ASSERT_EQ(ANeuralNetworksMemory_createFromFd(kSize, PROT_READ | PROT_WRITE, to, 0, &b), kOk);
  Memory memoryB(b);
  ASSERT_EQ(ANeuralNetworksMemory_createFromFd(kSize / 2, PROT_READ | PROT_WRITE, small, 0, &c), kOk);
  Memory memoryC(c);
  ASSERT_EQ(ANeuralNetworksMemory_copy(a, b), kOk);
  EXPECT_EQ(std::memcmp(src, dst, kSize), 0) << "the copy shows through the destination's own mapping";
  EXPECT_EQ(ANeuralNetworksMemory_copy(a, c), ANEURALNETWORKS_BAD_DATA) << "sizes differ";
  EXPECT_EQ(ANeuralNetworksMemory_copy(nullptr, b), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksMemory_copy(a, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  munmap(src, kSize);
  munmap(dst, kSize);
  close(from);
  close(to);
  close(small);
}

// ---- Bursts ------------------------------------------------------------------------------------

TEST(CApiSemanticsTest, BurstsCheckTheirCompilation) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation unfinished = compile(model.get(), deviceFor(false), /*finish=*/false);
  Compilation compilation = compile(model.get(), deviceFor(false));
  Compilation other = compile(model.get(), deviceFor(false));
  ASSERT_NE(unfinished, nullptr);
  ASSERT_NE(compilation, nullptr);
  ASSERT_NE(other, nullptr);
  ANeuralNetworksBurst* raw = reinterpret_cast<ANeuralNetworksBurst*>(&raw);
  EXPECT_EQ(ANeuralNetworksBurst_create(unfinished.get(), &raw), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(raw, nullptr) << "set to NULL if unsuccessful";
  EXPECT_EQ(ANeuralNetworksBurst_create(nullptr, &raw), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksBurst_create(compilation.get(), nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  ASSERT_EQ(ANeuralNetworksBurst_create(other.get(), &raw), kOk);
  Burst burstOfOther(raw);
  float out[2] = {};
  Execution execution = addExecution(compilation.get(), kA, kB, out);
  ASSERT_NE(execution, nullptr);
  EXPECT_EQ(ANeuralNetworksExecution_burstCompute(execution.get(), burstOfOther.get()), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksExecution_burstCompute(nullptr, burstOfOther.get()), ANEURALNETWORKS_UNEXPECTED_NULL);
  ASSERT_EQ(ANeuralNetworksBurst_create(compilation.get(), &raw), kOk);
  Burst burst(raw);
  ASSERT_EQ(ANeuralNetworksExecution_burstCompute(execution.get(), burst.get()), kOk)
      << "the refusal left the execution as it was";
  EXPECT_EQ(values(out), kSum);
  ANeuralNetworksBurst_free(nullptr);  // the NDK: no operation
}

// ---- Memory domains ----------------------------------------------------------------------------

TEST(CApiSemanticsTest, MemoryDescriptorsFollowTheNdkStateMachine) {
  EXPECT_EQ(ANeuralNetworksMemoryDesc_create(nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(nullptr, nullptr, 0, 1.0f), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(nullptr, nullptr, 0, 1.0f), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(nullptr, 0, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_finish(nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  ANeuralNetworksMemory* memory = reinterpret_cast<ANeuralNetworksMemory*>(&memory);
  EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(nullptr, &memory), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(memory, nullptr) << "set to NULL if unsuccessful";
  ANeuralNetworksMemoryDesc_free(nullptr);  // the NDK: no operation

  Model model = addModel(), other = rankModel();
  ASSERT_NE(model, nullptr);
  ASSERT_NE(other, nullptr);
  Compilation unfinished = compile(model.get(), deviceFor(false), /*finish=*/false);
  Compilation compilation = compile(model.get(), deviceFor(false));
  Compilation rank = compile(other.get(), deviceFor(false));
  ASSERT_NE(unfinished, nullptr);
  ASSERT_NE(compilation, nullptr);
  ASSERT_NE(rank, nullptr);
  MemoryDesc desc = newDesc();
  ASSERT_NE(desc, nullptr);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), nullptr, 0, 1.0f), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_finish(desc.get()), ANEURALNETWORKS_BAD_DATA) << "no role yet";
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), unfinished.get(), 0, 1.0f), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), compilation.get(), 2, 1.0f), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc.get(), compilation.get(), 1, 1.0f), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), compilation.get(), 0, 0.0f), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), compilation.get(), 0, 1.5f), ANEURALNETWORKS_BAD_DATA);
  ASSERT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), compilation.get(), 0, 0.5f), kOk);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), compilation.get(), 0, 0.5f), ANEURALNETWORKS_BAD_DATA)
      << "the same role twice";
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc.get(), rank.get(), 0, 1.0f), ANEURALNETWORKS_BAD_DATA)
      << "an INT32 scalar does not fit a float32 [2] memory";
  const uint32_t three = 3, two = 2;
  EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(desc.get(), 1, &three), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(desc.get(), 1, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  ASSERT_EQ(ANeuralNetworksMemoryDesc_setDimensions(desc.get(), 1, &two), kOk);
  ASSERT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc.get(), compilation.get(), 0, 1.0f), kOk);
  EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(desc.get(), &memory), ANEURALNETWORKS_BAD_STATE) << "not finished";
  ASSERT_EQ(ANeuralNetworksMemoryDesc_finish(desc.get()), kOk);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_finish(desc.get()), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), compilation.get(), 1, 1.0f), ANEURALNETWORKS_BAD_STATE);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(desc.get(), 1, &two), ANEURALNETWORKS_BAD_STATE);
  ASSERT_EQ(ANeuralNetworksMemory_createFromDesc(desc.get(), &memory), kOk);
  Memory owned(memory);
  // Not for a model's constants, and used whole in the roles it was made for.
  Model building = addModel({2}, ANEURALNETWORKS_FUSED_NONE, /*finish=*/false);
  ASSERT_NE(building, nullptr);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(building.get(), 0, memory, 0, 8), ANEURALNETWORKS_BAD_DATA);
  Execution execution = executionOf(compilation.get());
  ASSERT_NE(execution, nullptr);
  EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 1, nullptr, memory, 0, 0),
            ANEURALNETWORKS_BAD_DATA)
      << "input 1 is not one of its roles";
  EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, nullptr, memory, 0, 8),
            ANEURALNETWORKS_BAD_DATA)
      << "offset and length must be 0";
  Execution ofOther = executionOf(rank.get());
  ASSERT_NE(ofOther, nullptr);
  EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(ofOther.get(), 0, nullptr, memory, 0, 0),
            ANEURALNETWORKS_BAD_DATA)
      << "another compilation";
}

// ---- Sync fences -------------------------------------------------------------------------------

TEST(CApiSemanticsTest, SyncFenceFdArgumentsAreChecked) {
  ANeuralNetworksEvent* event = reinterpret_cast<ANeuralNetworksEvent*>(&event);
  EXPECT_EQ(ANeuralNetworksEvent_createFromSyncFenceFd(-1, &event), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(event, nullptr);
  // 0 is open (standard input) but, as in the NDK, never taken for a fence.
  event = reinterpret_cast<ANeuralNetworksEvent*>(&event);
  EXPECT_EQ(ANeuralNetworksEvent_createFromSyncFenceFd(0, &event), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(event, nullptr);
  EXPECT_EQ(ANeuralNetworksEvent_createFromSyncFenceFd(0, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  // startCompute's event is not a sync fence: fd -1 and BAD_DATA, as the NDK says.
  AddRun run;
  ASSERT_NO_FATAL_FAILURE(makeAddRun(deviceFor(false), &run));
  ANeuralNetworksEvent* raw = nullptr;
  ASSERT_EQ(ANeuralNetworksExecution_startCompute(run.execution.get(), &raw), kOk);
  Event started(raw);
  int fd = 0;
  EXPECT_EQ(ANeuralNetworksEvent_getSyncFenceFd(started.get(), &fd), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(fd, -1);
  EXPECT_EQ(ANeuralNetworksEvent_getSyncFenceFd(nullptr, &fd), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksEvent_getSyncFenceFd(started.get(), nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
  EXPECT_EQ(ANeuralNetworksEvent_wait(started.get()), kOk);
}

// ---- Behaviour on each device ------------------------------------------------------------------

class CApiOnDeviceTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    device_ = deviceFor(GetParam());
    ASSERT_NE(device_, nullptr) << (GetParam() ? "no remote device through NNREMOTE_TARGETS" : "no nnapi-reference");
  }
  // `model` compiled for this test's device alone, finished.
  Compilation compileHere(ANeuralNetworksModel* model) const { return compile(model, device_); }
  // `source` built through the C API into `model` (which the compilation needs), then compiled here.
  Compilation compileHere(const hal::Model& source, CApiModel* model) const {
    std::string failure;
    const int code = model->build(source, &failure);
    EXPECT_EQ(code, kOk) << failure;
    return code == kOk ? compileHere(model->main()) : nullptr;
  }

  const ANeuralNetworksDevice* device_ = nullptr;
};

std::string deviceName(const ::testing::TestParamInfo<bool>& info) { return info.param ? "Remote" : "Reference"; }

TEST_P(CApiOnDeviceTest, UnspecifiedOutputShapeIsKnownAfterCompute) {
  Model model = addModel({0});
  ASSERT_NE(model, nullptr);
  Compilation compilation = compileHere(model.get());
  ASSERT_NE(compilation, nullptr);
  float out[2] = {};
  Execution execution = addExecution(compilation.get(), kA, kB, out);
  ASSERT_NE(execution, nullptr);
  ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), kOk);
  int code = kOk;
  EXPECT_EQ(outputDimensions(execution.get(), &code), std::vector<uint32_t>{2});
  EXPECT_EQ(code, kOk);
  EXPECT_EQ(values(out), kSum);
}

// out = a + b, a float32 of unspecified length, b float32 [2]: valid, and whether a's length
// fits b's is known only when it runs.
hal::Model broadcastModel() {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(hal::OperandType::TENSOR_FLOAT32, {0});
  const uint32_t x = b.addInput(hal::OperandType::TENSOR_FLOAT32, {2});
  const uint32_t out = b.addOutput(hal::OperandType::TENSOR_FLOAT32, {0});
  b.addOperation(hal::OperationType::ADD, {a, x, b.addInt32(ANEURALNETWORKS_FUSED_NONE)}, {out});
  return b.build();
}

TEST_P(CApiOnDeviceTest, ShapesThatClashWhenItRunsFailTheComputation) {
  CApiModel model;
  Compilation compilation = compileHere(broadcastModel(), &model);
  ASSERT_NE(compilation, nullptr);
  const float three[3] = {1.0f, 2.0f, 3.0f};
  float out[3] = {};
  Execution execution = executionOf(compilation.get());
  ASSERT_NE(execution, nullptr);
  const std::vector<uint32_t> dimensions = {3};
  const ANeuralNetworksOperandType type = tensorType(dimensions);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, &type, three, sizeof three), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, kB, sizeof kB), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, out, sizeof out), kOk);
  // [3] and [2] cannot be broadcast: the arguments were valid, so the computation fails, as
  // Android's runtime and CPU executor have it.
  EXPECT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_OP_FAILED);
}

TEST_P(CApiOnDeviceTest, AnInputOfUnknownShapeNeedsItEvenFromDeviceMemory) {
  CApiModel model;
  Compilation compilation = compileHere(broadcastModel(), &model);
  ASSERT_NE(compilation, nullptr);
  int code = kOk;
  Memory memory = memoryForRole(compilation.get(), /*input=*/true, 0, {2}, &code);
  ASSERT_EQ(code, kOk);
  ANeuralNetworksMemory* raw = memory.get();
  Execution execution = executionOf(compilation.get());
  ASSERT_NE(execution, nullptr);
  // The memory knows its dimensions; the input's own must be known all the same.
  EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, nullptr, raw, 0, 0),
            ANEURALNETWORKS_BAD_DATA);
  const std::vector<uint32_t> dimensions = {2};
  const ANeuralNetworksOperandType type = tensorType(dimensions);
  EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, &type, raw, 0, 0), kOk);
}

TEST_P(CApiOnDeviceTest, NoDeviceMakesAMemoryOfUnknownSize) {
  CApiModel model;
  Compilation compilation = compileHere(broadcastModel(), &model);
  ASSERT_NE(compilation, nullptr);
  int code = kOk;
  Memory memory = memoryForRole(compilation.get(), /*input=*/false, 0, {}, &code);
  // Neither the simulated NPU nor nnapi-reference makes one (as Android's sample driver and CPU
  // device), and a compilation for chosen devices falls back to no shared memory of unknown size.
  EXPECT_EQ(code, ANEURALNETWORKS_OP_FAILED);
  EXPECT_EQ(memory, nullptr);
  memory = memoryForRole(compilation.get(), /*input=*/false, 0, {2}, &code);
  EXPECT_EQ(code, kOk) << "its dimensions set";
}

TEST_P(CApiOnDeviceTest, TooSmallOutputGivesInsufficientSizeAndTheNeededShape) {
  Model model = addModel({0});
  ASSERT_NE(model, nullptr);
  Compilation compilation = compileHere(model.get());
  ASSERT_NE(compilation, nullptr);
  float out[2] = {};
  Execution execution = executionOf(compilation.get());
  ASSERT_NE(execution, nullptr);
  // The output's shape is unknown, so setOutput cannot tell that one float is too little.
  ASSERT_EQ(setAddArguments(execution.get(), kA, kB, out, sizeof(float)), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
  int code = kOk;
  EXPECT_EQ(outputDimensions(execution.get(), &code), std::vector<uint32_t>{2}) << "what the output needs";
  EXPECT_EQ(code, ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
  uint64_t duration = 0;
  EXPECT_EQ(ANeuralNetworksExecution_getDuration(execution.get(), ANEURALNETWORKS_DURATION_ON_HARDWARE, &duration),
            ANEURALNETWORKS_BAD_STATE)
      << "not measured";
}

TEST_P(CApiOnDeviceTest, ScalarOutputHasRankZeroAndNoDimensions) {
  Model model = rankModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compileHere(model.get());
  ASSERT_NE(compilation, nullptr);
  Execution execution = executionOf(compilation.get());
  ASSERT_NE(execution, nullptr);
  int32_t rankOfInput = -1;
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, kA, sizeof kA), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, &rankOfInput, sizeof rankOfInput), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), kOk);
  EXPECT_EQ(rankOfInput, 1);
  uint32_t rank = 7, dimensions[1] = {7};
  ASSERT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution.get(), 0, &rank), kOk);
  EXPECT_EQ(rank, 0u);
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution.get(), 0, dimensions),
            ANEURALNETWORKS_BAD_DATA);
}

TEST_P(CApiOnDeviceTest, MeasuredDurationsForEveryCode) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compileHere(model.get());
  ASSERT_NE(compilation, nullptr);
  float out[2] = {};
  const int32_t codes[] = {ANEURALNETWORKS_DURATION_ON_HARDWARE, ANEURALNETWORKS_DURATION_IN_DRIVER,
                           ANEURALNETWORKS_FENCED_DURATION_ON_HARDWARE, ANEURALNETWORKS_FENCED_DURATION_IN_DRIVER};
  for (bool fenced : {false, true}) {
    SCOPED_TRACE(fenced ? "startComputeWithDependencies" : "compute");
    Execution execution = addExecution(compilation.get(), kA, kB, out);
    ASSERT_NE(execution, nullptr);
    ASSERT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution.get(), true), kOk);
    if (fenced) {
      int code = kOk;
      Event event = startAfter(execution.get(), {}, &code);
      ASSERT_EQ(code, kOk);
      ASSERT_EQ(ANeuralNetworksEvent_wait(event.get()), kOk);
    } else {
      ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), kOk);
    }
    uint64_t durations[4] = {};
    for (int i = 0; i < 4; ++i) {
      ASSERT_EQ(ANeuralNetworksExecution_getDuration(execution.get(), codes[i], &durations[i]), kOk) << codes[i];
      EXPECT_NE(durations[i], UINT64_MAX) << "duration code " << codes[i] << " was measured";
    }
    // Time in the driver includes the time on the hardware.
    EXPECT_GE(durations[1], durations[0]);
    EXPECT_GE(durations[3], durations[2]);
    if (!fenced) {
      // The NDK: without dependencies the fenced durations are the same as the others.
      EXPECT_EQ(durations[2], durations[0]);
      EXPECT_EQ(durations[3], durations[1]);
    } else {
      // The others count from the call (HAL 1.3's timingLaunched), the fenced ones from when the
      // dependencies signaled (timingFenced): as Android's TestIntrospectionControl checks.
      EXPECT_GE(durations[0], durations[2]);
      EXPECT_GE(durations[1], durations[3]);
    }
  }
}

TEST_P(CApiOnDeviceTest, StartComputeSignalsItsEvent) {
  AddRun run;
  ASSERT_NO_FATAL_FAILURE(makeAddRun(device_, &run));
  ANeuralNetworksEvent* raw = nullptr;
  ASSERT_EQ(ANeuralNetworksExecution_startCompute(run.execution.get(), &raw), kOk);
  Event event(raw);
  ASSERT_NE(event, nullptr);
  EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), kOk);
  EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), kOk) << "waiting again returns at once";
  EXPECT_EQ(values(run.out), kSum);
  int code = kOk;
  EXPECT_EQ(outputDimensions(run.execution.get(), &code), std::vector<uint32_t>{2});
  EXPECT_EQ(code, kOk);
}

TEST_P(CApiOnDeviceTest, EventFreeWaitsForItsExecution) {
  AddRun run;
  ASSERT_NO_FATAL_FAILURE(makeAddRun(device_, &run));
  ANeuralNetworksEvent* event = nullptr;
  ASSERT_EQ(ANeuralNetworksExecution_startCompute(run.execution.get(), &event), kOk);
  ANeuralNetworksEvent_free(event);  // most likely still running: free waits for it
  // Completed, not running: the output's shape is known and the output written.
  uint32_t rank = 0;
  EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(run.execution.get(), 0, &rank), kOk);
  EXPECT_EQ(rank, 1u);
  EXPECT_EQ(values(run.out), kSum);
}

TEST_P(CApiOnDeviceTest, ExecutionFreedRightAfterStartComputeStillFinishes) {
  AddRun run;
  ASSERT_NO_FATAL_FAILURE(makeAddRun(device_, &run));
  ANeuralNetworksEvent* raw = nullptr;
  ASSERT_EQ(ANeuralNetworksExecution_startCompute(run.execution.get(), &raw), kOk);
  Event event(raw);
  // The NDK asks programs to wait first; this runtime keeps a running execution alive anyway.
  ANeuralNetworksExecution_free(run.execution.release());
  EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), kOk);
  EXPECT_EQ(values(run.out), kSum);
}

TEST_P(CApiOnDeviceTest, DependenciesChainTwoExecutions) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compileHere(model.get());
  ASSERT_NE(compilation, nullptr);
  expectChainedSums(compilation.get());
}

TEST_P(CApiOnDeviceTest, AFailedDependencyFailsTheExecutionAfterIt) {
  Model unspecified = addModel({0});
  Model model = addModel();
  ASSERT_NE(unspecified, nullptr);
  ASSERT_NE(model, nullptr);
  Compilation failing = compileHere(unspecified.get());
  Compilation compilation = compileHere(model.get());
  ASSERT_NE(failing, nullptr);
  ASSERT_NE(compilation, nullptr);
  float small[1] = {}, out[2] = {};
  Execution first = executionOf(failing.get());
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(setAddArguments(first.get(), kA, kB, small, sizeof small), kOk);
  ANeuralNetworksEvent* raw = nullptr;
  ASSERT_EQ(ANeuralNetworksExecution_startCompute(first.get(), &raw), kOk);
  Event firstDone(raw);
  Execution second = addExecution(compilation.get(), kA, kB, out);
  ASSERT_NE(second, nullptr);
  int code = kOk;
  Event secondDone = startAfter(second.get(), {firstDone.get()}, &code);
  // The NDK: refused at once if the dependency has already failed, else failed through the event.
  if (code == kOk) code = ANeuralNetworksEvent_wait(secondDone.get());
  EXPECT_NE(code, kOk);
  EXPECT_EQ(ANeuralNetworksEvent_wait(firstDone.get()), ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
}

TEST_P(CApiOnDeviceTest, BurstComputeRunsAgainAndAgain) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compileHere(model.get());
  ASSERT_NE(compilation, nullptr);
  ANeuralNetworksBurst* raw = nullptr;
  ASSERT_EQ(ANeuralNetworksBurst_create(compilation.get(), &raw), kOk);
  Burst burst(raw);
  float a[2] = {1.0f, 2.0f}, out[2] = {};
  Execution execution = executionOf(compilation.get());
  ASSERT_NE(execution, nullptr);
  ASSERT_EQ(ANeuralNetworksExecution_setReusable(execution.get(), true), kOk);
  ASSERT_EQ(setAddArguments(execution.get(), a, kB, out), kOk);
  for (float first : {1.0f, 5.0f, -3.0f}) {
    a[0] = first;
    ASSERT_EQ(ANeuralNetworksExecution_burstCompute(execution.get(), burst.get()), kOk);
    EXPECT_EQ(values(out), (std::vector<float>{first + 10.0f, 22.0f}));
  }
  Execution once = addExecution(compilation.get(), kA, kB, out);
  ASSERT_NE(once, nullptr);
  ASSERT_EQ(ANeuralNetworksExecution_burstCompute(once.get(), burst.get()), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_burstCompute(once.get(), burst.get()), ANEURALNETWORKS_BAD_STATE)
      << "not reusable";
}

TEST_P(CApiOnDeviceTest, PaddedArgumentsAreAcceptedOnlyWhenEnabled) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compileHere(model.get());
  ASSERT_NE(compilation, nullptr);
  uint32_t padding = 0;
  ASSERT_EQ(ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput(compilation.get(), 0, &padding), kOk);
  // Buffers of the preferred padding, larger than the 8 bytes each operand needs.
  const size_t padded = std::max<size_t>(padding, 16);
  std::vector<float> a(padded / sizeof(float), 0.0f), b(a.size(), 0.0f), out(a.size(), -1.0f);
  std::copy(kA, kA + 2, a.begin());
  std::copy(kB, kB + 2, b.begin());

  Execution strict = executionOf(compilation.get());
  ASSERT_NE(strict, nullptr);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(strict.get(), 0, nullptr, a.data(), padded), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(strict.get(), 0, nullptr, out.data(), padded), ANEURALNETWORKS_BAD_DATA);

  Execution execution = executionOf(compilation.get());
  ASSERT_NE(execution, nullptr);
  ASSERT_EQ(ANeuralNetworksExecution_enableInputAndOutputPadding(execution.get(), true), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, a.data(), 4), ANEURALNETWORKS_BAD_DATA)
      << "padding allows more, never less";
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, a.data(), padded), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, b.data(), padded), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, out.data(), padded), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), kOk);
  EXPECT_EQ(std::vector<float>(out.begin(), out.begin() + 2), kSum);
}

TEST_P(CApiOnDeviceTest, TheLongestTimeoutsNeverRunOut) {
  // Android's runtime takes any uint64_t as a timeout, one too long for its clock as one that never
  // runs out: for a compilation, each way of computing, and the time after the fences.
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  for (const uint64_t timeout : {uint64_t{INT64_MAX}, uint64_t{INT64_MAX} + 1, UINT64_MAX}) {
    SCOPED_TRACE("timeout " + std::to_string(timeout));
    Compilation compilation = compile(model.get(), device_, /*finish=*/false);
    ASSERT_NE(compilation, nullptr);
    ASSERT_EQ(ANeuralNetworksCompilation_setTimeout(compilation.get(), timeout), kOk);
    ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation.get()), kOk);
    ANeuralNetworksBurst* rawBurst = nullptr;
    ASSERT_EQ(ANeuralNetworksBurst_create(compilation.get(), &rawBurst), kOk);
    Burst burst(rawBurst);
    for (const char* way : {"compute", "startCompute", "burstCompute", "startComputeWithDependencies"}) {
      SCOPED_TRACE(way);
      float out[2] = {};
      Execution execution = addExecution(compilation.get(), kA, kB, out);
      ASSERT_NE(execution, nullptr);
      ASSERT_EQ(ANeuralNetworksExecution_setTimeout(execution.get(), timeout), kOk);
      const std::string name = way;
      int code = kOk;
      if (name == "compute") {
        code = ANeuralNetworksExecution_compute(execution.get());
      } else if (name == "burstCompute") {
        code = ANeuralNetworksExecution_burstCompute(execution.get(), burst.get());
      } else {
        ANeuralNetworksEvent* raw = nullptr;
        code = name == "startCompute"
                   ? ANeuralNetworksExecution_startCompute(execution.get(), &raw)
                   : ANeuralNetworksExecution_startComputeWithDependencies(execution.get(), nullptr, 0, timeout, &raw);
        Event event(raw);
        if (code == kOk) code = ANeuralNetworksEvent_wait(event.get());
      }
      EXPECT_EQ(code, kOk);
      EXPECT_EQ(values(out), kSum);
    }
  }
}

TEST_P(CApiOnDeviceTest, LoopTimeoutsAreClampedToTheMaximum) {
  const hal::Model loop = whileModel();  // WHILE (i < limit) { i = i + 1; sum = sum + i }
  CApiModel model;
  Compilation compilation = compileHere(loop, &model);
  ASSERT_NE(compilation, nullptr);
  const float i = 0.0f, sum = 0.0f;
  float limit = 3.0f, finalI = -1.0f, finalSum = -1.0f;
  auto run = [&](uint64_t loopTimeout) -> int {
    Execution execution = executionOf(compilation.get());
    if (execution == nullptr) return ANEURALNETWORKS_OP_FAILED;
    const int set = ANeuralNetworksExecution_setLoopTimeout(execution.get(), loopTimeout);
    if (set != kOk) return set;
    ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, &i, sizeof i);
    ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, &sum, sizeof sum);
    ANeuralNetworksExecution_setInput(execution.get(), 2, nullptr, &limit, sizeof limit);
    ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, &finalI, sizeof finalI);
    ANeuralNetworksExecution_setOutput(execution.get(), 1, nullptr, &finalSum, sizeof finalSum);
    return ANeuralNetworksExecution_compute(execution.get());
  };
  // UINT64_MAX is more than the maximum, which stands instead: the loop has all the time it needs.
  ASSERT_EQ(run(UINT64_MAX), kOk);
  EXPECT_EQ(finalI, 3.0f);
  EXPECT_EQ(finalSum, 6.0f);
  // One nanosecond is over long before a thousand iterations are.
  limit = 1000.0f;
  const int code = run(1);
  EXPECT_TRUE(code == ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT || code == ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT)
      << "result code " << code;
}

// A temporary directory under TEST_TMPDIR; removed with its files.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    const char* root = std::getenv("TEST_TMPDIR");
    std::string pattern = std::string(root != nullptr ? root : "/tmp") + "/c_api_semantics_XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TemporaryDirectory() {
    for (const std::string& name : files()) unlink((path_ + "/" + name).c_str());
    rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    DIR* directory = opendir(path_.c_str());
    if (directory == nullptr) return names;
    while (const dirent* entry = readdir(directory)) {
      if (entry->d_name[0] != '.') names.push_back(entry->d_name);
    }
    closedir(directory);
    return names;
  }
  size_t bytes() const {
    size_t total = 0;
    for (const std::string& name : files()) {
      struct stat status {};
      if (stat((path_ + "/" + name).c_str(), &status) == 0) total += static_cast<size_t>(status.st_size);
    }
    return total;
  }

 private:
  std::string path_;
};

TEST_P(CApiOnDeviceTest, CachingServesTheSecondCompilationFromTheCache) {
  TemporaryDirectory cache;
  ASSERT_FALSE(cache.path().empty());
  uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN];
  for (size_t i = 0; i < sizeof token; ++i) token[i] = static_cast<uint8_t>(i + (GetParam() ? 100 : 0));
  auto compileCached = [&](ANeuralNetworksModel* model, const uint8_t* withToken) {
    Compilation compilation = compile(model, device_, /*finish=*/false);
    if (compilation == nullptr) return compilation;
    if (ANeuralNetworksCompilation_setCaching(compilation.get(), cache.path().c_str(), withToken) != kOk ||
        ANeuralNetworksCompilation_finish(compilation.get()) != kOk) {
      return Compilation();
    }
    return compilation;
  };
  auto sumOf = [](ANeuralNetworksCompilation* compilation, const float* a, const float* b) {
    float out[2] = {-1.0f, -1.0f};
    Execution execution = addExecution(compilation, a, b, out);
    if (execution == nullptr || ANeuralNetworksExecution_compute(execution.get()) != kOk) return std::vector<float>();
    return values(out);
  };
  const float a[2] = {1.0f, -5.0f}, b[2] = {2.0f, 1.0f};

  // As Android's runtime: a device is asked to prepare from a cache only when its files existed.
  const bool onRemote = GetParam();
  int prepared = remote()->prepareCalls(), fromCache = remote()->prepareFromCacheCalls();
  auto expectCalls = [&](int preparations, int fromCaches, const char* when) {
    if (!onRemote) return;
    EXPECT_EQ(remote()->prepareCalls() - prepared, preparations) << when;
    EXPECT_EQ(remote()->prepareFromCacheCalls() - fromCache, fromCaches) << when;
    prepared = remote()->prepareCalls();
    fromCache = remote()->prepareFromCacheCalls();
  };

  Model plain = addModel();
  ASSERT_NE(plain, nullptr);
  Compilation first = compileCached(plain.get(), token);
  ASSERT_NE(first, nullptr);
  expectCalls(1, 0, "no cache yet: prepared, not asked for a cache");
  EXPECT_FALSE(cache.files().empty()) << "the first finish wrote the cache";
  EXPECT_GT(cache.bytes(), 0u);
  EXPECT_EQ(sumOf(first.get(), a, b), (std::vector<float>{3.0f, -4.0f}));

  // The same token for a different model (ADD with RELU): a collision the NDK warns gives wrong
  // outputs, which here shows that the second finish prepared what the cache held, not the model.
  Model relu = addModel({2}, ANEURALNETWORKS_FUSED_RELU);
  ASSERT_NE(relu, nullptr);
  Compilation second = compileCached(relu.get(), token);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(sumOf(second.get(), a, b), (std::vector<float>{3.0f, -4.0f})) << "served from the cache";
  expectCalls(0, 1, "the same token: served from the cache");

  uint8_t otherToken[sizeof token];
  std::copy(token, token + sizeof token, otherToken);
  otherToken[0] ^= 0xFF;
  Compilation fresh = compileCached(relu.get(), otherToken);
  ASSERT_NE(fresh, nullptr);
  EXPECT_EQ(sumOf(fresh.get(), a, b), (std::vector<float>{3.0f, 0.0f})) << "its own token: the model itself";
  expectCalls(1, 0, "a new token: prepared, not asked for a cache");
}

// As on Android, a cache directory that cannot be used costs the caching, not the compilation.
TEST_P(CApiOnDeviceTest, ACacheDirectoryThatCannotBeOpenedCompilesWithoutCaching) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compile(model.get(), device_, /*finish=*/false);
  ASSERT_NE(compilation, nullptr);
  uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN] = {7};
  ASSERT_EQ(ANeuralNetworksCompilation_setCaching(compilation.get(), "/nonexistent/nnremote-cache", token), kOk);
  ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation.get()), kOk);
  expectSum(compilation.get());
}

// A memory from a descriptor naming output 0 and input 0 of one compilation: this device's own
// memory (a memory domain), so one execution's result is the next one's input without passing
// through the program; Memory_copy moves data out of it and into it.
TEST_P(CApiOnDeviceTest, DeviceMemoryCarriesAResultIntoTheNextExecution) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compileHere(model.get());
  ASSERT_NE(compilation, nullptr);
  MemoryDesc desc = newDesc();
  ASSERT_NE(desc, nullptr);
  ASSERT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc.get(), compilation.get(), 0, 1.0f), kOk);
  ASSERT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), compilation.get(), 0, 1.0f), kOk);
  ASSERT_EQ(ANeuralNetworksMemoryDesc_finish(desc.get()), kOk);
  ANeuralNetworksMemory* raw = nullptr;
  ASSERT_EQ(ANeuralNetworksMemory_createFromDesc(desc.get(), &raw), kOk);
  Memory memory(raw);
  auto run = [&](bool inputFromMemory, bool outputToMemory, float* out) {
    Execution execution = executionOf(compilation.get());
    if (execution == nullptr) return -1;
    const int input = inputFromMemory
                          ? ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, nullptr, raw, 0, 0)
                          : ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, kA, sizeof kA);
    const int output = outputToMemory
                           ? ANeuralNetworksExecution_setOutputFromMemory(execution.get(), 0, nullptr, raw, 0, 0)
                           : ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, out, 2 * sizeof(float));
    if (input != kOk || output != kOk ||
        ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, kB, sizeof kB) != kOk) {
      return -2;
    }
    return ANeuralNetworksExecution_compute(execution.get());
  };
  float out[2] = {};
  {
    // Read before anything was written to it: as in Android's runtime, the computation starts and
    // fails, so the execution is completed (no second compute) with no shapes and no durations.
    Execution execution = executionOf(compilation.get());
    ASSERT_NE(execution, nullptr);
    ANeuralNetworksExecution* e = execution.get();
    ASSERT_EQ(ANeuralNetworksExecution_setMeasureTiming(e, true), kOk);
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(e, 0, nullptr, raw, 0, 0), kOk);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(e, 1, nullptr, kB, sizeof kB), kOk);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(e, 0, nullptr, out, sizeof out), kOk);
    EXPECT_EQ(ANeuralNetworksExecution_compute(e), ANEURALNETWORKS_OP_FAILED);
    EXPECT_EQ(ANeuralNetworksExecution_compute(e), ANEURALNETWORKS_BAD_STATE) << "completed, and not reusable";
    uint32_t rank = 0;
    uint64_t duration = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(e, 0, &rank), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_getDuration(e, ANEURALNETWORKS_DURATION_ON_HARDWARE, &duration),
              ANEURALNETWORKS_BAD_STATE)
        << "a failed computation has no durations";
    EXPECT_EQ(duration, UINT64_MAX);
  }
  ASSERT_EQ(run(false, true, nullptr), kOk);  // memory = a + b
  ASSERT_EQ(run(true, false, out), kOk);      // out = memory + b
  EXPECT_EQ(values(out), (std::vector<float>{21.0f, 42.0f}));

  // Out of the device's memory into the program's, and back in.
  const int fd = memfdOf(2 * sizeof(float)), wrongFd = memfdOf(4 * sizeof(float));
  ASSERT_GE(fd, 0);
  ASSERT_GE(wrongFd, 0);
  auto* mapped = static_cast<float*>(mmap(nullptr, 2 * sizeof(float), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  ASSERT_NE(mapped, MAP_FAILED);
  ANeuralNetworksMemory *shared = nullptr, *wrong = nullptr;
  ASSERT_EQ(ANeuralNetworksMemory_createFromFd(2 * sizeof(float), PROT_READ | PROT_WRITE, fd, 0, &shared), kOk);
  Memory sharedOwned(shared);
  ASSERT_EQ(ANeuralNetworksMemory_createFromFd(4 * sizeof(float), PROT_READ | PROT_WRITE, wrongFd, 0, &wrong), kOk);
  Memory wrongOwned(wrong);
  ASSERT_EQ(ANeuralNetworksMemory_copy(raw, shared), kOk);
  EXPECT_EQ(values(mapped), kSum);
  EXPECT_EQ(ANeuralNetworksMemory_copy(raw, wrong), ANEURALNETWORKS_BAD_DATA) << "16 bytes for 8";
  mapped[0] = 5.0f;
  mapped[1] = 6.0f;
  ASSERT_EQ(ANeuralNetworksMemory_copy(shared, raw), kOk);
  ASSERT_EQ(run(true, false, out), kOk);
  EXPECT_EQ(values(out), (std::vector<float>{15.0f, 26.0f}));
  EXPECT_EQ(ANeuralNetworksMemory_copy(wrong, raw), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(run(true, false, out), ANEURALNETWORKS_OP_FAILED) << "a failed copy leaves the memory without data";
  munmap(mapped, 2 * sizeof(float));
  close(fd);
  close(wrongFd);
}

// Waits (bounded) until `fd` is readable; its status byte as docs/runtime.md defines it, or -1.
int statusOfSyncFenceFd(int fd) {
  pollfd readable{fd, POLLIN, 0};
  if (poll(&readable, 1, 30'000) != 1) return -1;
  char status = -1;
  return recv(fd, &status, 1, MSG_PEEK) == 1 ? status : -1;
}

// A sync-fence fd of the program's own gates an execution on this device, and the execution's
// own event is handed out as one (docs/runtime.md defines both).
TEST_P(CApiOnDeviceTest, SyncFenceFdsCrossTheApiBothWays) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compileHere(model.get());
  ASSERT_NE(compilation, nullptr);
  auto gated = [&](int gateFd, float* out, int* fenceFd) {
    ANeuralNetworksEvent* raw = nullptr;
    EXPECT_EQ(ANeuralNetworksEvent_createFromSyncFenceFd(gateFd, &raw), kOk);
    Event gate(raw);
    Execution execution = addExecution(compilation.get(), kA, kB, out);
    int code = kOk;
    Event done = startAfter(execution.get(), {gate.get()}, &code);
    EXPECT_EQ(code, kOk);
    EXPECT_EQ(ANeuralNetworksEvent_getSyncFenceFd(done.get(), fenceFd), kOk);
    return std::make_tuple(std::move(gate), std::move(execution), std::move(done));
  };

  int ends[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0);
  float out[2] = {};
  int fenceFd = -1;
  auto [gate, execution, done] = gated(ends[0], out, &fenceFd);
  close(ends[0]);  // the library keeps its own copy
  ASSERT_GE(fenceFd, 0);
  pollfd readable{fenceFd, POLLIN, 0};
  EXPECT_EQ(poll(&readable, 1, 0), 0) << "the execution waits for the program's fence";
  const char ok = 0;
  ASSERT_EQ(write(ends[1], &ok, 1), 1);
  EXPECT_EQ(ANeuralNetworksEvent_wait(done.get()), kOk);
  EXPECT_EQ(statusOfSyncFenceFd(fenceFd), 0);
  EXPECT_EQ(values(out), kSum);
  close(ends[1]);
  close(fenceFd);

  // A fence that signals an error fails the execution after it, and its fd says so.
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0);
  auto [failedGate, failedExecution, failed] = gated(ends[0], out, &fenceFd);
  const char error = 1;
  ASSERT_EQ(write(ends[1], &error, 1), 1);
  EXPECT_NE(ANeuralNetworksEvent_wait(failed.get()), kOk);
  EXPECT_EQ(ANeuralNetworksEvent_wait(failedGate.get()), ANEURALNETWORKS_OP_FAILED);
  EXPECT_EQ(statusOfSyncFenceFd(fenceFd), 1);
  close(ends[0]);
  close(ends[1]);
  close(fenceFd);

  // A program that closes the fd it was given before the fence signals: the library's end has
  // no one to tell, which must not kill the program (SIGPIPE).
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0);
  auto [closedGate, closedExecution, closedDone] = gated(ends[0], out, &fenceFd);
  close(fenceFd);
  ASSERT_EQ(write(ends[1], &ok, 1), 1);
  EXPECT_EQ(ANeuralNetworksEvent_wait(closedDone.get()), kOk);
  close(ends[0]);
  close(ends[1]);

  // An eventfd is a fence too: readable means signaled.
  const int eventFd = eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(eventFd, 0);
  std::fill(out, out + 2, 0.0f);
  auto [eventGate, eventExecution, afterEvent] = gated(eventFd, out, &fenceFd);
  const uint64_t one = 1;
  ASSERT_EQ(write(eventFd, &one, sizeof one), static_cast<ssize_t>(sizeof one));
  EXPECT_EQ(ANeuralNetworksEvent_wait(afterEvent.get()), kOk);
  EXPECT_EQ(values(out), kSum);
  close(eventFd);
  close(fenceFd);
}

INSTANTIATE_TEST_SUITE_P(BothDevices, CApiOnDeviceTest, ::testing::Values(true, false), deviceName);

// ---- Memories from file descriptors, on each device --------------------------------------------

enum class FdKind { MEMFD, SHM, FILE };

// A file descriptor of `size` bytes of one kind, removed (shm_unlink, unlink) and closed at the end.
class SharedFile {
 public:
  SharedFile(FdKind kind, size_t size) {
    if (kind == FdKind::MEMFD) {
      fd_ = memfdOf(size);
      return;
    }
    if (kind == FdKind::SHM) {
      shmName_ = "/nnremote-capi-semantics-" + uniqueToken();
      fd_ = shm_open(shmName_.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    } else {
      const char* root = std::getenv("TEST_TMPDIR");
      path_ = std::string(root != nullptr ? root : "/tmp") + "/c_api_semantics_XXXXXX";
      fd_ = mkstemp(path_.data());
    }
    if (fd_ >= 0 && ftruncate(fd_, static_cast<off_t>(size)) != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~SharedFile() {
    if (!shmName_.empty()) shm_unlink(shmName_.c_str());
    if (!path_.empty()) unlink(path_.c_str());
    if (fd_ >= 0) close(fd_);
  }
  int fd() const { return fd_; }
  // The program is done with its descriptor (the memory keeps what it needs).
  void closeFd() {
    close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  std::string shmName_, path_;
};

class CApiMemoryTest : public ::testing::TestWithParam<std::tuple<bool, FdKind>> {};

std::string memoryCaseName(const ::testing::TestParamInfo<std::tuple<bool, FdKind>>& info) {
  static const char* kinds[] = {"Memfd", "Shm", "File"};
  return std::string(std::get<0>(info.param) ? "Remote" : "Reference") + "_" +
         kinds[static_cast<int>(std::get<1>(info.param))];
}

TEST_P(CApiMemoryTest, TheProgramsMappingIsWhatExecutionsReadAndWrite) {
  const ANeuralNetworksDevice* device = deviceFor(std::get<0>(GetParam()));
  ASSERT_NE(device, nullptr);
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compile(model.get(), device);
  ASSERT_NE(compilation, nullptr);

  constexpr size_t kSize = 4096, kAOffset = 0, kBOffset = 64, kOutOffset = 128;
  SharedFile file(std::get<1>(GetParam()), kSize);
  ASSERT_GE(file.fd(), 0) << std::strerror(errno);
  void* mapped = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_SHARED, file.fd(), 0);
  ASSERT_NE(mapped, MAP_FAILED);
  auto* bytes = static_cast<uint8_t*>(mapped);
  auto* a = reinterpret_cast<float*>(bytes + kAOffset);
  auto* b = reinterpret_cast<float*>(bytes + kBOffset);
  auto* out = reinterpret_cast<float*>(bytes + kOutOffset);
  std::copy(kA, kA + 2, a);
  std::copy(kB, kB + 2, b);
  ANeuralNetworksMemory* raw = nullptr;
  ASSERT_EQ(ANeuralNetworksMemory_createFromFd(kSize, PROT_READ | PROT_WRITE, file.fd(), 0, &raw), kOk);
  Memory memory(raw);
  file.closeFd();  // the NDK: the memory does not need the program's descriptor

  Execution execution = executionOf(compilation.get());
  ASSERT_NE(execution, nullptr);
  ASSERT_EQ(ANeuralNetworksExecution_setReusable(execution.get(), true), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, nullptr, raw, kAOffset, 8), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 1, nullptr, raw, kBOffset, 8), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution.get(), 0, nullptr, raw, kSize - 4, 8),
            ANEURALNETWORKS_BAD_DATA)
      << "beyond the memory";
  ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution.get(), 0, nullptr, raw, kOutOffset, 8), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), kOk);
  EXPECT_EQ(values(out), kSum);

  // New inputs written through the program's mapping are what the next computation reads.
  a[0] = 1000.0f;
  b[1] = -20.0f;
  ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), kOk);
  EXPECT_EQ(values(out), (std::vector<float>{1010.0f, -18.0f}));
  munmap(mapped, kSize);
}

INSTANTIATE_TEST_SUITE_P(EveryKindOnBothDevices, CApiMemoryTest,
                         ::testing::Combine(::testing::Values(true, false),
                                            ::testing::Values(FdKind::MEMFD, FdKind::SHM, FdKind::FILE)),
                         memoryCaseName);

}  // namespace
}  // namespace nnremote::testing
