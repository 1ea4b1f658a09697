// Android's CPU fallback through the C API (docs/runtime.md): a compilation made with
// Compilation_create whose device fails runs on nnapi-reference instead, and the program gets its
// result; one made for chosen devices gets the device's error. The remote device is a simulated
// NPU on a real server this test starts, with faults of its own: every execution of a model with
// ADD fails (npu_emulator's --fault=error:op=ADD), preparing a model with MUL fails as a device
// fails, with SUB as a bad argument, and it does not support DIV or WHILE. A partitioned compilation whose
// step the device fails runs that step alone on the CPU and goes on with the next on its device.
#include <android/NeuralNetworks.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "drivers/sim/sim_device.h"
#include "hal/model_builder.h"
#include "middleware/fault_injection.h"
#include "runtime/compilation.h"
#include "runtime/devices.h"
#include "runtime/handles.h"
#include "testing/add_model.h"
#include "tests/common/scripted_device.h"
#include "tests/runtime/c_api_helpers.h"
#include "tests/runtime/c_api_model.h"
#include "tests/runtime/remote_server.h"

namespace nnremote::testing {
namespace {

using ::testing::HasSubstr;

middleware::FaultInjector& addFaults() {
  static auto* faults = new middleware::FaultInjector({middleware::FaultKind::ERROR, 0, "ADD", ""});
  return *faults;
}

hal::SharedDevice failingDevice() {
  const DeviceScript script{"",
                            {hal::OperationType::DIV, hal::OperationType::WHILE},
                            {{hal::OperationType::MUL, hal::ErrorStatus::GENERAL_FAILURE},
                             {hal::OperationType::SUB, hal::ErrorStatus::INVALID_ARGUMENT}}};
  return std::make_shared<ScriptedDevice>(addFaults().wrap({sim::SimDevice::create(sim::edgeNpuConfig())}).front(),
                                          script);
}

const auto* const kServer = ::testing::AddGlobalTestEnvironment(new RemoteServer("capi-fallback", {failingDevice()}));

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
  EXPECT_EQ(startAndWait(execution.get()), kOk) << "startCompute";
  EXPECT_EQ(values(out), kSum);

  ANeuralNetworksBurst* rawBurst = nullptr;
  ASSERT_EQ(ANeuralNetworksBurst_create(compilation.get(), &rawBurst), kOk);
  Burst burst(rawBurst);
  out[0] = out[1] = 0;
  execution = addExecution(compilation.get(), kA, kB, out);
  ASSERT_NE(execution, nullptr);
  EXPECT_EQ(ANeuralNetworksExecution_burstCompute(execution.get(), burst.get()), kOk);
  EXPECT_EQ(values(out), kSum) << "burstCompute";

