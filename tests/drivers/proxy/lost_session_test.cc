// A server that no longer knows a client's session (it restarted while the client was idle, or
// dropped the session) before the client has noticed: the client's next calls are made again in
// a new session instead of failing (issue: "after a server restart, the proxy's first call must
// reconnect, not fail"). What the caller holds (the prepared model) keeps working.
#include <gtest/gtest.h>

#include "drivers/sim/sim_device.h"
#include "emulator/accelerator_service.h"
#include "emulator/emulator_server.h"
#include "drivers/proxy/proxy_device.h"
#include "testing/add_model.h"
#include "tests/common/server_options.h"
#include "testing/unique_names.h"

namespace nnremote::proxy {
namespace {

std::unique_ptr<emulator::EmulatorServer> startServer(const std::string& address) {
  auto server = emulator::EmulatorServer::start({sim::SimDevice::create(sim::edgeNpuConfig())}, address,
                                                testing::plainLoopbackOptions());
  if (!server.ok()) ADD_FAILURE() << server.error().message;
  return server.ok() ? std::move(server).value() : nullptr;
}

// The server is replaced by a new one on the same address between one call and the next, with
// no pause: whether the client has noticed yet or not, each call succeeds in a new session.
TEST(LostSessionTest, TheFirstCallsToARestartedServerAreMadeAgainInANewSession) {
  const std::string address = "unix-abstract:nnremote-lost-session-" + testing::uniqueToken();
  auto server = startServer(address);
  ASSERT_NE(server, nullptr);
  auto connection = Connection::connect(address);
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  auto devices = ProxyDevice::discover(*connection);
  ASSERT_TRUE(devices.ok()) << devices.error().message;
  const auto device = devices->front();
  auto prepared = device->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                       hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto restart = [&] {
    server.reset();
    server = startServer(address);
    ASSERT_NE(server, nullptr);
  };
  constexpr int kRounds = 5;
  for (int round = 0; round < kRounds; ++round) {
    restart();
    auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    ASSERT_TRUE(outcome.ok()) << "round " << round << ": " << outcome.error().message;
    EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
    restart();
    auto supported = device->getSupportedOperations(testing::twoInputAddModel());
    ASSERT_TRUE(supported.ok()) << "round " << round << ": " << supported.error().message;
    restart();
    auto again = device->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                      hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
    ASSERT_TRUE(again.ok()) << "round " << round << ": " << again.error().message;
  }
  EXPECT_EQ((*connection)->reconnects(), 3u * kRounds) << "one new session for each restart";
}

// The server forgets the session (as a restarted one has) and the call follows at once, before
// the client can have heard of it: the server's NOT_FOUND tells the client that nothing ran, and
// the call is made again in a new session.
TEST(LostSessionTest, ACallInASessionTheServerForgotIsMadeAgainInANewOne) {
  auto server = startServer("127.0.0.1:0");
  ASSERT_NE(server, nullptr);
  auto connection = Connection::connect(server->address());
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  const auto device = ProxyDevice::discover(*connection)->front();
  auto prepared = device->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                       hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  constexpr int kRounds = 20;
  for (int round = 0; round < kRounds; ++round) {
    server->service().sessions().drop((*connection)->sessionId());
    auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    ASSERT_TRUE(outcome.ok()) << "round " << round << ": " << outcome.error().message;
    EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
  }
  EXPECT_EQ((*connection)->reconnects(), uint64_t{kRounds});
}

// The same for every other call that starts work in a session: allocating a device buffer, a
// fenced execution, a burst execution (on the stream and on the shared queue) and an execution
// whose pools must first be registered. Each finds its session forgotten and is made again.
class LostSessionCallTest : public ::testing::TestWithParam<bool /*sharedQueueBursts*/> {};

TEST_P(LostSessionCallTest, EveryCallThatStartsWorkIsMadeAgainInANewSession) {
  auto server = startServer("unix-abstract:nnremote-lost-calls-" + testing::uniqueToken());
  ASSERT_NE(server, nullptr);
  ConnectionOptions options;
  options.useSharedMemoryBursts = GetParam();
  auto connection = Connection::connect(server->address(), options);
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  const auto device = ProxyDevice::discover(*connection)->front();
  auto prepared = device->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                       hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto burst = (*prepared)->configureExecutionBurst();
  ASSERT_TRUE(burst.ok()) << burst.error().message;
  auto forget = [&] { server->service().sessions().drop((*connection)->sessionId()); };
  auto request = [](hal::MemoryAllocator allocate) {
    return hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8}, allocate);
  };
  uint64_t expectedReconnects = 0;

