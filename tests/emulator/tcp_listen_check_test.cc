// emulator/tcp_listen_check.h: why a TCP address cannot be listened on, said before gRPC or the
// metrics server try (they would say only that they could not). The server's use of it:
// security_test's ListenAddressTest.
#include "emulator/tcp_listen_check.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <utility>

#include "wire/address.h"

namespace nnremote::emulator {
namespace {

using ::testing::HasSubstr;

wire::Address tcp(const std::string& text) { return *wire::parseAddress(text, wire::AddressUse::kListen); }

// A socket listening on a free loopback port, and the port.
std::pair<int, uint16_t> listeningSocket() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in name{};
  name.sin_family = AF_INET;
  name.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&name), sizeof name), 0);
  EXPECT_EQ(::listen(fd, 1), 0);
  socklen_t length = sizeof name;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&name), &length);
  return {fd, ntohs(name.sin_port)};
}

TEST(TcpListenCheckTest, AFreePortAndUnixSocketsPass) {
  EXPECT_TRUE(checkCanListen(tcp("127.0.0.1:0")).ok());
  EXPECT_TRUE(checkCanListen(tcp("unix:/tmp/anything.sock")).ok()) << "not this check's to judge";
}

TEST(TcpListenCheckTest, APortInUseIsSaid) {
  const auto [fd, port] = listeningSocket();
  const hal::Status taken = checkCanListen(tcp("127.0.0.1:" + std::to_string(port)));
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.error().message, "port " + std::to_string(port) + " is in use (Address already in use)");
  ::close(fd);
}

TEST(TcpListenCheckTest, AnAddressOfAnotherHostIsSaid) {
  // 192.0.2.1 is TEST-NET-1 (RFC 5737): documentation only, never an interface's.
  const hal::Status elsewhere = checkCanListen(tcp("192.0.2.1:50051"));
  ASSERT_FALSE(elsewhere.ok());
  EXPECT_THAT(elsewhere.error().message, HasSubstr("'192.0.2.1' is not an address of this host"));
}

TEST(TcpListenCheckTest, APrivilegedPortIsSaidToAProcessWithoutPrivileges) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may bind port 1";
  const hal::Status privileged = checkCanListen(tcp("127.0.0.1:1"));
  if (privileged.ok()) GTEST_SKIP() << "this host lets everyone bind low ports (net.ipv4.ip_unprivileged_port_start)";
  EXPECT_THAT(privileged.error().message, HasSubstr("port 1 needs privileges this process lacks"));
}

}  // namespace
}  // namespace nnremote::emulator
