// Helpers for tests of the NNAPI C API: owners of its objects, the tiny ADD and RANK models built
// through ANeuralNetworksModel_*, device lookup, an ADD computation checked against its sum, and
// memories from descriptors.
#ifndef NNREMOTE_TESTS_RUNTIME_C_API_HELPERS_H_
#define NNREMOTE_TESTS_RUNTIME_C_API_HELPERS_H_

#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace nnremote::testing {

inline constexpr int kOk = ANEURALNETWORKS_NO_ERROR;

// ---- Owners of C API objects -------------------------------------------------------------------

template <typename T, void (*Free)(T*)>
struct Freer {
  void operator()(T* object) const { Free(object); }
};
template <typename T, void (*Free)(T*)>
using Owned = std::unique_ptr<T, Freer<T, Free>>;
using Model = Owned<ANeuralNetworksModel, ANeuralNetworksModel_free>;
using Compilation = Owned<ANeuralNetworksCompilation, ANeuralNetworksCompilation_free>;
using Execution = Owned<ANeuralNetworksExecution, ANeuralNetworksExecution_free>;
using Event = Owned<ANeuralNetworksEvent, ANeuralNetworksEvent_free>;
using Burst = Owned<ANeuralNetworksBurst, ANeuralNetworksBurst_free>;
using Memory = Owned<ANeuralNetworksMemory, ANeuralNetworksMemory_free>;

// ---- Models ------------------------------------------------------------------------------------

inline ANeuralNetworksOperandType tensorType(const std::vector<uint32_t>& dimensions,
                                             int32_t type = ANEURALNETWORKS_TENSOR_FLOAT32) {
  return {type, static_cast<uint32_t>(dimensions.size()), dimensions.empty() ? nullptr : dimensions.data(), 0.0f, 0};
}