  // Fenced, without a dependency and after one (itself fallen back).
  {
    SCOPED_TRACE("startComputeWithDependencies");
    expectChainedSums(compilation.get());
  }

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

TEST(CApiCpuFallbackTest, AFencedExecutionThatRanAtOnceOnTheCpuHasNoSyncFence) {
  // A device in this process whose executeFenced fails before it returns: the execution runs on
  // the CPU inside startComputeWithDependencies, and, as on Android, no sync fence stands for it.
  const runtime::RuntimeDevice failing{
      std::make_shared<ScriptedDevice>(sim::SimDevice::create(sim::edgeNpuConfig()),
                                       DeviceScript{"", {}, {}, hal::ErrorStatus::GENERAL_FAILURE}),
      nullptr, false};
  const runtime::RuntimeDevice reference{runtime::makeReferenceDevice(), nullptr, true};
  auto inProcess = std::make_shared<runtime::Compilation>(
      testing::twoInputAddModel(), std::vector<const runtime::RuntimeDevice*>{&failing, &reference}, false);
  ASSERT_EQ(inProcess->finish(), kOk);
  ASSERT_EQ(inProcess->deviceNames(), std::vector<std::string>{failing.device->getName()});
  Compilation compilation(runtime::toHandle(new runtime::CompilationHandle{inProcess}));
  float out[2] = {};
  Execution execution = addExecution(compilation.get(), kA, kB, out);
  ASSERT_NE(execution, nullptr);
  int code = kOk;
  Event done = startAfter(execution.get(), {}, &code);
  ASSERT_EQ(code, kOk);
  EXPECT_EQ(inProcess->executionsOnCpuInstead(), 1u) << "it ran on the CPU before the call returned";
  int fd = 0;
  EXPECT_EQ(ANeuralNetworksEvent_getSyncFenceFd(done.get(), &fd), ANEURALNETWORKS_BAD_DATA);
  EXPECT_EQ(fd, -1);
  EXPECT_EQ(ANeuralNetworksEvent_wait(done.get()), kOk);
  EXPECT_EQ(values(out), kSum);

  // The remote device fails through its fence instead, after the call returned: that event has
  // a sync fence, signaled once the CPU has run it.
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation remote = compile(model.get());
  ASSERT_NE(remote, nullptr);
  out[0] = out[1] = 0;
  execution = addExecution(remote.get(), kA, kB, out);
  ASSERT_NE(execution, nullptr);
  done = startAfter(execution.get(), {}, &code);
  ASSERT_EQ(code, kOk);
  EXPECT_EQ(ANeuralNetworksEvent_getSyncFenceFd(done.get(), &fd), kOk);
  EXPECT_GE(fd, 0);
  if (fd >= 0) close(fd);
  EXPECT_EQ(ANeuralNetworksEvent_wait(done.get()), kOk);
  EXPECT_EQ(values(out), kSum);
}

TEST(CApiCpuFallbackTest, AnExecutionForChosenDevicesGetsTheDevicesError) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compile(model.get(), deviceFor(true));
  ASSERT_NE(compilation, nullptr);
  float out[2] = {};
  EXPECT_EQ(computeSum(compilation.get(), out), ANEURALNETWORKS_OP_FAILED);
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

// Computes `compilation` (inputs a and b, one output) with a and the output in memories from
// descriptors (a filled with kA through a host memory) and b = kB; `result` is what the output
// memory holds after, read back through a host memory.
void computeWithDeviceMemories(ANeuralNetworksCompilation* compilation, std::vector<float>* result) {
  int code = kOk;
  Memory input = memoryForRole(compilation, /*input=*/true, 0, {}, &code);
  ASSERT_EQ(code, kOk);
  Memory output = memoryForRole(compilation, /*input=*/false, 0, {}, &code);
  ASSERT_EQ(code, kOk);
  HostMemory host(2 * sizeof(float));
  ASSERT_NE(host.memory, nullptr);
  host.data[0] = kA[0];
  host.data[1] = kA[1];
  ASSERT_EQ(ANeuralNetworksMemory_copy(host.memory.get(), input.get()), kOk);
  Execution execution = executionOf(compilation);
  ASSERT_NE(execution, nullptr);
  ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, nullptr, input.get(), 0, 0), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, kB, sizeof kB), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution.get(), 0, nullptr, output.get(), 0, 0), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), kOk);
  host.data[0] = host.data[1] = 0;
  ASSERT_EQ(ANeuralNetworksMemory_copy(output.get(), host.memory.get()), kOk);
  *result = values(host.data);
}

TEST(CApiCpuFallbackTest, DeviceMemoriesAreReadAndWrittenForTheCpu) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compile(model.get());
  ASSERT_NE(compilation, nullptr);
  const uint64_t seen = deviceExecutions();
  std::vector<float> result;
  ASSERT_NO_FATAL_FAILURE(computeWithDeviceMemories(compilation.get(), &result));
  EXPECT_EQ(deviceExecutions(), seen + 1);
  EXPECT_EQ(result, kSum) << "the CPU's result is in the device";
}

// The partitioned compilation `runtime::Compilation` behind `compilation`.
const runtime::Compilation& compiled(ANeuralNetworksCompilation* compilation) {
  return *runtime::fromHandle(compilation)->compilation;
}

// t = a + b on the remote device (which fails it), u = t / b on nnapi-reference (the remote
// device does not support DIV), out = max(u, b) on the remote device again.
hal::Model threeStepModel() {
  hal::ModelBuilder b;
  const uint32_t x = b.addInput(hal::OperandType::TENSOR_FLOAT32, {2});
  const uint32_t y = b.addInput(hal::OperandType::TENSOR_FLOAT32, {2});
  const uint32_t t = b.addTemporary(hal::OperandType::TENSOR_FLOAT32, {2});
  const uint32_t u = b.addTemporary(hal::OperandType::TENSOR_FLOAT32, {2});
  const uint32_t out = b.addOutput(hal::OperandType::TENSOR_FLOAT32, {2});
  b.addOperation(hal::OperationType::ADD, {x, y, b.addInt32(0)}, {t});
  b.addOperation(hal::OperationType::DIV, {t, y, b.addInt32(0)}, {u});
  b.addOperation(hal::OperationType::MAXIMUM, {u, x}, {out});
  return b.build();
}

