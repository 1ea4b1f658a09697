// A program whose NNREMOTE_TARGETS name servers that are not there starts without stalling: a
// target where nothing listens (a refused port, a missing socket) gives no device at once, and
// targets that accept a connection but never answer are waited for together, one connection
// timeout in all, not one each. The devices of the target that answers are listed all the same.
#include <android/NeuralNetworks.h>
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "emulator/emulator_server.h"
#include "emulator/simulated_npus.h"
#include "testing/unique_names.h"
#include "tests/common/server_options.h"
#include "tests/runtime/c_api_helpers.h"

namespace nnremote::testing {
namespace {

using ::testing::ElementsAre;

// A TCP socket on a free loopback port: listening (the kernel accepts connections for it, and
// nobody answers them) or only bound (connections to it are refused). Returns its port.
int loopbackSocket(bool listening, std::vector<int>* keep) {
  const int socket = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(socket, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  if (listening) {
    EXPECT_EQ(::listen(socket, 16), 0);
  }
  socklen_t length = sizeof address;
  EXPECT_EQ(::getsockname(socket, reinterpret_cast<sockaddr*>(&address), &length), 0);
  keep->push_back(socket);
  return ntohs(address.sin_port);
}

class Targets : public ::testing::Environment {
 public:
  void SetUp() override {
    auto server = emulator::EmulatorServer::start({emulator::createSimulatedNpu(sim::edgeNpuConfig())},
                                                  "unix:/tmp/nnremote-unreachable-" + uniqueToken() + ".sock",
                                                  plainLoopbackOptions());
    ASSERT_TRUE(server.ok()) << server.error().message;
    server_ = std::move(server).value();
    std::string targets;
    for (int i = 0; i < 3; ++i) targets += "127.0.0.1:" + std::to_string(loopbackSocket(true, &sockets_)) + ",";
    targets += "127.0.0.1:" + std::to_string(loopbackSocket(false, &sockets_)) + ",";
    targets += "unix:/tmp/nnremote-nobody-" + uniqueToken() + ".sock,";
    targets += server_->address();
    setenv("NNREMOTE_TARGETS", targets.c_str(), 1);
  }
  void TearDown() override {
    for (int socket : sockets_) ::close(socket);
    server_.reset();
  }

 private:
  std::unique_ptr<emulator::EmulatorServer> server_;
  std::vector<int> sockets_;
};

[[maybe_unused]] Targets* const kTargets =
    static_cast<Targets*>(::testing::AddGlobalTestEnvironment(new Targets()));

TEST(CApiUnreachableTargetsTest, SilentTargetsAreWaitedForTogetherAndTheOneThatAnswersIsListed) {
  const auto started = std::chrono::steady_clock::now();
  uint32_t count = 0;
  ASSERT_EQ(ANeuralNetworks_getDeviceCount(&count), kOk);
  const auto took = std::chrono::steady_clock::now() - started;
  std::vector<std::string> names;
  for (const ANeuralNetworksDevice* device : allDevices()) names.push_back(nameOf(device));
  EXPECT_THAT(names, ElementsAre("nnremote-edge16", "nnapi-reference"));
  // Each silent target costs the 5 s connection timeout and a 1 s look at what is there; one
  // after another, the three took 18 s.
  EXPECT_LT(took, std::chrono::seconds(12)) << "the silent targets were waited for one after another";
}

}  // namespace
}  // namespace nnremote::testing
