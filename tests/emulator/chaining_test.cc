// npu_emulator --config=remote:ADDR, with both emulators real processes: the front serves the far
// device under its own name; the far side's errors arrive as their HAL status through both hops;
// and when the far emulator dies, the front's clients get DEAD_OBJECT promptly while the front
// itself keeps serving; clients executing at once through a hop over TCP all finish.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "emulator/emulator_server.h"
#include "emulator/remote_devices.h"
#include "emulator/simulated_npus.h"
#include "hal/memory.h"
#include "drivers/proxy/proxy_device.h"
#include "testing/add_model.h"
#include "testing/emulator_process.h"
#include "tests/common/server_options.h"
#include "tests/common/test_pki.h"

namespace nnremote::emulator {
namespace {

using ::testing::HasSubstr;

TEST(ChainingTest, TheFrontServesTheFarDeviceAndPassesItsErrorsAndDeathOn) {
  const std::string farAddress = testing::EmulatorProcess::uniqueAddress("far");
  const std::string frontAddress = testing::EmulatorProcess::uniqueAddress("front");
  // The far side fails its second execution.
  testing::EmulatorProcess far(farAddress, {"--config=edge16", "--fault=error:1"});
  testing::EmulatorProcess front(frontAddress, {"--config=remote:" + farAddress});

  proxy::ConnectionOptions options;
  options.reconnect = false;  // this client talks to the front, which stays up
  auto connection = proxy::Connection::connect(frontAddress, options);
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  auto devices = proxy::ProxyDevice::discover(*connection);
  ASSERT_TRUE(devices.ok()) << devices.error().message;
  ASSERT_EQ(devices->size(), 1u);
  EXPECT_EQ(devices->front()->getName(), "nnremote-edge16");

  auto prepared = devices->front()->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                                 hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto execute = [&] {
    auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
    EXPECT_TRUE(io.ok());
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
    if (outcome.ok()) {
      EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
      EXPECT_GT(outcome->timing.timeOnDevice.value_or(hal::Duration(0)).count(), 0) << "the far side's timing";
    }
    return outcome.status();
  };
  ASSERT_TRUE(execute().ok());
  const hal::Status injected = execute();
  ASSERT_FALSE(injected.ok());
  EXPECT_EQ(injected.error().code, hal::ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(injected.error().message, HasSubstr("injected error (--fault=error)"));
  // A request the front itself refuses never reaches the far side.
  auto bad = hal::makeRequest({hal::toBytes<float>({1, 2})}, {8});
  ASSERT_TRUE(bad.ok());
  auto refused = (*prepared)->execute(bad->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, hal::ErrorStatus::INVALID_ARGUMENT);

  far.kill();
  const auto start = std::chrono::steady_clock::now();
  const hal::Status lost = execute();
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.error().code, hal::ErrorStatus::DEAD_OBJECT) << lost.error().message;
  EXPECT_LT(waited, std::chrono::seconds(5)) << "the front gives up on the far side within its 2 s";
  // The front is alive: a new client still opens a session there and finds the device.
  auto another = proxy::Connection::connect(frontAddress, options);
  ASSERT_TRUE(another.ok()) << another.error().message;
  auto listed = proxy::ProxyDevice::discover(*another);
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  EXPECT_EQ(listed->size(), 1u);
}

// The front reaches a far emulator that wants mutual TLS and a token (--remote-tls-* and
// --remote-token-file): with them it serves the far device; without the token it is refused
// at startup.
TEST(ChainingTest, TheHopToTheFarSideCanUseMutualTlsAndAToken) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  auto pki = testing::makeTestPki(std::string(tmp != nullptr ? tmp : "/tmp") + "/chaining-pki");
  ASSERT_TRUE(pki.ok()) << pki.error().message;
  ServerOptions farOptions;
  farOptions.security.tlsCertPem = pki->server.certPem;
  farOptions.security.tlsKeyPem = pki->server.keyPem;
  farOptions.security.clientCaPem = pki->caPem;
  farOptions.security.tokens.identityOf["front-token-0123456789"] = "front";
  auto far = EmulatorServer::start({createSimulatedNpu(sim::edgeNpuConfig())}, "127.0.0.1:0", farOptions);
  ASSERT_TRUE(far.ok()) << far.error().message;

