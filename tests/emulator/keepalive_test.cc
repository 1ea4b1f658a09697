// A client's keepalive pings must not cost it its connection. Executions that ride a burst's
// shared memory leave the connection carrying nothing but pings, sometimes for minutes; gRPC's
// server defaults end such a connection with GOAWAY "too_many_pings" after two of them.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>

#include "emulator/emulator_server.h"
#include "testing/emulator_process.h"

namespace nnremote::emulator {
namespace {

TEST(KeepaliveTest, AClientPingingAnIdleConnectionKeepsIt) {
  const std::string address = testing::EmulatorProcess::uniqueAddress("keepalive");
  testing::EmulatorProcess server(address);
  // Pings as often as the server accepts, with no call and no data, as a burst's client is.
  const int pingEvery = EmulatorServer::kMinClientPingIntervalMs;
  grpc::ChannelArguments arguments;
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, pingEvery);
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  arguments.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  arguments.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  auto channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), arguments);
  ASSERT_TRUE(channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(30)));

  // Five pings: the server's defaults allow two, then end the connection (the channel leaves
  // READY). Any change of state ends the wait at once.
  const auto until = std::chrono::system_clock::now() + std::chrono::milliseconds(5 * pingEvery + 500);
  grpc_connectivity_state state = channel->GetState(false);
  while (state == GRPC_CHANNEL_READY && channel->WaitForStateChange(state, until)) state = channel->GetState(false);
  EXPECT_EQ(state, GRPC_CHANNEL_READY) << "the server ended a connection that only pinged (state " << state << ")";
}

}  // namespace
}  // namespace nnremote::emulator
