#include "tests/runtime/c_api_case.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "hal/operand_types.h"
#include "conformance/cts_runner.h"
#include "tests/runtime/c_api_model.h"

namespace nnremote::testing {
namespace {

int runExecution(ANeuralNetworksExecution* execution, ANeuralNetworksCompilation* compilation, Executor executor) {
  switch (executor) {
    case Executor::SYNC:
      return ANeuralNetworksExecution_compute(execution);
    case Executor::ASYNC:
    case Executor::FENCED: {
      ANeuralNetworksEvent* event = nullptr;
      const int started = executor == Executor::ASYNC
                              ? ANeuralNetworksExecution_startCompute(execution, &event)
                              : ANeuralNetworksExecution_startComputeWithDependencies(execution, nullptr, 0, 0, &event);
      if (started != ANEURALNETWORKS_NO_ERROR) return started;
      const int done = ANeuralNetworksEvent_wait(event);
      ANeuralNetworksEvent_free(event);
      return done;
    }
    case Executor::BURST: {
      ANeuralNetworksBurst* burst = nullptr;
      if (int code = ANeuralNetworksBurst_create(compilation, &burst); code != ANEURALNETWORKS_NO_ERROR) return code;
      const int done = ANeuralNetworksExecution_burstCompute(execution, burst);
      ANeuralNetworksBurst_free(burst);
      return done;
    }
  }
  return ANEURALNETWORKS_BAD_DATA;
}

// Whether every output's shape is fully known from the model: what startComputeWithDependencies
// requires (the NDK), so zero-sized outputs, whose 0 means "unknown", cannot run fenced.
bool outputsFullySpecified(const hal::Model& model) {
  for (uint32_t index : model.main.outputIndexes) {
    const hal::Operand& operand = model.main.operands[index];
    const auto& dimensions = operand.dimensions;
    if (hal::isTensor(operand.type) &&
        (dimensions.empty() || std::find(dimensions.begin(), dimensions.end(), 0u) != dimensions.end())) {
      return false;
    }
  }
  return true;
}

struct FreeMemory {
  void operator()(ANeuralNetworksMemory* memory) const { ANeuralNetworksMemory_free(memory); }
};
using OwnedMemory = std::unique_ptr<ANeuralNetworksMemory, FreeMemory>;

// The result code of the first call that failed, and which.
struct Refusal {
  std::string call;
  int code = ANEURALNETWORKS_NO_ERROR;
};

// A memory of the program's own: a memfd of `size` bytes holding `bytes` (if any), and its fd.
OwnedMemory memfdMemory(size_t size, const std::vector<uint8_t>& bytes, int* fd, Refusal* refusal) {
  *fd = memfd_create("c_api_case", MFD_CLOEXEC);
  if (*fd < 0 || ftruncate(*fd, static_cast<off_t>(size)) != 0 ||
      (!bytes.empty() && pwrite(*fd, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size()))) {
    *refusal = {"memfd", -1};
    return nullptr;
  }
  ANeuralNetworksMemory* memory = nullptr;
  refusal->code = ANeuralNetworksMemory_createFromFd(size, PROT_READ | PROT_WRITE, *fd, 0, &memory);
  refusal->call = "Memory_createFromFd";
  return OwnedMemory(memory);
}

// A memory from a descriptor for input or output `index` of `compilation` alone.
OwnedMemory deviceMemory(ANeuralNetworksCompilation* compilation, bool input, uint32_t index, Refusal* refusal) {
  ANeuralNetworksMemoryDesc* desc = nullptr;
  if ((refusal->code = ANeuralNetworksMemoryDesc_create(&desc)) != ANEURALNETWORKS_NO_ERROR) {
    refusal->call = "MemoryDesc_create";
    return nullptr;
  }
  refusal->code = input ? ANeuralNetworksMemoryDesc_addInputRole(desc, compilation, index, 1.0f)
                        : ANeuralNetworksMemoryDesc_addOutputRole(desc, compilation, index, 1.0f);
  refusal->call = input ? "MemoryDesc_addInputRole" : "MemoryDesc_addOutputRole";
  if (refusal->code == ANEURALNETWORKS_NO_ERROR) {
    refusal->code = ANeuralNetworksMemoryDesc_finish(desc);
    refusal->call = "MemoryDesc_finish";
  }
  ANeuralNetworksMemory* memory = nullptr;
  if (refusal->code == ANEURALNETWORKS_NO_ERROR) {
    refusal->code = ANeuralNetworksMemory_createFromDesc(desc, &memory);
    refusal->call = "Memory_createFromDesc";
  }
  ANeuralNetworksMemoryDesc_free(desc);
  return OwnedMemory(memory);
}

bool isFullySpecifiedTensor(const hal::Operand& operand) {
  return hal::isTensor(operand.type) && !operand.dimensions.empty() &&
         std::find(operand.dimensions.begin(), operand.dimensions.end(), 0u) == operand.dimensions.end();
}

// The memfds the device memories are filled from and read into, closed at the end of a case.
struct Fds {
  std::vector<int> fds;
  ~Fds() {
    for (int fd : fds) close(fd);
  }
};

}  // namespace

std::string runCase(const conformance::CtsTestCase& testCase, const CaseOptions& options) {
  const Executor executor = options.executor;
  auto failed = [&](const std::string& stage, int code) -> std::string {
    if (testCase.expectFailure) return "";
    return stage + " returned " + std::to_string(code);
  };
  CApiModel model;
  std::string call;
  if (int code = model.build(testCase.model, &call); code != ANEURALNETWORKS_NO_ERROR) return failed(call, code);
  ANeuralNetworksCompilation* compilation = nullptr;
  if (options.device != nullptr) {
    const ANeuralNetworksDevice* device = options.device;
    if (int code = ANeuralNetworksCompilation_createForDevices(model.main(), &device, 1, &compilation); code) {
      return failed("createForDevices", code);
    }
  } else if (int code = ANeuralNetworksCompilation_create(model.main(), &compilation); code) {
    return failed("Compilation_create", code);
  }
  struct FreeCompilation {
    ANeuralNetworksCompilation* c;
    ~FreeCompilation() { ANeuralNetworksCompilation_free(c); }
  } freeCompilation{compilation};
  if (int code = ANeuralNetworksCompilation_finish(compilation); code) return failed("Compilation_finish", code);
  if (options.onFinished) options.onFinished(compilation);
  ANeuralNetworksExecution* execution = nullptr;
  if (int code = ANeuralNetworksExecution_create(compilation, &execution); code) return failed("Execution_create", code);
  struct FreeExecution {
    ANeuralNetworksExecution* e;
    ~FreeExecution() { ANeuralNetworksExecution_free(e); }
  } freeExecution{execution};
  const hal::Model::Subgraph& main = testCase.model.main;
  std::vector<OwnedMemory> memories;  // outlive the execution
  Fds fds;
  Refusal refusal;
  for (size_t i = 0; i < testCase.inputs.size(); ++i) {
    const auto& bytes = testCase.inputs[i];
    const auto index = static_cast<int32_t>(i);
    if (options.deviceMemory && !bytes.empty() && isFullySpecifiedTensor(main.operands[main.inputIndexes[i]])) {
      int fd = -1;
      OwnedMemory source = memfdMemory(bytes.size(), bytes, &fd, &refusal);
      fds.fds.push_back(fd);
      if (source == nullptr) return failed(refusal.call + " for input " + std::to_string(i), refusal.code);
      OwnedMemory onDevice = deviceMemory(compilation, true, static_cast<uint32_t>(i), &refusal);
      if (onDevice == nullptr) return failed(refusal.call + " for input " + std::to_string(i), refusal.code);
      if (int code = ANeuralNetworksMemory_copy(source.get(), onDevice.get()); code) {
        return failed("Memory_copy into input " + std::to_string(i), code);
      }
      if (int code = ANeuralNetworksExecution_setInputFromMemory(execution, index, nullptr, onDevice.get(), 0, 0)) {
        return failed("setInputFromMemory " + std::to_string(i), code);
      }
      memories.push_back(std::move(onDevice));
      continue;
    }
    const int code =
        ANeuralNetworksExecution_setInput(execution, index, nullptr, bytes.empty() ? nullptr : bytes.data(), bytes.size());
    if (code) return failed("setInput " + std::to_string(i), code);
  }
  std::vector<std::vector<uint8_t>> outputs;
  std::vector<ANeuralNetworksMemory*> outputMemories(testCase.outputs.size(), nullptr);
  for (const auto& golden : testCase.outputs) outputs.emplace_back(std::max<size_t>(golden.data.size(), 1));
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto index = static_cast<int32_t>(i);
    if (options.deviceMemory && !testCase.outputs[i].data.empty() &&
        isFullySpecifiedTensor(main.operands[main.outputIndexes[i]])) {
      OwnedMemory onDevice = deviceMemory(compilation, false, static_cast<uint32_t>(i), &refusal);
      if (onDevice == nullptr) return failed(refusal.call + " for output " + std::to_string(i), refusal.code);
      if (int code = ANeuralNetworksExecution_setOutputFromMemory(execution, index, nullptr, onDevice.get(), 0, 0)) {
        return failed("setOutputFromMemory " + std::to_string(i), code);
      }
      outputMemories[i] = onDevice.get();
      memories.push_back(std::move(onDevice));
      continue;
    }
    const int code = ANeuralNetworksExecution_setOutput(execution, index, nullptr, outputs[i].data(),
                                                        testCase.outputs[i].data.size());
    if (code) return failed("setOutput " + std::to_string(i), code);
  }
  if (executor == Executor::FENCED && !outputsFullySpecified(testCase.model)) {
    const int code = runExecution(execution, compilation, executor);
    if (code == ANEURALNETWORKS_BAD_DATA) return "";
    return "startComputeWithDependencies returned " + std::to_string(code) +
           ", not BAD_DATA, for outputs of unknown shape";
  }
  if (int code = runExecution(execution, compilation, executor); code) return failed("the execution", code);
  if (testCase.expectFailure) return "expected a failure, but every call succeeded";
  // Outputs in device memory come out through a memfd.
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputMemories[i] == nullptr) continue;
    int fd = -1;
    OwnedMemory destination = memfdMemory(testCase.outputs[i].data.size(), {}, &fd, &refusal);
    fds.fds.push_back(fd);
    if (destination == nullptr) return refusal.call + " for output " + std::to_string(i) + " returned " +
                                       std::to_string(refusal.code);
    if (int code = ANeuralNetworksMemory_copy(outputMemories[i], destination.get()); code) {
      return "Memory_copy out of output " + std::to_string(i) + " returned " + std::to_string(code);
    }
    if (pread(fd, outputs[i].data(), testCase.outputs[i].data.size(), 0) !=
        static_cast<ssize_t>(testCase.outputs[i].data.size())) {
      return "reading output " + std::to_string(i) + " from its memfd failed";
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    uint32_t rank = 0;
    if (int code = ANeuralNetworksExecution_getOutputOperandRank(execution, static_cast<int32_t>(i), &rank); code) {
      return "getOutputOperandRank returned " + std::to_string(code);
    }
    std::vector<uint32_t> dimensions(rank);
    if (rank > 0) {
      if (int code = ANeuralNetworksExecution_getOutputOperandDimensions(execution, static_cast<int32_t>(i),
                                                                          dimensions.data());
          code) {
        return "getOutputOperandDimensions returned " + std::to_string(code);
      }
    }
    outputs[i].resize(testCase.outputs[i].data.size());
    const std::string mismatch = conformance::compareOutput(testCase, i, outputs[i], dimensions);
    if (!mismatch.empty()) return "output " + std::to_string(i) + ": " + mismatch;
  }
  return "";
}

hal::Result<CaseCounts> runEveryNthCase(const std::string& directory, size_t stride,
                                        const std::function<std::string(const conformance::CtsTestCase&)>& run,
                                        std::ostream& log) {
  NN_ASSIGN_OR_RETURN(const std::vector<std::string> files, conformance::findSpecFiles(directory));
  CaseCounts counts;
  size_t seen = 0;
  for (const std::string& file : files) {
    NN_ASSIGN_OR_RETURN(const auto cases, conformance::loadSpecFile(file, file.substr(directory.size() + 1)));
    for (const conformance::CtsTestCase& testCase : cases) {
      if (seen++ % stride != 0) continue;
      ++counts.ran;
      const std::string failure = run(testCase);
      if (!failure.empty() && counts.failed++ < 20) log << testCase.fullName() << ": " << failure << "\n";
    }
  }
  return counts;
}

}  // namespace nnremote::testing