  proxy::ConnectionOptions hop = chainedConnectionOptions();
  hop.security.tlsCaPem = pki->caPem;
  hop.security.tlsCertPem = pki->alice.certPem;
  hop.security.tlsKeyPem = pki->alice.keyPem;
  hop.reconnect = false;
  auto refused = connectRemoteDevices((*far)->address(), hop);
  ASSERT_FALSE(refused.ok()) << "no token";
  EXPECT_THAT(refused.error().message, HasSubstr("remote:" + (*far)->address()));

  hop.security.token = "front-token-0123456789";
  auto remote = connectRemoteDevices((*far)->address(), hop);
  ASSERT_TRUE(remote.ok()) << remote.error().message;
  auto front = EmulatorServer::start(*remote, "127.0.0.1:0", testing::plainLoopbackOptions());
  ASSERT_TRUE(front.ok()) << front.error().message;
  auto connection = proxy::Connection::connect((*front)->address());
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  auto devices = proxy::ProxyDevice::discover(*connection);
  ASSERT_TRUE(devices.ok() && devices->size() == 1u);
  auto prepared = devices->front()->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                                 hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
  ASSERT_TRUE(io.ok());
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
}

// The front runs a quick execution inline on the gRPC thread it arrived on (quick_executions.h);
// through a hop over TCP that thread then waits on a gRPC stream to the far side. Clients that
// burst, execute and release models at once must all finish, none held until a call deadline.
TEST(ChainingTest, ClientsExecutingAtOnceThroughATcpHopAllFinish) {
  auto far =
      EmulatorServer::start({createSimulatedNpu(sim::edgeNpuConfig())}, "127.0.0.1:0", testing::plainLoopbackOptions());
  ASSERT_TRUE(far.ok()) << far.error().message;
  auto remote = connectRemoteDevices((*far)->address());
  ASSERT_TRUE(remote.ok()) << remote.error().message;
  auto front = EmulatorServer::start(*remote, "127.0.0.1:0", testing::plainLoopbackOptions());
  ASSERT_TRUE(front.ok()) << front.error().message;

  constexpr int kClients = 4, kModels = 8, kExecutions = 25;
  std::atomic<int> failures{0};
  std::mutex mutex;
  std::string firstFailure;
  auto fail = [&](const std::string& why) {
    std::lock_guard<std::mutex> lock(mutex);
    if (failures++ == 0) firstFailure = why;
  };
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      auto connection = proxy::Connection::connect((*front)->address());
      if (!connection.ok()) return fail(connection.error().message);
      auto devices = proxy::ProxyDevice::discover(*connection);
      if (!devices.ok() || devices->size() != 1) return fail("no device");
      for (int m = 0; m < kModels; ++m) {
        auto prepared =
            devices->front()->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                           hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
        if (!prepared.ok()) return fail(prepared.error().message);
        auto burst = (*prepared)->configureExecutionBurst();
        if (!burst.ok()) return fail(burst.error().message);
        auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
        if (!io.ok()) return fail(io.error().message);
        for (int e = 0; e < kExecutions; ++e) {
          const auto deadline = hal::Clock::now() + std::chrono::seconds(20);
          auto outcome = (e + c) % 2 == 0
                             ? (*burst)->execute(io->request, hal::MeasureTiming::NO, deadline, std::nullopt)
                             : (*prepared)->execute(io->request, hal::MeasureTiming::NO, deadline, std::nullopt);
          if (!outcome.ok()) return fail(outcome.error().message);
        }
      }
    });
  }
  for (std::thread& client : clients) client.join();
  EXPECT_EQ(failures.load(), 0) << firstFailure;
}

TEST(ChainingTest, TheRemoteSecurityFlagsAreCheckedAtStartup) {
  const std::string command =
      "emulator/npu_emulator --listen=unix:/tmp/nnremote-chaining-flags.sock --config=remote:127.0.0.1:1 "
      "--remote-tls-ca=/nonexistent/ca.pem 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  const int status = ::pclose(pipe);
  EXPECT_EQ(WEXITSTATUS(status), 2) << output;
  EXPECT_THAT(output, HasSubstr("--remote-tls-ca: cannot read /nonexistent/ca.pem"));
}

}  // namespace
}  // namespace nnremote::emulator
