// The conformance set through the NNAPI C API: every model built only with ANeuralNetworksModel_*
// calls, compiled for one device and run sync, async (startCompute), on a burst and fenced
// (startComputeWithDependencies), on a remote device (an npu_emulator this test starts, reached
// through NNREMOTE_TARGETS) and on nnapi-reference. CI runs every NNREMOTE_CAPI_STRIDE-th case;
// c_api_conformance_full_test runs them all.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "accelerator_sim/sim_device.h"
#include "emulator/emulator_server.h"
#include "hal/operand_types.h"
#include "tests/common/server_options.h"
#include "tests/common/unique_names.h"
#include "tests/conformance/cts_loader.h"
#include "tests/conformance/cts_runner.h"
#include "tests/runtime/c_api_model.h"
#include "tests/runtime/remote_server.h"

#ifndef NNREMOTE_CAPI_STRIDE
#define NNREMOTE_CAPI_STRIDE 8
#endif

namespace nnremote::testing {
namespace {

const auto* const kServer = ::testing::AddGlobalTestEnvironment(new RemoteServer("capi"));

enum class Executor { SYNC, ASYNC, BURST, FENCED };

struct Param {
  bool remote;
  Executor executor;
};

std::string paramName(const ::testing::TestParamInfo<Param>& info) {
  static const char* executors[] = {"Sync", "Async", "Burst", "Fenced"};
  return std::string(info.param.remote ? "Remote" : "Reference") + "_" +
         executors[static_cast<int>(info.param.executor)];
}

// The remote device (the first that is not nnapi-reference) or nnapi-reference.
const ANeuralNetworksDevice* deviceFor(bool remote) {
  uint32_t count = 0;
  if (ANeuralNetworks_getDeviceCount(&count) != ANEURALNETWORKS_NO_ERROR) return nullptr;
  for (uint32_t i = 0; i < count; ++i) {
    ANeuralNetworksDevice* device = nullptr;
    const char* name = nullptr;
    if (ANeuralNetworks_getDevice(i, &device) != ANEURALNETWORKS_NO_ERROR ||
        ANeuralNetworksDevice_getName(device, &name) != ANEURALNETWORKS_NO_ERROR) {
      return nullptr;
    }
    if ((std::string(name) == "nnapi-reference") != remote) return device;
  }
  return nullptr;
}

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

// Empty when the case passes; why it failed otherwise.
std::string runCase(const cts::CtsTestCase& testCase, const ANeuralNetworksDevice* device, Executor executor) {
  auto failed = [&](const std::string& stage, int code) -> std::string {
    if (testCase.expectFailure) return "";
    return stage + " returned " + std::to_string(code);
  };
  CApiModel model;
  std::string call;
  if (int code = model.build(testCase.model, &call); code != ANEURALNETWORKS_NO_ERROR) return failed(call, code);
  ANeuralNetworksCompilation* compilation = nullptr;
  if (int code = ANeuralNetworksCompilation_createForDevices(model.main(), &device, 1, &compilation); code) {
    return failed("createForDevices", code);
  }
  struct FreeCompilation {
    ANeuralNetworksCompilation* c;
    ~FreeCompilation() { ANeuralNetworksCompilation_free(c); }
  } freeCompilation{compilation};
  if (int code = ANeuralNetworksCompilation_finish(compilation); code) return failed("Compilation_finish", code);
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

class CApiConformanceTest : public ::testing::TestWithParam<Param> {};

TEST_P(CApiConformanceTest, ModelsBuiltThroughTheCApiPass) {
  const std::string directory = cts::defaultConformanceDirectory();
  if (directory.empty()) GTEST_SKIP() << "../shared/conformance is absent; set NNREMOTE_CONFORMANCE_DIR to run it";
  const ANeuralNetworksDevice* device = deviceFor(GetParam().remote);
  ASSERT_NE(device, nullptr) << (GetParam().remote ? "no remote device through NNREMOTE_TARGETS" : "no nnapi-reference");
  auto files = cts::findSpecFiles(directory);
  ASSERT_TRUE(files.ok()) << files.error().message;
  size_t seen = 0, ran = 0, failures = 0;
  std::ostringstream log;
  for (const std::string& file : *files) {
    auto cases = cts::loadSpecFile(file, file.substr(directory.size() + 1));
    ASSERT_TRUE(cases.ok()) << cases.error().message;
    for (const cts::CtsTestCase& testCase : *cases) {
      if (seen++ % NNREMOTE_CAPI_STRIDE != 0) continue;
      ++ran;
      const std::string failure = runCase(testCase, device, GetParam().executor);
      if (!failure.empty() && failures++ < 20) log << testCase.fullName() << ": " << failure << "\n";
    }
  }
  std::cout << paramName({GetParam(), 0}) << ": " << ran << " models, " << ran - failures << " passed, " << failures
            << " failed\n";
  EXPECT_EQ(failures, 0u) << log.str();
  EXPECT_GE(ran, 9374u / NNREMOTE_CAPI_STRIDE);
}

INSTANTIATE_TEST_SUITE_P(
    EveryExecutorOnBothDevices, CApiConformanceTest,
    ::testing::Values(Param{true, Executor::SYNC}, Param{true, Executor::ASYNC}, Param{true, Executor::BURST},
                      Param{true, Executor::FENCED}, Param{false, Executor::SYNC}, Param{false, Executor::ASYNC},
                      Param{false, Executor::BURST}, Param{false, Executor::FENCED}),
    paramName);

}  // namespace
}  // namespace nnremote::testing
