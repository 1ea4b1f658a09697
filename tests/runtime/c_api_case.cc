#include "tests/runtime/c_api_case.h"

#include <algorithm>
#include <vector>

#include "hal/operand_types.h"
#include "tests/conformance/cts_runner.h"
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

}  // namespace

std::string runCase(const cts::CtsTestCase& testCase, const CaseOptions& options) {
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
  for (size_t i = 0; i < testCase.inputs.size(); ++i) {
    const auto& bytes = testCase.inputs[i];
    const int code = ANeuralNetworksExecution_setInput(execution, static_cast<int32_t>(i), nullptr,
                                                       bytes.empty() ? nullptr : bytes.data(), bytes.size());
    if (code) return failed("setInput " + std::to_string(i), code);
  }
  std::vector<std::vector<uint8_t>> outputs;
  for (const auto& golden : testCase.outputs) outputs.emplace_back(std::max<size_t>(golden.data.size(), 1));
  for (size_t i = 0; i < outputs.size(); ++i) {
    const int code = ANeuralNetworksExecution_setOutput(execution, static_cast<int32_t>(i), nullptr,
                                                        outputs[i].data(), testCase.outputs[i].data.size());
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
    const std::string mismatch = cts::compareOutput(testCase, i, outputs[i], dimensions);
    if (!mismatch.empty()) return "output " + std::to_string(i) + ": " + mismatch;
  }
  return "";
}

}  // namespace nnremote::testing
