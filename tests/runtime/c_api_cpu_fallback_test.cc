// Android's CPU fallback through the C API (docs/runtime.md): a compilation made with
// Compilation_create whose device fails runs on nnapi-reference instead, and the program gets its
// result; one made for chosen devices gets the device's error. The remote device is a simulated
// NPU on a real server this test starts, with faults of its own: every execution of a model with
// ADD fails (npu_emulator's --fault=error:op=ADD), preparing a model with MUL fails as a device
// fails, with SUB as a bad argument, and it does not support DIV.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "drivers/sim/sim_device.h"
#include "hal/forwarding_device.h"
#include "hal/model_builder.h"
#include "middleware/fault_injection.h"
#include "runtime/compilation.h"
#include "runtime/devices.h"
#include "testing/add_model.h"
#include "tests/runtime/c_api_helpers.h"
#include "tests/runtime/c_api_model.h"
#include "tests/runtime/remote_server.h"

namespace nnremote::testing {
namespace {

bool has(const hal::Model& model, hal::OperationType type) {
  for (const hal::Operation& operation : model.main.operations) {
    if (operation.type == type) return true;
  }
  return false;
}

class FailingDevice : public hal::ForwardingDevice {
 public:
  using ForwardingDevice::ForwardingDevice;
  hal::Result<std::vector<bool>> getSupportedOperations(const hal::Model& model) const override {
    NN_ASSIGN_OR_RETURN(std::vector<bool> supported, ForwardingDevice::getSupportedOperations(model));
    for (size_t i = 0; i < supported.size(); ++i) {
      supported[i] = supported[i] && model.main.operations[i].type != hal::OperationType::DIV;
    }
    return supported;
  }
  hal::Result<hal::SharedPreparedModel> prepareModel(const hal::Model& model, hal::ExecutionPreference preference,
                                                     hal::Priority priority, const hal::OptionalTimePoint& deadline,
                                                     const std::vector<hal::CacheFile>& modelCache,
                                                     const std::vector<hal::CacheFile>& dataCache,
                                                     const hal::CacheToken& token) const override {
    if (has(model, hal::OperationType::MUL)) {
      return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "the device failed to prepare MUL";
    }
    if (has(model, hal::OperationType::SUB)) return hal::invalidArgument() << "the device calls SUB a bad argument";
    return ForwardingDevice::prepareModel(model, preference, priority, deadline, modelCache, dataCache, token);
  }
};

middleware::FaultInjector& addFaults() {
  static auto* faults = new middleware::FaultInjector({middleware::FaultKind::ERROR, 0, "ADD", ""});
  return *faults;
}

const auto* const kServer = ::testing::AddGlobalTestEnvironment(new RemoteServer(
    "capi-fallback",
    {std::make_shared<FailingDevice>(addFaults().wrap({sim::SimDevice::create(sim::edgeNpuConfig())}).front())}));

// `source` built through the C API into `model`, compiled by Compilation_create (or for the
// remote device alone) and finished; `code` is what finish returned.
Compilation compileModel(const hal::Model& source, CApiModel* model, bool forRemoteDevice, int* code) {
  std::string failure;
  *code = model->build(source, &failure);
  EXPECT_EQ(*code, kOk) << failure;
  if (*code != kOk) return nullptr;
  Compilation compilation = compile(model->main(), forRemoteDevice ? deviceFor(true) : nullptr, /*finish=*/false);
  if (compilation == nullptr) {
    *code = ANEURALNETWORKS_OP_FAILED;
    return nullptr;
  }
  *code = ANeuralNetworksCompilation_finish(compilation.get());
  return *code == kOk ? std::move(compilation) : nullptr;
}

// Executions the remote device has seen, failed ones included.
uint64_t deviceExecutions() { return addFaults().executionsSeen(); }

TEST(CApiCpuFallbackTest, AnExecutionTheDeviceFailsRunsOnTheCpuInEveryWay) {
  ASSERT_NE(deviceFor(true), nullptr) << "no remote device through NNREMOTE_TARGETS";
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compile(model.get());
  ASSERT_NE(compilation, nullptr);

  uint64_t seen = deviceExecutions();
  expectSum(compilation.get());
  EXPECT_EQ(deviceExecutions(), seen + 1) << "the device ran it first";

  float out[2] = {};
  Execution execution = addExecution(compilation.get(), kA, kB, out);
  ASSERT_NE(execution, nullptr);
  ANeuralNetworksEvent* raw = nullptr;
  ASSERT_EQ(ANeuralNetworksExecution_startCompute(execution.get(), &raw), kOk);
  Event event(raw);
  EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), kOk) << "startCompute";
  EXPECT_EQ(values(out), kSum);