TEST(CApiCpuFallbackTest, AStepThatFailsRunsAloneOnTheCpuAndTheNextStepsOnTheirDevices) {
  CApiModel model;
  int code = kOk;
  Compilation compilation = compileModel(threeStepModel(), &model, /*forRemoteDevice=*/false, &code);
  ASSERT_EQ(code, kOk);
  ASSERT_THAT(compiled(compilation.get()).deviceNames(),
              ::testing::ElementsAre("nnremote-edge16", "nnapi-reference", "nnremote-edge16"));
  // max((a + b) / b, a) with a = {1, 2}, b = {10, 20}.
  const std::vector<float> expected = {11.0f / 10.0f, 2.0f};
  float result[2] = {};
  Execution execution = addExecution(compilation.get(), kA, kB, result);
  ASSERT_NE(execution, nullptr);
  uint64_t seen = deviceExecutions();
  ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), kOk);
  EXPECT_EQ(values(result), expected);
  EXPECT_EQ(deviceExecutions(), seen + 2) << "the ADD step failed on the device, the MAXIMUM step ran there";
  EXPECT_EQ(compiled(compilation.get()).stepsOnCpuInstead(), 1u);
  EXPECT_EQ(compiled(compilation.get()).executionsOnCpuInstead(), 0u) << "not the whole model";

  // Every executor runs the steps, so every executor falls back by the step.
  result[0] = result[1] = 0;
  execution = addExecution(compilation.get(), kA, kB, result);
  ASSERT_NE(execution, nullptr);
  EXPECT_EQ(startAndWait(execution.get()), kOk) << "startCompute";
  EXPECT_EQ(values(result), expected);
  EXPECT_EQ(compiled(compilation.get()).stepsOnCpuInstead(), 2u);
  EXPECT_EQ(compiled(compilation.get()).executionsOnCpuInstead(), 0u);
}

// As Android's FailingDriverTest.FailAfterInterpretedWhile: a step after a WHILE on the CPU
// falls back alone, and the loop is not run again.
TEST(CApiCpuFallbackTest, AStepAfterALoopOnTheCpuFallsBackAlone) {
  const hal::OperandType floats = hal::OperandType::TENSOR_FLOAT32, bools = hal::OperandType::TENSOR_BOOL8;
  hal::ModelBuilder condition;  // while CAST(b)
  {
    condition.addInput(floats, {2});
    const uint32_t b = condition.addInput(bools, {1});
    condition.addOperation(hal::OperationType::CAST, {b}, {condition.addOutput(bools, {1})});
  }
  hal::ModelBuilder body;  // f = CAST(f)
  {
    const uint32_t f = body.addInput(floats, {2});
    body.addInput(bools, {1});
    body.addOperation(hal::OperationType::CAST, {f}, {body.addOutput(floats, {2})});
  }
  hal::ModelBuilder b;  // out = f + f after the loop, on the remote device (which fails it)
  const uint32_t f = b.addInput(floats, {2});
  const uint32_t go = b.addInput(bools, {1});
  const uint32_t looped = b.addTemporary(floats, {2});
  const uint32_t out = b.addOutput(floats, {2});
  b.addOperation(hal::OperationType::WHILE, {b.addSubgraph(condition.build()), b.addSubgraph(body.build()), f, go},
                 {looped});
  b.addOperation(hal::OperationType::ADD, {looped, looped, b.addInt32(0)}, {out});
  CApiModel model;
  int code = kOk;
  Compilation compilation = compileModel(b.build(), &model, /*forRemoteDevice=*/false, &code);
  ASSERT_EQ(code, kOk);
  ASSERT_THAT(compiled(compilation.get()).deviceNames(), ::testing::ElementsAre("nnapi-reference", "nnremote-edge16"));

  Execution execution = executionOf(compilation.get());
  ASSERT_NE(execution, nullptr);
  const float input[2] = {144, 25};
  const uint8_t no = 0;
  float result[2] = {};
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, input, sizeof input), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, &no, sizeof no), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, result, sizeof result), kOk);
  const uint64_t seen = deviceExecutions();
  ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), kOk);
  EXPECT_EQ(values(result), (std::vector<float>{288, 50}));
  EXPECT_EQ(deviceExecutions(), seen + 1);
  EXPECT_EQ(compiled(compilation.get()).stepsOnCpuInstead(), 1u);
  EXPECT_EQ(compiled(compilation.get()).executionsOnCpuInstead(), 0u);
}

