// Connections a client opens and does not use must not cost the server its listeners or, for
// long, its descriptors: connections are not bounded in number. Before emulator/accept_guard.h,
// gRPC 1.51's TCP listener stopped for good at the first EMFILE (grpc/grpc#20418), so
// npu_emulator accepted no one again, and the unix listener spun a core while the connections it
// could not take waited in its backlog. Now what cannot be taken is closed at once, and once
// descriptors are free the server serves again; connections left silent, or without a call, are
// closed after the server config's connection_handshake_ms and connection_idle_ms.
#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "drivers/proxy/channel_security.h"
#include "drivers/proxy/proxy_device.h"
#include "hal/memory.h"
#include "testing/add_model.h"
#include "testing/emulator_process.h"
#include "testing/socket_address.h"
#include "tests/common/test_pki.h"
#include "wire/nnremote.grpc.pb.h"

namespace nnremote::emulator {
namespace {

using ::testing::HasSubstr;

// Connections the flood opens, and descriptors the server is left beyond those it has at start.
// It takes about that many connections, give or take a few it opened or closed meanwhile; at
// least kRefused of the others are refused.
constexpr size_t kFlood = 200;
constexpr rlim_t kSpareDescriptors = 32;
constexpr size_t kRefused = kFlood - 2 * kSpareDescriptors;

int openDescriptors(pid_t pid) {
  std::error_code error;
  const std::filesystem::directory_iterator entries("/proc/" + std::to_string(pid) + "/fd", error);
  return error ? -1 : static_cast<int>(std::distance(entries, std::filesystem::directory_iterator()));
}

// A socket connecting to `address` without waiting for the server to accept: -1 if the kernel
// refused it outright.
int connectWithoutWaiting(const std::string& address) {
  const std::optional<testing::SocketAddress> name = testing::socketAddress(address);
  if (!name) return -1;
  const int connection = ::socket(name->name.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (::connect(connection, name->get(), name->length) == 0 || errno == EINPROGRESS) return connection;
  ::close(connection);
  return -1;
}

// How many of `connections` the server has closed, once at least `atLeast` have (bounded). A
// connection it took and keeps may have sent gRPC's settings: those bytes are read and dropped.
size_t closedOnceAtLeast(const std::vector<int>& connections, size_t atLeast) {
  std::vector<bool> closed(connections.size(), false);
  size_t count = 0;
  const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (count < atLeast && std::chrono::steady_clock::now() < giveUp) {
    for (size_t i = 0; i < connections.size(); ++i) {
      char bytes[4096];
      const ssize_t read = closed[i] ? 1 : ::recv(connections[i], bytes, sizeof(bytes), MSG_DONTWAIT);
      if (read == 0 || (read < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOTCONN)) {
        closed[i] = true;
        ++count;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return count;
}

// GET /metrics from 127.0.0.1:`port`. A server that has no descriptor for it closes the
// connection unanswered (""); one whose listener left it pending lets the wait run out.
struct Scrape {
  bool timedOut = false;
  std::string page;
};
Scrape scrapeMetrics(int port) {
  const int connection = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const timeval wait{20, 0};
  ::setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
  sockaddr_in name{};
  name.sin_family = AF_INET;
  name.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  name.sin_port = htons(static_cast<uint16_t>(port));
  Scrape scrape;
  if (::connect(connection, reinterpret_cast<const sockaddr*>(&name), sizeof(name)) == 0) {
    const std::string get = "GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n";
    if (::send(connection, get.data(), get.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(get.size())) {
      char bytes[4096];
      ssize_t read = 0;
      while ((read = ::recv(connection, bytes, sizeof(bytes), 0)) > 0) scrape.page.append(bytes, read);
      scrape.timedOut = read < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
  }
  ::close(connection);
  return scrape;
}

// The counter's value on a metrics page, -1 if it is not there.
double sample(const std::string& page, const std::string& name) {
  const size_t at = page.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::atof(page.c_str() + at + name.size() + 2);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A connection to `address` that prepares 1+10, 2+20 and computes it.
struct AddingClient {
  AddingClient(const std::string& address, const proxy::ChannelSecurity& security) {
    proxy::ConnectionOptions options;
    options.security = security;
    auto connected = proxy::Connection::connect(address, options);
    if (!connected.ok()) {
      ADD_FAILURE() << connected.error().message;
      return;
    }
    connection = *connected;
    auto devices = proxy::ProxyDevice::discover(connection);
    if (!devices.ok()) {
      ADD_FAILURE() << devices.error().message;
      return;
    }
    auto model = devices->front()->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::LOW_POWER,
                                                hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
    if (!model.ok()) {
      ADD_FAILURE() << model.error().message;
      return;
    }
    prepared = *model;
  }

  void computes() {
    ASSERT_NE(prepared, nullptr);
    auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
    ASSERT_TRUE(io.ok());
    auto outcome = prepared->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
  }

  std::shared_ptr<proxy::Connection> connection;
  std::shared_ptr<const hal::IPreparedModel> prepared;
};

// Each test runs on a unix socket, plain TCP and TLS.
class ConnectionFloodTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() != "tls") return;
    auto pki = testing::makeTestPki(std::string(std::getenv("TEST_TMPDIR")) + "/pki");
    ASSERT_TRUE(pki.ok()) << pki.error().message;
    pki_ = *pki;
  }

  std::string address() const {
    return GetParam() == "unix" ? testing::EmulatorProcess::uniqueAddress("flood")
                                : "127.0.0.1:" + std::to_string(testing::freeLoopbackPort());
  }
  // npu_emulator's flags for a listener of this test's kind, with `serverConfig` (a ServerConfig
  // textproto) if given.
  std::vector<std::string> flags(const std::string& serverConfig = "") const {
    std::vector<std::string> flags;
    if (GetParam() == "tcp") flags.push_back("--insecure");
    if (GetParam() == "tls") {
      flags.push_back("--tls-cert=" + pki_.directory + "/localhost.pem");
      flags.push_back("--tls-key=" + pki_.directory + "/localhost.key");
    }
    if (!serverConfig.empty()) {
      const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/server-" + GetParam() + ".textproto";
      std::ofstream(path) << serverConfig;
      flags.push_back("--server-config=" + path);
    }
    return flags;
  }
  proxy::ChannelSecurity security() const {
    proxy::ChannelSecurity security;
    security.tlsCaPem = pki_.caPem;  // empty but for TLS
    return security;
  }
  AddingClient client(const std::string& address) const { return AddingClient(address, security()); }

 private:
  testing::TestPki pki_;
};

TEST_P(ConnectionFloodTest, WhatTheServerCannotTakeIsRefusedAndItServesOnceDescriptorsAreBack) {
  const std::string address = this->address();
  const int metricsPort = testing::freeLoopbackPort();
  std::vector<std::string> flags = this->flags();
  flags.push_back("--metrics=127.0.0.1:" + std::to_string(metricsPort));
  const std::string log = std::string(std::getenv("TEST_TMPDIR")) + "/flood-" + GetParam() + ".log";
  testing::EmulatorProcess server(address, flags, log);
  // Its metrics come up after its listener, and its families after the endpoint (which answers
  // 404 until then).
  Scrape before;
  auto ready = [&] { return sample(before.page, "nnremote_connections_refused_total") >= 0; };
  for (int attempt = 0; attempt < 500 && !ready(); ++attempt) {
    before = scrapeMetrics(metricsPort);
    if (!ready()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(sample(before.page, "nnremote_connections_refused_total"), 0) << before.page;

  // Lowered from outside once it runs: npu_emulator raises its soft limit to the hard one.
  const int atStart = openDescriptors(server.pid());
  ASSERT_GT(atStart, 0);
  const rlimit lowered{atStart + kSpareDescriptors, atStart + kSpareDescriptors};
  ASSERT_EQ(::prlimit(server.pid(), RLIMIT_NOFILE, &lowered, nullptr), 0) << std::strerror(errno);

  std::vector<int> flooding;
  for (size_t i = 0; i < kFlood; ++i) {
    const int connection = connectWithoutWaiting(address);
    if (connection >= 0) flooding.push_back(connection);
  }
  ASSERT_EQ(flooding.size(), kFlood) << "the server's backlog holds them all";
  // Those it has no descriptor for are closed at once rather than left in its backlog for good.
  EXPECT_GE(closedOnceAtLeast(flooding, kRefused), kRefused);
  // The metrics listener (civetweb's) is guarded too: answered or closed, never left pending.
  EXPECT_FALSE(scrapeMetrics(metricsPort).timedOut);
  EXPECT_THAT(readFile(log),
              HasSubstr("npu_emulator: out of file descriptors (RLIMIT_NOFILE " + std::to_string(lowered.rlim_cur) +
                        "): new connections are refused until some close"));

  // The flood ends; once the server has closed its side, a client connects and computes.
  for (const int connection : flooding) ::close(connection);
  const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (openDescriptors(server.pid()) > atStart + 2 && std::chrono::steady_clock::now() < giveUp) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  client(address).computes();

  const Scrape after = scrapeMetrics(metricsPort);
  EXPECT_GE(sample(after.page, "nnremote_connections_refused_total"), kRefused) << after.page;
}

// A client that opens connections and never speaks: each is closed once connection_handshake_ms
// has passed (gRPC's handshake timeout on TCP; on a unix socket, the listener's own), while a
// client that speaks is served at once and keeps its connection.
TEST_P(ConnectionFloodTest, ConnectionsLeftSilentAreClosedAfterTheHandshakeTimeout) {
  const std::string address = this->address();
  testing::EmulatorProcess server(address, flags("connection_handshake_ms: 300"));
  std::vector<int> silent;
  for (int i = 0; i < 20; ++i) silent.push_back(connectWithoutWaiting(address));
  ASSERT_THAT(silent, ::testing::Not(::testing::Contains(-1)));
  AddingClient client = this->client(address);
  client.computes();
  EXPECT_EQ(closedOnceAtLeast(silent, silent.size()), silent.size());
  for (const int connection : silent) ::close(connection);
  const uint64_t session = client.connection->sessionId();
  client.computes();
  EXPECT_EQ(client.connection->sessionId(), session) << "the client that spoke kept its connection";
}

// A connection with no call in progress is closed after connection_idle_ms; one whose session's
// watch is a call in progress stays, its session with it.
TEST_P(ConnectionFloodTest, ConnectionsWithoutACallAreClosedAfterTheIdleTimeout) {
  const std::string address = this->address();
  testing::EmulatorProcess server(address, flags("connection_idle_ms: 300"));
  AddingClient client = this->client(address);
  client.computes();
  const uint64_t session = client.connection->sessionId(), generation = client.connection->generation();

  // A channel of its own (not one of gRPC's shared subchannels), used for one call and left.
  grpc::ChannelArguments arguments;
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  auto secured = proxy::createSecureChannel(address, security(), arguments);
  ASSERT_TRUE(secured.ok()) << secured.error().message;
  const std::shared_ptr<grpc::Channel> channel = *secured;
  {
    grpc::ClientContext context;
    wire::ListDevicesRequest request;
    wire::ListDevicesResponse devices;
    ASSERT_TRUE(wire::Accelerator::NewStub(channel)->ListDevices(&context, request, &devices).ok());
  }
  ASSERT_EQ(channel->GetState(false), GRPC_CHANNEL_READY);
  const auto giveUp = std::chrono::system_clock::now() + std::chrono::seconds(60);
  while (channel->GetState(false) == GRPC_CHANNEL_READY && channel->WaitForStateChange(GRPC_CHANNEL_READY, giveUp)) {
  }
  EXPECT_NE(channel->GetState(false), GRPC_CHANNEL_READY) << "the server closed the idle connection";

  client.computes();
  EXPECT_EQ(client.connection->sessionId(), session);
  EXPECT_EQ(client.connection->generation(), generation) << "the session's connection was never lost";
}

INSTANTIATE_TEST_SUITE_P(Listeners, ConnectionFloodTest, ::testing::Values("unix", "tcp", "tls"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace nnremote::emulator
