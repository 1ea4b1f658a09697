// The resilient proxy: a real npu_emulator crashes (--fault=crash) mid-execution and is
// restarted on the same address. The execution in flight fails with DEAD_OBJECT; the next ones
// succeed through the same prepared model, burst and shared memory objects, in a new session,
// without the caller doing anything. Device buffers say clearly that their contents are gone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "hal/execution_adapters.h"
#include "hal/memory.h"
#include "drivers/proxy/proxy_burst.h"
#include "drivers/proxy/proxy_device.h"
#include "drivers/proxy/pool_transport.h"
#include "testing/add_model.h"
#include "testing/emulator_process.h"

namespace nnremote::proxy {
namespace {

using ::testing::HasSubstr;
using testing::EmulatorProcess;

class ReconnectTest : public ::testing::TestWithParam<bool> {  // bursts on the shared-memory queue?
 protected:
  void SetUp() override {
    address_ = EmulatorProcess::uniqueAddress("reconnect");
    // Executions 1-3 run; the 4th kills the server while the client waits for it.
    server_ = std::make_unique<EmulatorProcess>(address_, std::vector<std::string>{"--fault=crash:3"});
    ConnectionOptions options;
    options.useSharedMemoryBursts = GetParam();
    auto connection = Connection::connect(address_, options);
    ASSERT_TRUE(connection.ok()) << connection.error().message;
    connection_ = *connection;
    auto devices = ProxyDevice::discover(connection_);
    ASSERT_TRUE(devices.ok());
    device_ = devices->front();
    auto prepared = device_->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::SUSTAINED_SPEED,
                                          hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    prepared_ = *prepared;
    auto burst = prepared_->configureExecutionBurst();
    ASSERT_TRUE(burst.ok());
    burst_ = *burst;
    // One input in shared memory (registered with the server), one by value.
    auto shared = hal::createSharedMemory(2 * sizeof(float));
    ASSERT_TRUE(shared.ok());
    sharedInput_ = *shared;
  }

  // (1, 2) + (10, 20) with the first input in shared memory; checks the sums when it succeeds.
  hal::Status execute(bool onBurst) {
    const float first[] = {1, 2};
    std::memcpy(sharedInput_->data(), first, sizeof(first));
    auto io = hal::makeRequest({hal::toBytes<float>({0, 0}), hal::toBytes<float>({10, 20})}, {8});
    io->request.pools[0] = sharedInput_;
    const auto outcome = onBurst ? burst_->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt)
                                 : prepared_->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    if (outcome.ok()) {
      EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
    }
    return outcome.status();
  }

  std::string address_;
  std::unique_ptr<EmulatorProcess> server_;
  std::shared_ptr<Connection> connection_;
  std::shared_ptr<ProxyDevice> device_;
  hal::SharedPreparedModel prepared_;
  hal::SharedBurst burst_;
  hal::SharedMemory sharedInput_;
};

TEST_P(ReconnectTest, TheSameObjectsWorkAgainAfterTheServerRestarts) {
  ASSERT_TRUE(execute(/*onBurst=*/false).ok());
  ASSERT_TRUE(execute(/*onBurst=*/true).ok());
  ASSERT_TRUE(execute(/*onBurst=*/false).ok());
  EXPECT_EQ(connection_->pools().registeredCount(), 1u);
  auto buffer = device_->allocate({{2}}, {prepared_}, {{0, 0, 1.0f}}, {});
  ASSERT_TRUE(buffer.ok()) << buffer.error().message;
  const uint64_t firstSession = connection_->sessionId();

  // The 4th execution crashes the server: in flight, so it fails.
  const hal::Status crashed = execute(/*onBurst=*/true);
  ASSERT_FALSE(crashed.ok());
  EXPECT_EQ(crashed.code(), hal::ErrorStatus::DEAD_OBJECT) << crashed.error().message;
  server_->waitForExit(std::chrono::seconds(5));

  // The server comes back 300 ms later; the next calls wait for it and run in a new session.
  std::thread restart([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    server_ = std::make_unique<EmulatorProcess>(address_);
  });
  const hal::Status afterRestart = execute(/*onBurst=*/false);
  restart.join();
  ASSERT_TRUE(afterRestart.ok()) << afterRestart.error().message;
  EXPECT_EQ(connection_->reconnects(), 1u);
  EXPECT_NE(connection_->sessionId(), firstSession);
  EXPECT_EQ(connection_->pools().registeredCount(), 1u) << "the shared memory was not registered again";
  EXPECT_TRUE(execute(/*onBurst=*/true).ok()) << "the burst did not reopen";
  EXPECT_EQ(std::dynamic_pointer_cast<const ProxyBurst>(burst_)->usesSharedQueue(), GetParam());
  EXPECT_TRUE(execute(/*onBurst=*/false).ok());

  // Fenced executions use the new session's fences.
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
  auto fenced = prepared_->executeFenced(io->request, {}, hal::MeasureTiming::NO, std::nullopt, std::nullopt,
                                         std::nullopt);
  ASSERT_TRUE(fenced.ok()) << fenced.error().message;
  EXPECT_EQ(fenced->first.wait(std::nullopt), hal::SyncFence::State::SIGNALED);
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));

  // A device buffer's contents were on the old server: every use says so.
  auto destination = hal::createHeapMemory(8);
  const hal::Status lost = (*buffer)->copyTo(*destination);
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.code(), hal::ErrorStatus::DEAD_OBJECT);
  EXPECT_THAT(lost.error().message, HasSubstr("was lost with the server session it lived in"));
  // A new one works.
  auto fresh = device_->allocate({{2}}, {prepared_}, {{0, 0, 1.0f}}, {});
  ASSERT_TRUE(fresh.ok()) << fresh.error().message;
  EXPECT_TRUE((*fresh)->copyFrom(*hal::createHeapMemory(hal::toBytes<float>({5, 6})), {2}).ok());
}

TEST_P(ReconnectTest, WithoutReconnectingEveryCallAfterTheLossIsDeadObject) {
  ConnectionOptions options;
  options.reconnect = false;
  auto connection = Connection::connect(address_, options);
  ASSERT_TRUE(connection.ok());
  auto devices = ProxyDevice::discover(*connection);
  auto prepared = devices->front()->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::SUSTAINED_SPEED,
                                                 hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok());
  server_->kill();
  server_ = std::make_unique<EmulatorProcess>(address_);
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    ASSERT_FALSE(outcome.ok());
    EXPECT_EQ(outcome.error().code, hal::ErrorStatus::DEAD_OBJECT) << outcome.error().message;
  }
  EXPECT_EQ((*connection)->reconnects(), 0u);
}

INSTANTIATE_TEST_SUITE_P(BurstTransports, ReconnectTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("SharedQueue") : std::string("Stream");
                         });

}  // namespace
}  // namespace nnremote::proxy