  forget();
  auto buffer = device->allocate({}, {*prepared}, {}, {{0, 0, 1.0f}});
  ASSERT_TRUE(buffer.ok()) << "allocate: " << buffer.error().message;
  EXPECT_EQ((*connection)->reconnects(), ++expectedReconnects);

  forget();
  auto io = request(hal::MemoryAllocator(hal::createHeapMemory));
  auto fenced = (*prepared)->executeFenced(io->request, {}, hal::MeasureTiming::NO, std::nullopt, std::nullopt,
                                           std::nullopt);
  ASSERT_TRUE(fenced.ok()) << "executeFenced: " << fenced.error().message;
  EXPECT_EQ(fenced->first.wait(std::nullopt), hal::SyncFence::State::SIGNALED);
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
  EXPECT_EQ((*connection)->reconnects(), ++expectedReconnects);

  forget();
  io = request(hal::MemoryAllocator(hal::createHeapMemory));
  auto bursted = (*burst)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(bursted.ok()) << "burst execute: " << bursted.error().message;
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
  EXPECT_EQ((*connection)->reconnects(), ++expectedReconnects);

  // Shared memory is registered before the execution is sent; the registration meets the
  // forgotten session first.
  forget();
  io = request(hal::createSharedMemory);
  auto shared = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(shared.ok()) << "execute with shared memory: " << shared.error().message;
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
  EXPECT_EQ((*connection)->reconnects(), ++expectedReconnects);

  forget();
  io = request(hal::createSharedMemory);
  bursted = (*burst)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(bursted.ok()) << "burst execute with shared memory: " << bursted.error().message;
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
  EXPECT_EQ((*connection)->reconnects(), ++expectedReconnects);
}

INSTANTIATE_TEST_SUITE_P(StreamAndSharedQueueBursts, LostSessionCallTest, ::testing::Bool());

// What a failed call's gRPC status says about whether the server ran it. No connection at all:
// it did not. A connection found broken: as a rule not, but a supervised server's client
// (brokenConnectionMeansUnsent off) takes the call to have been in flight when its server died.
TEST(LostSessionTest, ABrokenConnectionMeansUnsentUnlessTheClientSaysOtherwise) {
  auto server = startServer("unix-abstract:nnremote-unsent-" + testing::uniqueToken());
  ASSERT_NE(server, nullptr);
  const auto neverRan = [&](bool brokenConnectionMeansUnsent, const std::string& words) {
    ConnectionOptions options;
    options.brokenConnectionMeansUnsent = brokenConnectionMeansUnsent;
    auto connection = Connection::connect(server->address(), options);
    EXPECT_TRUE(connection.ok()) << connection.error().message;
    if (!connection.ok()) return false;
    bool unsent = false;
    const hal::Error error = (*connection)->callFailed(grpc::Status(grpc::StatusCode::UNAVAILABLE, words),
                                                       (*connection)->currentSession().generation, &unsent);
    EXPECT_EQ(error.code, hal::ErrorStatus::DEAD_OBJECT) << words;
    return unsent;
  };
  for (const bool rule : {true, false}) {
    EXPECT_TRUE(neverRan(rule, "failed to connect to all addresses")) << rule;
    EXPECT_TRUE(neverRan(rule, "Connection refused")) << rule;
    EXPECT_FALSE(neverRan(rule, "Socket closed")) << rule;
    EXPECT_FALSE(neverRan(rule, "Connection reset by peer")) << rule;
  }
  EXPECT_TRUE(neverRan(true, "Broken pipe"));
  EXPECT_FALSE(neverRan(false, "Broken pipe"));
}

}  // namespace
}  // namespace nnremote::proxy
