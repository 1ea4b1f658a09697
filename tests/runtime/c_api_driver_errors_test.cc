// What a program sees of a driver's execution errors, checked as Android's own
// runtime/test/TestExecution.cpp checks them (re-expressed here, not copied): a device whose every
// execution fails with one HAL status gives the program that status's result code by every
// executor (startCompute, compute, burstCompute, startComputeWithDependencies), reusable or not;
// an output's dimensions are BAD_STATE while the execution runs and after it failed, except after
// OUTPUT_INSUFFICIENT_SIZE, which gives the shape the device reported; its durations (each of the
// four codes) are BAD_STATE while it runs and after any failure (as TestIntrospectionControl). The devices are on a
// real server this test starts, so each status crosses the wire and the proxy; compilations are for the chosen device,
// which never falls back to the CPU.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "drivers/sim/sim_device.h"
#include "hal/types.h"
#include "tests/common/scripted_device.h"
#include "tests/runtime/c_api_helpers.h"
#include "tests/runtime/remote_server.h"

namespace nnremote::testing {
namespace {

struct Case {
  hal::ErrorStatus status;  // what the device's every execution fails with
  int expected;             // the result code the program gets
};

const std::vector<Case> kCases = {
    {hal::ErrorStatus::NONE, ANEURALNETWORKS_NO_ERROR},
    {hal::ErrorStatus::DEVICE_UNAVAILABLE, ANEURALNETWORKS_UNAVAILABLE_DEVICE},
    {hal::ErrorStatus::GENERAL_FAILURE, ANEURALNETWORKS_OP_FAILED},
    {hal::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE, ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE},
    {hal::ErrorStatus::INVALID_ARGUMENT, ANEURALNETWORKS_BAD_DATA},
    // Beyond Android's test: the statuses of HAL 1.3 that it leaves out.
    {hal::ErrorStatus::MISSED_DEADLINE_TRANSIENT, ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT},
    {hal::ErrorStatus::MISSED_DEADLINE_PERSISTENT, ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT},
    {hal::ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT, ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT},
    {hal::ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT, ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT},
    // A driver that says it died, behind a server that did not: the proxy must not take it for
    // its own connection's death.
    {hal::ErrorStatus::DEAD_OBJECT, ANEURALNETWORKS_DEAD_OBJECT},
};

std::string deviceName(hal::ErrorStatus status) { return "fails-with-" + std::string(hal::toString(status)); }

// Every device's executions wait here while a test looks at them.
const std::shared_ptr<ExecutionGate>& gate() {
  static const auto* theGate = new std::shared_ptr<ExecutionGate>(std::make_shared<ExecutionGate>());
  return *theGate;
}

std::vector<hal::SharedDevice> failingDevices() {
  std::vector<hal::SharedDevice> devices;
  for (const Case& c : kCases) {
    DeviceScript script;
    script.name = deviceName(c.status);
    script.failsToExecute = c.status;
    script.gate = gate();
    devices.push_back(std::make_shared<ScriptedDevice>(sim::SimDevice::create(sim::edgeNpuConfig()), script));
  }
  return devices;
}

const auto* const kServer =
    ::testing::AddGlobalTestEnvironment(new RemoteServer("capi-driver-errors", failingDevices()));

const ANeuralNetworksDevice* deviceNamed(const std::string& name) {
  for (const ANeuralNetworksDevice* device : allDevices()) {
    if (nameOf(device) == name) return device;
  }
  return nullptr;
}

class CApiDriverErrorsTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    const ANeuralNetworksDevice* device = deviceNamed(deviceName(GetParam().status));
    ASSERT_NE(device, nullptr) << "no device " << deviceName(GetParam().status) << " through NNREMOTE_TARGETS";
    model_ = addModel();
    ASSERT_NE(model_, nullptr);
    compilation_ = compile(model_.get(), device);
    ASSERT_NE(compilation_, nullptr);
  }