// out = a + b (with `activation`), a and b float32 [2], out float32 `outputDimensions`. Finished
// unless `finish` is false; null if a call failed.
inline Model addModel(std::vector<uint32_t> outputDimensions = {2}, int32_t activation = ANEURALNETWORKS_FUSED_NONE,
                      bool finish = true) {
  ANeuralNetworksModel* raw = nullptr;
  if (ANeuralNetworksModel_create(&raw) != kOk) return nullptr;
  Model model(raw);
  const std::vector<uint32_t> two = {2};
  const ANeuralNetworksOperandType input = tensorType(two);
  const ANeuralNetworksOperandType output = tensorType(outputDimensions);
  const ANeuralNetworksOperandType scalar{ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
  const uint32_t addInputs[] = {0, 1, 2}, outputs[] = {3}, modelInputs[] = {0, 1};
  const bool built =
      ANeuralNetworksModel_addOperand(raw, &input) == kOk && ANeuralNetworksModel_addOperand(raw, &input) == kOk &&
      ANeuralNetworksModel_addOperand(raw, &scalar) == kOk && ANeuralNetworksModel_addOperand(raw, &output) == kOk &&
      ANeuralNetworksModel_setOperandValue(raw, 2, &activation, sizeof activation) == kOk &&
      ANeuralNetworksModel_addOperation(raw, ANEURALNETWORKS_ADD, 3, addInputs, 1, outputs) == kOk &&
      ANeuralNetworksModel_identifyInputsAndOutputs(raw, 2, modelInputs, 1, outputs) == kOk &&
      (!finish || ANeuralNetworksModel_finish(raw) == kOk);
  return built ? std::move(model) : nullptr;
}

// out = RANK(x): x float32 [2], out an INT32 scalar.
inline Model rankModel() {
  ANeuralNetworksModel* raw = nullptr;
  if (ANeuralNetworksModel_create(&raw) != kOk) return nullptr;
  Model model(raw);
  const std::vector<uint32_t> two = {2};
  const ANeuralNetworksOperandType input = tensorType(two);
  const ANeuralNetworksOperandType scalar{ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
  const uint32_t inputs[] = {0}, outputs[] = {1};
  const bool built = ANeuralNetworksModel_addOperand(raw, &input) == kOk &&
                     ANeuralNetworksModel_addOperand(raw, &scalar) == kOk &&
                     ANeuralNetworksModel_addOperation(raw, ANEURALNETWORKS_RANK, 1, inputs, 1, outputs) == kOk &&
                     ANeuralNetworksModel_identifyInputsAndOutputs(raw, 1, inputs, 1, outputs) == kOk &&
                     ANeuralNetworksModel_finish(raw) == kOk;
  return built ? std::move(model) : nullptr;
}

// ---- Devices -----------------------------------------------------------------------------------

inline std::string nameOf(const ANeuralNetworksDevice* device) {
  const char* name = nullptr;
  return ANeuralNetworksDevice_getName(device, &name) == kOk && name != nullptr ? name : "";
}

inline std::vector<ANeuralNetworksDevice*> allDevices() {
  uint32_t count = 0;
  std::vector<ANeuralNetworksDevice*> devices;
  if (ANeuralNetworks_getDeviceCount(&count) != kOk) return devices;
  for (uint32_t i = 0; i < count; ++i) {
    ANeuralNetworksDevice* device = nullptr;
    if (ANeuralNetworks_getDevice(i, &device) == kOk) devices.push_back(device);
  }
  return devices;
}

// The remote device (the first that is not nnapi-reference) or nnapi-reference.
inline const ANeuralNetworksDevice* deviceFor(bool remote) {
  for (const ANeuralNetworksDevice* device : allDevices()) {
    if ((nameOf(device) == "nnapi-reference") != remote) return device;
  }
  return nullptr;
}

// ---- Compilations and executions ---------------------------------------------------------------

// A compilation of `model` for `device` alone, or by Compilation_create when `device` is null;
// finished unless `finish` is false. Null if a call failed.
inline Compilation compile(ANeuralNetworksModel* model, const ANeuralNetworksDevice* device = nullptr,
                           bool finish = true) {
  ANeuralNetworksCompilation* raw = nullptr;
  const int created = device != nullptr ? ANeuralNetworksCompilation_createForDevices(model, &device, 1, &raw)
                                        : ANeuralNetworksCompilation_create(model, &raw);
  if (created != kOk) return nullptr;
  Compilation compilation(raw);
  if (finish && ANeuralNetworksCompilation_finish(raw) != kOk) return nullptr;
  return compilation;
}

inline Execution executionOf(ANeuralNetworksCompilation* compilation) {
  ANeuralNetworksExecution* raw = nullptr;
  return Execution(ANeuralNetworksExecution_create(compilation, &raw) == kOk ? raw : nullptr);
}

// The arguments of an ADD execution: a and b, and `outLength` bytes of out.
inline int setAddArguments(ANeuralNetworksExecution* execution, const float* a, const float* b, float* out,
                           size_t outLength = 2 * sizeof(float)) {
  if (int code = ANeuralNetworksExecution_setInput(execution, 0, nullptr, a, 2 * sizeof(float)); code) return code;
  if (int code = ANeuralNetworksExecution_setInput(execution, 1, nullptr, b, 2 * sizeof(float)); code) return code;
  return ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out, outLength);
}

// An ADD execution of `compilation` with its arguments set; null if a call failed.
inline Execution addExecution(ANeuralNetworksCompilation* compilation, const float* a, const float* b, float* out) {
  Execution execution = executionOf(compilation);
  if (execution == nullptr || setAddArguments(execution.get(), a, b, out) != kOk) return nullptr;
  return execution;
}

// Starts `execution` after `dependencies`; the event, or null with the result code in `code`.
inline Event startAfter(ANeuralNetworksExecution* execution,
                        const std::vector<const ANeuralNetworksEvent*>& dependencies, int* code,
                        uint64_t duration = 0) {
  ANeuralNetworksEvent* raw = nullptr;
  *code = ANeuralNetworksExecution_startComputeWithDependencies(
      execution, dependencies.data(), static_cast<uint32_t>(dependencies.size()), duration, &raw);
  return Event(raw);
}

// Output 0's dimensions, asked as a program does (rank, then dimensions); `code` is what the
// last call returned.
inline std::vector<uint32_t> outputDimensions(ANeuralNetworksExecution* execution, int* code) {
  uint32_t rank = 0;
  *code = ANeuralNetworksExecution_getOutputOperandRank(execution, 0, &rank);
  if (*code != kOk && *code != ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE) return {};
  std::vector<uint32_t> dimensions(rank);
  *code = ANeuralNetworksExecution_getOutputOperandDimensions(execution, 0, dimensions.data());
  return dimensions;
}

inline const float kA[2] = {1.0f, 2.0f};
inline const float kB[2] = {10.0f, 20.0f};
inline const std::vector<float> kSum = {11.0f, 22.0f};

inline std::vector<float> values(const float* data, size_t count = 2) { return std::vector<float>(data, data + count); }

// Runs `execution` by startCompute and waits for its event: the wait's result code, or the start's
// when it was refused.
inline int startAndWait(ANeuralNetworksExecution* execution) {
  ANeuralNetworksEvent* raw = nullptr;
  if (int code = ANeuralNetworksExecution_startCompute(execution, &raw); code != kOk) return code;
  Event event(raw);
  return ANeuralNetworksEvent_wait(event.get());
}

// Where most execution tests start: addModel compiled for `device` (nullptr: the device
// ANeuralNetworksCompilation_create picks), and an execution of it from kA and kB into `out`. It
// stays where it was made, since the execution writes into `out`.
struct AddRun {
  Model model;
  Compilation compilation;
  float out[2] = {};
  Execution execution;
  AddRun() = default;
  AddRun(const AddRun&) = delete;
  AddRun& operator=(const AddRun&) = delete;
};

// Makes `run`; a step that fails fails the test (call it under ASSERT_NO_FATAL_FAILURE).
inline void makeAddRun(const ANeuralNetworksDevice* device, AddRun* run) {
  run->model = addModel();
  ASSERT_NE(run->model, nullptr);
  run->compilation = compile(run->model.get(), device);
  ASSERT_NE(run->compilation, nullptr);
  run->execution = addExecution(run->compilation.get(), kA, kB, run->out);
  ASSERT_NE(run->execution, nullptr);
}

// Computes kA + kB into `out` (2 floats) with `compilation` (of addModel): compute's result code,
// or -1 if the execution could not be made.
inline int computeSum(ANeuralNetworksCompilation* compilation, float* out) {
  Execution execution = addExecution(compilation, kA, kB, out);
  return execution == nullptr ? -1 : ANeuralNetworksExecution_compute(execution.get());
}

// Computes kA + kB with `compilation` (of addModel) and expects kSum.
inline void expectSum(ANeuralNetworksCompilation* compilation) {
  float out[2] = {};
  ASSERT_EQ(computeSum(compilation, out), kOk);
  EXPECT_EQ(values(out), kSum);
}

// Two fenced computations of `compilation` (of addModel), the second after the first and reading
// what it wrote: (kA + kB) + {100, 200}; expects {111, 222}, and kSum in between.
inline void expectChainedSums(ANeuralNetworksCompilation* compilation) {
  const float c[2] = {100.0f, 200.0f};
  float middle[2] = {}, out[2] = {};
  Execution first = addExecution(compilation, kA, kB, middle);
  Execution second = addExecution(compilation, middle, c, out);  // reads what `first` writes
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  int code = kOk;
  Event firstDone = startAfter(first.get(), {}, &code);
  ASSERT_EQ(code, kOk);
  Event secondDone = startAfter(second.get(), {firstDone.get()}, &code);
  ASSERT_EQ(code, kOk);
  ASSERT_EQ(ANeuralNetworksEvent_wait(secondDone.get()), kOk);
  EXPECT_EQ(values(out), (std::vector<float>{111.0f, 222.0f}));
  EXPECT_EQ(ANeuralNetworksEvent_wait(firstDone.get()), kOk);
  EXPECT_EQ(values(middle), kSum);
}

using MemoryDesc = Owned<ANeuralNetworksMemoryDesc, ANeuralNetworksMemoryDesc_free>;

inline MemoryDesc newDesc() {
  ANeuralNetworksMemoryDesc* raw = nullptr;
  return MemoryDesc(ANeuralNetworksMemoryDesc_create(&raw) == kOk ? raw : nullptr);
}

// A memory from a descriptor of one role, input or output `index` of `compilation`, narrowed to
// `dimensions` unless they are empty; `code` is the first call's result that was not NO_ERROR.
inline Memory memoryForRole(ANeuralNetworksCompilation* compilation, bool input, uint32_t index,
                            const std::vector<uint32_t>& dimensions, int* code) {
  MemoryDesc desc = newDesc();
  if (desc == nullptr) {
    *code = ANEURALNETWORKS_OUT_OF_MEMORY;
    return nullptr;
  }
  *code = input ? ANeuralNetworksMemoryDesc_addInputRole(desc.get(), compilation, index, 1.0f)
                : ANeuralNetworksMemoryDesc_addOutputRole(desc.get(), compilation, index, 1.0f);
  if (*code == kOk && !dimensions.empty()) {
    *code = ANeuralNetworksMemoryDesc_setDimensions(desc.get(), static_cast<uint32_t>(dimensions.size()),
                                                    dimensions.data());
  }
  if (*code == kOk) *code = ANeuralNetworksMemoryDesc_finish(desc.get());
  ANeuralNetworksMemory* raw = nullptr;
  if (*code == kOk) *code = ANeuralNetworksMemory_createFromDesc(desc.get(), &raw);
  return Memory(raw);
}

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTS_RUNTIME_C_API_HELPERS_H_
