// A client that holds connections open until the server has no descriptor left must not cost the
// server its listener. Before emulator/accept_guard.h, gRPC 1.51's TCP listener stopped for good
// at the first EMFILE (grpc/grpc#20418), so npu_emulator accepted no one again, and the unix
// listener spun a core while the connections it could not take waited in its backlog. Now what
// cannot be taken is closed at once, and once descriptors are free the server serves again.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "drivers/proxy/proxy_device.h"
#include "hal/memory.h"
#include "testing/add_model.h"
#include "testing/emulator_process.h"
#include "testing/loopback_port.h"

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

// A socket connecting to `address` (unix:PATH or 127.0.0.1:PORT) without waiting for the server
// to accept: -1 if the kernel refused it outright.
int connectWithoutWaiting(const std::string& address) {
  sockaddr_storage name{};
  socklen_t length = 0;
  if (address.rfind("unix:", 0) == 0) {
    auto* local = reinterpret_cast<sockaddr_un*>(&name);
    local->sun_family = AF_UNIX;
    std::strncpy(local->sun_path, address.c_str() + std::strlen("unix:"), sizeof(local->sun_path) - 1);
    length = sizeof(sockaddr_un);
  } else {
    auto* internet = reinterpret_cast<sockaddr_in*>(&name);
    internet->sin_family = AF_INET;
    internet->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    internet->sin_port = htons(static_cast<uint16_t>(std::atoi(address.c_str() + address.rfind(':') + 1)));
    length = sizeof(sockaddr_in);
  }
  const int connection = ::socket(name.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (::connect(connection, reinterpret_cast<const sockaddr*>(&name), length) == 0 || errno == EINPROGRESS) {
    return connection;
  }
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

class ConnectionFloodTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ConnectionFloodTest, WhatTheServerCannotTakeIsRefusedAndItServesOnceDescriptorsAreBack) {
  const bool tcp = GetParam() == "tcp";
  const std::string address = tcp ? "127.0.0.1:" + std::to_string(testing::freeLoopbackPort())
                                  : testing::EmulatorProcess::uniqueAddress("flood");
  const int metricsPort = testing::freeLoopbackPort();
  std::vector<std::string> flags = {"--metrics=127.0.0.1:" + std::to_string(metricsPort)};
  if (tcp) flags.push_back("--insecure");
  const std::string log = std::string(std::getenv("TEST_TMPDIR")) + "/flood-" + GetParam() + ".log";
  testing::EmulatorProcess server(address, flags, log);
  // Its metrics come up after its listener.
  Scrape before;
  for (int attempt = 0; attempt < 500 && before.page.empty(); ++attempt) {
    before = scrapeMetrics(metricsPort);
    if (before.page.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
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
  auto connection = proxy::Connection::connect(address);
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  auto devices = proxy::ProxyDevice::discover(*connection);
  ASSERT_TRUE(devices.ok()) << devices.error().message;
  auto prepared = devices->front()->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::LOW_POWER,
                                                 hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
  ASSERT_TRUE(io.ok());
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));

  const Scrape after = scrapeMetrics(metricsPort);
  EXPECT_GE(sample(after.page, "nnremote_connections_refused_total"), kRefused) << after.page;
}

INSTANTIATE_TEST_SUITE_P(Listeners, ConnectionFloodTest, ::testing::Values("unix", "tcp"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace nnremote::emulator
