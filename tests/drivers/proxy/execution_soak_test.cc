// Nothing leaks across executions: many executions in one session, through every executor and
// every memory kind, leave the server's per-session holdings (prepared models, memories, uploads,
// downloads, fences, device buffers, executions, bursts, bytes) exactly where they started.
// The CI target runs 200 executions per case (NNREMOTE_SOAK_EXECUTIONS); execution_soak_full_test runs
// 50,000 (tests/drivers/proxy/BUILD).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "drivers/sim/sim_device.h"
#include "emulator/accelerator_service.h"
#include "emulator/emulator_server.h"
#include "drivers/proxy/proxy_device.h"
#include "testing/add_model.h"
#include "tests/common/server_options.h"
#include "testing/unique_names.h"
#include "conformance/cts_runner.h"

#ifndef NNREMOTE_SOAK_EXECUTIONS
#define NNREMOTE_SOAK_EXECUTIONS 200
#endif

namespace nnremote::proxy {
namespace {

using conformance::Executor;
using conformance::PoolMemory;

struct SoakCase {
  Executor executor;
  PoolMemory memory;
  bool sharedQueueBursts = false;  // bursts through the same-host shared-memory queue
};

std::string caseName(const ::testing::TestParamInfo<SoakCase>& info) {
  static const char* executors[] = {"Sync", "Async", "Reusable", "Burst", "Fenced"};
  static const char* memories[] = {"Bytes", "SharedMemory", "DeviceMemory"};
  return std::string(executors[static_cast<int>(info.param.executor)]) +
         (info.param.sharedQueueBursts ? "SharedQueue" : "") + "_" + memories[static_cast<int>(info.param.memory)];
}

// out = a + b, with its golden answer.
conformance::CtsTestCase addCase() {
  conformance::CtsTestCase testCase;
  testCase.file = "soak";
  testCase.name = "add";
  testCase.model = testing::twoInputAddModel();
  testCase.inputs = {hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})};
  conformance::GoldenOutput golden;
  golden.type = hal::OperandType::TENSOR_FLOAT32;
  golden.dimensions = {2};
  golden.data = hal::toBytes<float>({11, 22});
  testCase.outputs.push_back(golden);
  return testCase;
}

class ExecutionSoakTest : public ::testing::TestWithParam<SoakCase> {};

TEST_P(ExecutionSoakTest, ASessionHoldsWhatItHeldBeforeAfterManyExecutions) {
  const SoakCase param = GetParam();
  // A unix socket: the server shares this host, so shared memory is registered, not copied.
  auto server = emulator::EmulatorServer::start({sim::SimDevice::create(sim::edgeNpuConfig())},
                                                "unix-abstract:nnremote-soak-" + testing::uniqueToken(),
                                                testing::plainLoopbackOptions());
  ASSERT_TRUE(server.ok()) << server.error().message;
  ConnectionOptions options;
  options.useSharedMemoryBursts = param.sharedQueueBursts;
  auto connection = Connection::connect((*server)->address(), options);
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  auto devices = ProxyDevice::discover(*connection);
  ASSERT_TRUE(devices.ok()) << devices.error().message;
  const hal::IDevice& device = *devices->front();
  const conformance::CtsTestCase testCase = addCase();
  auto prepared = device.prepareModel(testCase.model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                      hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;

  const emulator::SessionRegistry& sessions = (*server)->service().sessions();
  const uint64_t sessionId = (*connection)->sessionId();
  auto held = [&]() {
    auto holdings = sessions.holdings(sessionId);
    EXPECT_TRUE(holdings.ok()) << holdings.error().message;
    return holdings.ok() ? *holdings : emulator::SessionHoldings{};
  };
  const emulator::SessionHoldings before = held();
  EXPECT_EQ(before.preparedModels, 1u);

  conformance::RunOptions run;
  run.executor = param.executor;
  run.memory = param.memory;
  constexpr int kExecutions = NNREMOTE_SOAK_EXECUTIONS;
  for (int i = 0; i < kExecutions; ++i) {
    const conformance::CaseResult result = conformance::executeAndCheck(device, testCase, *prepared, run);
    ASSERT_EQ(result.outcome, conformance::Outcome::PASSED) << "execution " << i << ": " << result.message;
  }
  EXPECT_EQ((*connection)->sessionId(), sessionId) << "all in one session";
  // What the client let go of travels with its next request; with none to come, it goes now. A
  // fenced execution's results are collected on a thread of the proxy's, which lets go of its
  // fence and memories just after the caller has them, and the server lets go of an execution's
  // slot just after answering it: so this waits, bounded, for both sides to settle.
  const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  emulator::SessionHoldings after;
  while (true) {
    ASSERT_TRUE((*connection)->releaseDropped().ok());
    after = held();
    if (after == before || std::chrono::steady_clock::now() > giveUp) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(after, before) << "after " << kExecutions << " executions the session holds " << after.toString()
                           << "; before them, " << before.toString();
}

INSTANTIATE_TEST_SUITE_P(
    EveryExecutorAndMemory, ExecutionSoakTest,
    ::testing::Values(SoakCase{Executor::SYNC, PoolMemory::BYTES}, SoakCase{Executor::SYNC, PoolMemory::SHARED},
                      SoakCase{Executor::SYNC, PoolMemory::DEVICE}, SoakCase{Executor::ASYNC, PoolMemory::BYTES},
                      SoakCase{Executor::ASYNC, PoolMemory::SHARED}, SoakCase{Executor::ASYNC, PoolMemory::DEVICE},
                      SoakCase{Executor::REUSABLE, PoolMemory::BYTES}, SoakCase{Executor::REUSABLE, PoolMemory::SHARED},
                      SoakCase{Executor::REUSABLE, PoolMemory::DEVICE}, SoakCase{Executor::BURST, PoolMemory::BYTES},
                      SoakCase{Executor::BURST, PoolMemory::SHARED}, SoakCase{Executor::BURST, PoolMemory::DEVICE},
                      SoakCase{Executor::BURST, PoolMemory::BYTES, true},
                      SoakCase{Executor::BURST, PoolMemory::SHARED, true},
                      SoakCase{Executor::BURST, PoolMemory::DEVICE, true}, SoakCase{Executor::FENCED, PoolMemory::BYTES},
                      SoakCase{Executor::FENCED, PoolMemory::SHARED}, SoakCase{Executor::FENCED, PoolMemory::DEVICE}),
    caseName);

}  // namespace
}  // namespace nnremote::proxy
