// npu_emulator --fault, seen from a client through the proxy driver, for every executor: a crash
// gives DEAD_OBJECT within 500 ms and a restarted server serves again; a hang ends at the
// execution's deadline or the proxy's execution timeout, so no call blocks forever; an injected
// error arrives as its HAL status and the server goes on serving.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <iostream>
#include <thread>

#include "hal/execution_adapters.h"
#include "drivers/proxy/proxy_burst.h"
#include "drivers/proxy/proxy_device.h"
#include "testing/add_model.h"
#include "testing/emulator_process.h"

namespace nnremote::proxy {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

enum class Executor { SYNC, ASYNC, BURST_STREAM, BURST_SHARED_QUEUE, FENCED };

std::string executorName(const ::testing::TestParamInfo<Executor>& info) {
  switch (info.param) {
    case Executor::SYNC: return "Sync";
    case Executor::ASYNC: return "Async";
    case Executor::BURST_STREAM: return "BurstStream";
    case Executor::BURST_SHARED_QUEUE: return "BurstSharedQueue";
    case Executor::FENCED: return "Fenced";
  }
  return "?";
}

class FaultInjectionTest : public ::testing::TestWithParam<Executor> {
 protected:
  // A socket path of this test's own (TEST_TMPDIR is too long for one).
  std::string address() { return testing::EmulatorProcess::uniqueAddress("fault"); }

  // Connects (waiting for the server to come up), prepares the ADD model, and opens a burst for
  // the burst executors.
  void connect(const std::string& at, std::chrono::milliseconds executionTimeout = std::chrono::milliseconds(0)) {
    ConnectionOptions options;
    options.useSharedMemoryBursts = GetParam() == Executor::BURST_SHARED_QUEUE;
    options.executionTimeout = executionTimeout;
    // Each fault's own outcome, not recovery from it (tests/drivers/proxy:reconnect_test).
    options.reconnect = false;
    auto connection = Connection::connect(at, options);
    ASSERT_TRUE(connection.ok()) << connection.error().message;
    connection_ = *connection;
    auto devices = ProxyDevice::discover(connection_);
    ASSERT_TRUE(devices.ok()) << devices.error().message;
    auto prepared = devices->front()->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::SUSTAINED_SPEED,
                                                   hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    prepared_ = *prepared;
    burst_ = nullptr;
    if (GetParam() == Executor::BURST_STREAM || GetParam() == Executor::BURST_SHARED_QUEUE) {
      auto burst = prepared_->configureExecutionBurst();
      ASSERT_TRUE(burst.ok()) << burst.error().message;
      burst_ = *burst;
      EXPECT_EQ(std::dynamic_pointer_cast<const ProxyBurst>(burst_)->usesSharedQueue(),
                GetParam() == Executor::BURST_SHARED_QUEUE);
    }
  }

  // One execution of 1+10, 2+20 with the executor under test; checks the sums when it succeeds.
  hal::Status executeOnce(const hal::OptionalTimePoint& deadline = std::nullopt) {
    auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
    if (!io.ok()) return io.error();
    hal::Status status;
    switch (GetParam()) {
      case Executor::SYNC:
        status = prepared_->execute(io->request, hal::MeasureTiming::NO, deadline, std::nullopt).status();
        break;
      case Executor::ASYNC:
        status = hal::executeAsync(prepared_, io->request, hal::MeasureTiming::NO, deadline, std::nullopt).get().status();
        break;
      case Executor::BURST_STREAM:
      case Executor::BURST_SHARED_QUEUE:
        status = burst_->execute(io->request, hal::MeasureTiming::NO, deadline, std::nullopt).status();
        break;
      case Executor::FENCED: {
        auto fenced = prepared_->executeFenced(io->request, {}, hal::MeasureTiming::NO, deadline, std::nullopt,
                                               std::nullopt);
        if (!fenced.ok()) return fenced.error();
        fenced->first.wait(std::nullopt);
        status = fenced->second().status();
        break;
      }
    }
    if (status.ok()) {
      EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
    }
    return status;
  }