  // Runs `computation` `times` times on one execution (reusable when more than once), the device
  // holding each run until the test has seen that the execution's dimensions cannot be read yet.
  // `computation` starts the run and returns a function that finishes it (joins, waits) and gives
  // its result code.
  void check(const char* executor, int times,
             const std::function<std::function<int()>(ANeuralNetworksExecution*)>& computation) {
    SCOPED_TRACE(executor);
    const int expected = GetParam().expected;
    Execution execution = executionOf(compilation_.get());
    ASSERT_NE(execution, nullptr);
    ASSERT_EQ(ANeuralNetworksExecution_setReusable(execution.get(), times > 1), kOk);
    ASSERT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution.get(), true), kOk);
    float out[2] = {};
    ASSERT_EQ(setAddArguments(execution.get(), kA, kB, out), kOk);
    for (int run = 0; run < times; ++run) {
      SCOPED_TRACE("run " + std::to_string(run));
      out[0] = out[1] = 0;
      gate()->close();
      std::function<int()> finish = computation(execution.get());
      ASSERT_TRUE(gate()->awaitArrival()) << "the execution never reached the device";
      uint32_t dimensions[1] = {};
      EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution.get(), 0, dimensions),
                ANEURALNETWORKS_BAD_STATE)
          << "while it runs";
      expectDurations(execution.get(), ANEURALNETWORKS_BAD_STATE, "while it runs");
      gate()->open();
      EXPECT_EQ(finish(), expected);
      if (expected == kOk) {
        EXPECT_EQ(values(out), kSum);
      }
      const int dimensionsCode = ANeuralNetworksExecution_getOutputOperandDimensions(execution.get(), 0, dimensions);
      if (expected == kOk || expected == ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE) {
        EXPECT_EQ(dimensionsCode, expected);
        EXPECT_EQ(dimensions[0], 2u);
      } else {
        EXPECT_EQ(dimensionsCode, ANEURALNETWORKS_BAD_STATE) << "a failed execution has no dimensions";
      }
      expectDurations(execution.get(), expected == kOk ? kOk : ANEURALNETWORKS_BAD_STATE, "after it");
    }
  }

  static void expectDurations(ANeuralNetworksExecution* execution, int code, const char* when) {
    for (int32_t durationCode :
         {ANEURALNETWORKS_DURATION_ON_HARDWARE, ANEURALNETWORKS_DURATION_IN_DRIVER,
          ANEURALNETWORKS_FENCED_DURATION_ON_HARDWARE, ANEURALNETWORKS_FENCED_DURATION_IN_DRIVER}) {
      uint64_t duration = 0;
      EXPECT_EQ(ANeuralNetworksExecution_getDuration(execution, durationCode, &duration), code)
          << "duration code " << durationCode << " " << when;
    }
  }

  void checkEveryExecutor(int times) {
    check("startCompute", times, [](ANeuralNetworksExecution* execution) -> std::function<int()> {
      ANeuralNetworksEvent* event = nullptr;
      const int started = ANeuralNetworksExecution_startCompute(execution, &event);
      return [started, event] {
        if (started != kOk) return started;
        const int code = ANeuralNetworksEvent_wait(event);
        ANeuralNetworksEvent_free(event);
        return code;
      };
    });
    check("compute", times, [](ANeuralNetworksExecution* execution) -> std::function<int()> {
      auto result = std::make_shared<int>(kOk);
      auto run =
          std::make_shared<std::thread>([execution, result] { *result = ANeuralNetworksExecution_compute(execution); });
      return [run, result] {
        run->join();
        return *result;
      };
    });
    ANeuralNetworksBurst* rawBurst = nullptr;
    ASSERT_EQ(ANeuralNetworksBurst_create(compilation_.get(), &rawBurst), kOk);
    Burst burst(rawBurst);
    check("burstCompute", times, [&burst](ANeuralNetworksExecution* execution) -> std::function<int()> {
      auto result = std::make_shared<int>(kOk);
      auto run = std::make_shared<std::thread>(
          [execution, result, b = burst.get()] { *result = ANeuralNetworksExecution_burstCompute(execution, b); });
      return [run, result] {
        run->join();
        return *result;
      };
    });
    // As Android: startComputeWithDependencies cannot report OUTPUT_INSUFFICIENT_SIZE.
    if (GetParam().status == hal::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) return;
    check("startComputeWithDependencies", times, [](ANeuralNetworksExecution* execution) -> std::function<int()> {
      // The NDK lets the failure come from the call (Android's sample driver fails it there) or
      // from the event; either way it is the status's code, and a failed call makes no event.
      auto started = std::make_shared<int>(kOk);
      auto event = std::make_shared<ANeuralNetworksEvent*>(nullptr);
      auto run = std::make_shared<std::thread>([execution, started, event] {
        *started = ANeuralNetworksExecution_startComputeWithDependencies(execution, nullptr, 0, 0, event.get());
      });
      return [run, started, event] {
        run->join();
        if (*started != kOk) {
          EXPECT_EQ(*event, nullptr);
          return *started;
        }
        const int code = ANeuralNetworksEvent_wait(*event);
        ANeuralNetworksEvent_free(*event);
        return code;
      };
    });
  }

  Model model_;
  Compilation compilation_;
};

TEST_P(CApiDriverErrorsTest, EveryExecutorGivesTheStatusesCode) { checkEveryExecutor(1); }

TEST_P(CApiDriverErrorsTest, EveryComputationOfAReusableExecutionGivesIt) { checkEveryExecutor(2); }

INSTANTIATE_TEST_SUITE_P(Status, CApiDriverErrorsTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(hal::toString(info.param.status));
                         });

}  // namespace
}  // namespace nnremote::testing