  ANeuralNetworksBurst* rawBurst = nullptr;
  ASSERT_EQ(ANeuralNetworksBurst_create(compilation.get(), &rawBurst), kOk);
  Burst burst(rawBurst);
  out[0] = out[1] = 0;
  execution = addExecution(compilation.get(), kA, kB, out);
  ASSERT_NE(execution, nullptr);
  EXPECT_EQ(ANeuralNetworksExecution_burstCompute(execution.get(), burst.get()), kOk);
  EXPECT_EQ(values(out), kSum) << "burstCompute";

  // Fenced, after a dependency (itself fenced and fallen back) and without one.
  float middle[2] = {};
  const float c[2] = {100.0f, 200.0f};
  Execution first = addExecution(compilation.get(), kA, kB, middle);
  Execution second = addExecution(compilation.get(), middle, c, out);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  int code = kOk;
  Event firstDone = startAfter(first.get(), {}, &code);
  ASSERT_EQ(code, kOk);
  Event secondDone = startAfter(second.get(), {firstDone.get()}, &code);
  ASSERT_EQ(code, kOk);
  EXPECT_EQ(ANeuralNetworksEvent_wait(secondDone.get()), kOk);
  EXPECT_EQ(values(out), (std::vector<float>{111.0f, 222.0f})) << "startComputeWithDependencies";

  // A reusable execution falls back each time it fails.
  out[0] = out[1] = 0;
  execution = addExecution(compilation.get(), kA, kB, out);
  ASSERT_NE(execution, nullptr);
  ASSERT_EQ(ANeuralNetworksExecution_setReusable(execution.get(), true), kOk);
  seen = deviceExecutions();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution.get()), kOk) << "reusable, computation " << i;
    EXPECT_EQ(values(out), kSum);
    out[0] = out[1] = 0;
  }
  EXPECT_EQ(deviceExecutions(), seen + 2) << "each computation was tried on the device first";
}

TEST(CApiCpuFallbackTest, AnExecutionForChosenDevicesGetsTheDevicesError) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compile(model.get(), deviceFor(true));
  ASSERT_NE(compilation, nullptr);
  float out[2] = {};
  Execution execution = addExecution(compilation.get(), kA, kB, out);
  ASSERT_NE(execution, nullptr);
  EXPECT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_OP_FAILED);
}

// A host memory of `bytes` the program maps (a memfd), for filling and reading device memories.
struct HostMemory {
  explicit HostMemory(size_t bytes) : size(bytes) {
    fd = memfd_create("c_api_cpu_fallback_test", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(bytes)) != 0) return;
    data = static_cast<float*>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    ANeuralNetworksMemory* raw = nullptr;
    if (data != MAP_FAILED && ANeuralNetworksMemory_createFromFd(bytes, PROT_READ | PROT_WRITE, fd, 0, &raw) == kOk) {
      memory.reset(raw);
    }
  }
  ~HostMemory() {
    memory.reset();
    if (data != nullptr && data != MAP_FAILED) munmap(data, size);
    if (fd >= 0) close(fd);
  }
  size_t size;
  int fd = -1;
  float* data = nullptr;
  Memory memory;
};

TEST(CApiCpuFallbackTest, DeviceMemoriesAreReadAndWrittenForTheCpu) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compile(model.get());
  ASSERT_NE(compilation, nullptr);
  int code = kOk;
  Memory input = memoryForRole(compilation.get(), /*input=*/true, 0, {}, &code);
  ASSERT_EQ(code, kOk);
  Memory output = memoryForRole(compilation.get(), /*input=*/false, 0, {}, &code);
  ASSERT_EQ(code, kOk);
  HostMemory host(2 * sizeof(float));
  ASSERT_NE(host.memory, nullptr);
  host.data[0] = kA[0];
  host.data[1] = kA[1];
  ASSERT_EQ(ANeuralNetworksMemory_copy(host.memory.get(), input.get()), kOk);

  Execution execution = executionOf(compilation.get());
  ASSERT_NE(execution, nullptr);
  ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, nullptr, input.get(), 0, 0), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, kB, sizeof kB), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution.get(), 0, nullptr, output.get(), 0, 0), kOk);
  const uint64_t seen = deviceExecutions();
  ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), kOk);
  EXPECT_EQ(deviceExecutions(), seen + 1);
  host.data[0] = host.data[1] = 0;
  ASSERT_EQ(ANeuralNetworksMemory_copy(output.get(), host.memory.get()), kOk) << "the CPU's result is in the device";
  EXPECT_EQ(values(host.data), kSum);
}

TEST(CApiCpuFallbackTest, AnOutputDeviceMemoryOfUnknownShapeCannotBeWrittenByTheCpu) {
  Model model = addModel({0});
  ASSERT_NE(model, nullptr);
  Compilation compilation = compile(model.get());
  ASSERT_NE(compilation, nullptr);
  int code = kOk;
  Memory output = memoryForRole(compilation.get(), /*input=*/false, 0, {}, &code);
  ASSERT_EQ(code, kOk) << "the simulated NPU makes a buffer of unknown size";
  Execution execution = executionOf(compilation.get());
  ASSERT_NE(execution, nullptr);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, kA, sizeof kA), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, kB, sizeof kB), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution.get(), 0, nullptr, output.get(), 0, 0), kOk);
  // As on Android: the CPU cannot stand in for a device memory whose size it cannot know.
  EXPECT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_OP_FAILED);
}