  std::shared_ptr<Connection> connection_;
  hal::SharedPreparedModel prepared_;
  hal::SharedBurst burst_;
};

TEST_P(FaultInjectionTest, ACrashIsDeadObjectWithin500MsAndARestartedServerServesAgain) {
  const std::string at = address();
  auto server = std::make_unique<testing::EmulatorProcess>(at, std::vector<std::string>{"--fault=crash:2"});
  connect(at);
  ASSERT_TRUE(executeOnce().ok());
  ASSERT_TRUE(executeOnce().ok());
  const auto start = Clock::now();
  const hal::Status crashed = executeOnce();
  const auto took = Clock::now() - start;
  ASSERT_FALSE(crashed.ok());
  EXPECT_EQ(crashed.code(), hal::ErrorStatus::DEAD_OBJECT) << crashed.error().message;
  EXPECT_LT(took, std::chrono::milliseconds(500));
  std::cout << "crash seen as DEAD_OBJECT after "
            << std::chrono::duration_cast<std::chrono::microseconds>(took).count() / 1000.0 << " ms\n";
  const int status = server->waitForExit(std::chrono::seconds(5));
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "wait status " << status;
  EXPECT_EQ(executeOnce().code(), hal::ErrorStatus::DEAD_OBJECT) << "the next call must fail too, not hang";

  server = std::make_unique<testing::EmulatorProcess>(at);
  connect(at);
  EXPECT_TRUE(executeOnce().ok());
}

TEST_P(FaultInjectionTest, AHangEndsAtTheDeadline) {
  const std::string at = address();
  testing::EmulatorProcess server(at, {"--fault=hang:0"});
  connect(at);
  const auto start = Clock::now();
  const hal::Status hung = executeOnce(hal::Clock::now() + std::chrono::milliseconds(200));
  const auto took = Clock::now() - start;
  ASSERT_FALSE(hung.ok());
  EXPECT_EQ(hung.code(), hal::ErrorStatus::MISSED_DEADLINE_TRANSIENT) << hung.error().message;
  EXPECT_LT(took, std::chrono::seconds(3));
  // The hang was one execution; a fresh burst (the old one was cut off) or call runs.
  if (burst_) burst_ = *prepared_->configureExecutionBurst();
  EXPECT_TRUE(executeOnce().ok());
}

TEST_P(FaultInjectionTest, AHangWithoutADeadlineEndsAtTheExecutionTimeout) {
  const std::string at = address();
  testing::EmulatorProcess server(at, {"--fault=hang:0"});
  connect(at, std::chrono::milliseconds(300));
  const auto start = Clock::now();
  const hal::Status hung = executeOnce();
  const auto took = Clock::now() - start;
  ASSERT_FALSE(hung.ok());
  EXPECT_EQ(hung.code(), hal::ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(hung.error().message, HasSubstr("executionTimeout (300 ms)"));
  EXPECT_LT(took, std::chrono::seconds(3));
}

TEST_P(FaultInjectionTest, AnInjectedErrorArrivesAsItsStatusAndServingGoesOn) {
  const std::string at = address();
  testing::EmulatorProcess server(at, {"--fault=error:1"});
  connect(at);
  EXPECT_TRUE(executeOnce().ok());
  const hal::Status failed = executeOnce();
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.code(), hal::ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(failed.error().message, HasSubstr("injected error (--fault=error) at execution 2"));
  EXPECT_TRUE(executeOnce().ok());
}

TEST_P(FaultInjectionTest, ASlowExecutionMissesAShortDeadline) {
  const std::string at = address();
  testing::EmulatorProcess server(at, {"--fault=slow:0"});
  connect(at);
  const auto start = Clock::now();
  const hal::Status slow = executeOnce(hal::Clock::now() + std::chrono::milliseconds(200));
  ASSERT_FALSE(slow.ok());
  EXPECT_TRUE(slow.code() == hal::ErrorStatus::MISSED_DEADLINE_TRANSIENT ||
              slow.code() == hal::ErrorStatus::MISSED_DEADLINE_PERSISTENT)
      << slow.error().message;
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(3));
}

INSTANTIATE_TEST_SUITE_P(EveryExecutor, FaultInjectionTest,
                         ::testing::Values(Executor::SYNC, Executor::ASYNC, Executor::BURST_STREAM,
                                           Executor::BURST_SHARED_QUEUE, Executor::FENCED),
                         executorName);

TEST(SlowFaultTest, ASlowExecutionWithoutADeadlineCompletesCorrectly) {
  const std::string at = testing::EmulatorProcess::uniqueAddress("slow");
  testing::EmulatorProcess server(at, {"--fault=slow:0"});
  auto connection = Connection::connect(at);
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  auto devices = ProxyDevice::discover(*connection);
  ASSERT_TRUE(devices.ok());
  auto prepared = devices->front()->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::LOW_POWER,
                                                 hal::Priority::LOW, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok());
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
  const auto start = Clock::now();
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_GE(Clock::now() - start, std::chrono::seconds(4));
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
}

}  // namespace
}  // namespace nnremote::proxy