TEST(CApiCpuFallbackTest, AStepsDeviceMemoriesAreReadAndWrittenForTheCpu) {
  // d = b / b on nnapi-reference, out = a + d on the remote device (which fails it). Input a and
  // the output belong to the ADD step alone: memories from descriptors are its device's buffers,
  // which the CPU cannot read.
  hal::ModelBuilder b;
  const uint32_t x = b.addInput(hal::OperandType::TENSOR_FLOAT32, {2});
  const uint32_t y = b.addInput(hal::OperandType::TENSOR_FLOAT32, {2});
  const uint32_t d = b.addTemporary(hal::OperandType::TENSOR_FLOAT32, {2});
  const uint32_t out = b.addOutput(hal::OperandType::TENSOR_FLOAT32, {2});
  b.addOperation(hal::OperationType::DIV, {y, y, b.addInt32(0)}, {d});
  b.addOperation(hal::OperationType::ADD, {x, d, b.addInt32(0)}, {out});
  CApiModel model;
  int code = kOk;
  Compilation compilation = compileModel(b.build(), &model, /*forRemoteDevice=*/false, &code);
  ASSERT_EQ(code, kOk);
  ASSERT_THAT(compiled(compilation.get()).deviceNames(), ::testing::ElementsAre("nnapi-reference", "nnremote-edge16"));
  const uint64_t seen = deviceExecutions();
  std::vector<float> result;
  ASSERT_NO_FATAL_FAILURE(computeWithDeviceMemories(compilation.get(), &result));
  EXPECT_EQ(deviceExecutions(), seen + 1);
  EXPECT_EQ(compiled(compilation.get()).stepsOnCpuInstead(), 1u);
  EXPECT_EQ(compiled(compilation.get()).executionsOnCpuInstead(), 0u);
  EXPECT_EQ(result, (std::vector<float>{2.0f, 3.0f})) << "the CPU's result is in the device";
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

TEST(CApiCpuFallbackTest, ACompilationsFirstFallbackIsSaidOnStderr) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  Compilation compilation = compile(model.get());
  ASSERT_NE(compilation, nullptr);
  ::testing::internal::CaptureStderr();
  expectSum(compilation.get());
  expectSum(compilation.get());
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(said, HasSubstr("libneuralnetworks: ANeuralNetworksExecution on nnremote-edge16: GENERAL_FAILURE: "));
  EXPECT_THAT(said, HasSubstr("; running it on nnapi-reference instead (CPU fallback)"));
  EXPECT_EQ(said.find("CPU fallback"), said.rfind("CPU fallback")) << "once per compilation:\n" << said;
}

// As Android's debug.nn.partition=2: a driver's developer gets the device's errors.
TEST(CApiCpuFallbackTest, NoCpuFallbackInTheEnvironmentLeavesTheDevicesErrors) {
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  ASSERT_EQ(setenv("NNREMOTE_NO_CPU_FALLBACK", "1", 1), 0);
  Compilation compilation = compile(model.get());
  CApiModel mul;
  int code = kOk;
  Compilation failed = compileModel(twoInputModel(hal::OperationType::MUL), &mul, /*forRemoteDevice=*/false, &code);
  ASSERT_EQ(unsetenv("NNREMOTE_NO_CPU_FALLBACK"), 0);
  EXPECT_EQ(failed, nullptr);
  EXPECT_EQ(code, ANEURALNETWORKS_OP_FAILED) << "the device's failed preparation";
  ASSERT_NE(compilation, nullptr);
  float out[2] = {};
  EXPECT_EQ(computeSum(compilation.get(), out), ANEURALNETWORKS_OP_FAILED) << "the device's failed execution";

  Compilation later = compile(model.get());
  ASSERT_NE(later, nullptr);
  expectSum(later.get());  // made after the variable was unset: it falls back
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
