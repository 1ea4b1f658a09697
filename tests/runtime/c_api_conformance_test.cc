// The conformance set through the NNAPI C API: every model built only with ANeuralNetworksModel_*
// calls, compiled for one device and run sync, async (startCompute), on a burst and fenced
// (startComputeWithDependencies), with the arguments in the program's memory and in device
// memory (memory domains), on a remote device (an npu_emulator this test starts, reached through
// NNREMOTE_TARGETS) and on nnapi-reference. CI runs every NNREMOTE_CAPI_STRIDE-th case;
// c_api_conformance_full_test runs them all.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "drivers/sim/sim_device.h"
#include "emulator/emulator_server.h"
#include "hal/operand_types.h"
#include "tests/common/server_options.h"
#include "testing/unique_names.h"
#include "conformance/cts_loader.h"
#include "conformance/cts_runner.h"
#include "tests/runtime/c_api_case.h"
#include "tests/runtime/remote_server.h"

#ifndef NNREMOTE_CAPI_STRIDE
#define NNREMOTE_CAPI_STRIDE 8
#endif

namespace nnremote::testing {
namespace {

const auto* const kServer = ::testing::AddGlobalTestEnvironment(new RemoteServer("capi"));

struct Param {
  bool remote;
  Executor executor;
  bool deviceMemory;
};

std::string paramName(const ::testing::TestParamInfo<Param>& info) {
  static const char* executors[] = {"Sync", "Async", "Burst", "Fenced"};
  return std::string(info.param.remote ? "Remote" : "Reference") + "_" +
         executors[static_cast<int>(info.param.executor)] + (info.param.deviceMemory ? "_DeviceMemory" : "");
}

// Every executor on both devices, with and without device memory.
std::vector<Param> everyParam() {
  std::vector<Param> params;
  for (bool remote : {true, false}) {
    for (bool deviceMemory : {false, true}) {
      for (Executor executor : {Executor::SYNC, Executor::ASYNC, Executor::BURST, Executor::FENCED}) {
        params.push_back({remote, executor, deviceMemory});
      }
    }
  }
  return params;
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

class CApiConformanceTest : public ::testing::TestWithParam<Param> {};

TEST_P(CApiConformanceTest, ModelsBuiltThroughTheCApiPass) {
  const std::string directory = conformance::defaultConformanceDirectory();
  if (directory.empty()) GTEST_SKIP() << "../shared/conformance is absent; set NNREMOTE_CONFORMANCE_DIR to run it";
  const ANeuralNetworksDevice* device = deviceFor(GetParam().remote);
  ASSERT_NE(device, nullptr) << (GetParam().remote ? "no remote device through NNREMOTE_TARGETS" : "no nnapi-reference");
  std::ostringstream log;
  auto counts = runEveryNthCase(
      directory, NNREMOTE_CAPI_STRIDE,
      [&](const conformance::CtsTestCase& testCase) {
        return runCase(testCase, {device, GetParam().executor, GetParam().deviceMemory, nullptr});
      },
      log);
  ASSERT_TRUE(counts.ok()) << counts.error().message;
  const size_t ran = counts->ran, failures = counts->failed;
  std::cout << paramName({GetParam(), 0}) << ": " << ran << " models, " << ran - failures << " passed, " << failures
            << " failed\n";
  EXPECT_EQ(failures, 0u) << log.str();
  EXPECT_GE(ran, 9374u / NNREMOTE_CAPI_STRIDE);
}

INSTANTIATE_TEST_SUITE_P(EveryExecutorOnBothDevices, CApiConformanceTest, ::testing::ValuesIn(everyParam()), paramName);

}  // namespace
}  // namespace nnremote::testing