TEST(CApiCpuFallbackTest, AStepThatFailsRunsTheWholeModelOnTheCpu) {
  // t = a + b on the remote device (which fails it), out = t / b on nnapi-reference.
  hal::ModelBuilder b;
  const uint32_t x = b.addInput(hal::OperandType::TENSOR_FLOAT32, {2});
  const uint32_t y = b.addInput(hal::OperandType::TENSOR_FLOAT32, {2});
  const uint32_t t = b.addTemporary(hal::OperandType::TENSOR_FLOAT32, {2});
  const uint32_t out = b.addOutput(hal::OperandType::TENSOR_FLOAT32, {2});
  b.addOperation(hal::OperationType::ADD, {x, y, b.addInt32(0)}, {t});
  b.addOperation(hal::OperationType::DIV, {t, y, b.addInt32(0)}, {out});
  const hal::Model source = b.build();
  CApiModel model;
  int code = kOk;
  Compilation compilation = compileModel(source, &model, /*forRemoteDevice=*/false, &code);
  ASSERT_EQ(code, kOk);
  float result[2] = {};
  Execution execution = addExecution(compilation.get(), kA, kB, result);
  ASSERT_NE(execution, nullptr);
  const uint64_t seen = deviceExecutions();
  ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), kOk);
  EXPECT_EQ(deviceExecutions(), seen + 1) << "the ADD step ran on the device first";
  EXPECT_EQ(values(result), (std::vector<float>{11.0f / 10.0f, 22.0f / 20.0f}));
}

TEST(CApiCpuFallbackTest, APreparationTheDeviceFailsIsMadeOnTheCpu) {
  CApiModel model;
  int code = kOk;
  Compilation compilation = compileModel(twoInputModel(hal::OperationType::MUL), &model, false, &code);
  ASSERT_EQ(code, kOk) << "Compilation_create falls back";
  float out[2] = {};
  Execution execution = addExecution(compilation.get(), kA, kB, out);
  ASSERT_NE(execution, nullptr);
  ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), kOk);
  EXPECT_EQ(values(out), (std::vector<float>{10.0f, 40.0f}));

  CApiModel again;
  EXPECT_EQ(compileModel(twoInputModel(hal::OperationType::MUL), &again, /*forRemoteDevice=*/true, &code), nullptr);
  EXPECT_EQ(code, ANEURALNETWORKS_OP_FAILED) << "chosen devices do not fall back";
}

TEST(CApiCpuFallbackTest, ABadArgumentIsNotRetriedOnTheCpu) {
  CApiModel model;
  int code = kOk;
  EXPECT_EQ(compileModel(twoInputModel(hal::OperationType::SUB), &model, false, &code), nullptr);
  EXPECT_EQ(code, ANEURALNETWORKS_BAD_DATA) << "as on Android: BAD_DATA is the program's error";
}

// Which compilations may fall back: the rule itself, on the runtime's own types.
TEST(CApiCpuFallbackTest, OnlyCompilationsForAnyDeviceOfModelsTheCpuRunsFallBack) {
  const runtime::RuntimeDevice remote{sim::SimDevice::create(sim::edgeNpuConfig()), nullptr, false};
  const runtime::RuntimeDevice reference{runtime::makeReferenceDevice(), nullptr, true};
  const hal::Model add = twoInputAddModel();
  EXPECT_TRUE(runtime::Compilation(add, {&remote, &reference}, false).fallsBackToCpu());
  EXPECT_FALSE(runtime::Compilation(add, {&remote, &reference}, true).fallsBackToCpu()) << "chosen devices";
  EXPECT_FALSE(runtime::Compilation(add, {&remote}, false).fallsBackToCpu()) << "no CPU among the devices";

  hal::Model oem = add;
  oem.main.operations.front().type = hal::OperationType::OEM_OPERATION;
  EXPECT_FALSE(runtime::Compilation(oem, {&remote, &reference}, false).fallsBackToCpu()) << "OEM";
  hal::Model extension = add;
  extension.main.operations.front().type = static_cast<hal::OperationType>(1 << 16 | 1);
  EXPECT_FALSE(runtime::Compilation(extension, {&remote, &reference}, false).fallsBackToCpu()) << "extension";

  runtime::Compilation onReference(add, {&reference}, false);
  ASSERT_EQ(onReference.finish(), kOk);
  EXPECT_FALSE(onReference.fallsBackToCpu()) << "it runs on nnapi-reference already";
}

}  // namespace
}  // namespace nnremote::testing
