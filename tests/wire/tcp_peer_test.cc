// wire/tcp_peer.h: what answers at a TCP address, told apart by real loopback listeners that
// refuse, keep silent, close, answer as an HTTP/2 server or answer something else. (Real
// npu_emulators, with and without TLS, are probed through the client in security_test.)
#include "wire/tcp_peer.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

namespace nnremote::wire {
namespace {

constexpr std::chrono::milliseconds kTimeout{2000};

// A listener on 127.0.0.1 whose one accepted connection gets `reply` (and then is closed, if
// `close`); with `reply` empty and not `close`, the connection is held open, silent.
class Listener {
 public:
  Listener(std::string reply, bool close) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(::listen(fd_, 4), 0);
    socklen_t length = sizeof address;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this, reply = std::move(reply), close] {
      const int connection = ::accept(fd_, nullptr, nullptr);
      if (connection < 0) return;
      char preface[64];
      (void)::recv(connection, preface, sizeof preface, 0);
      if (!reply.empty()) (void)::send(connection, reply.data(), reply.size(), MSG_NOSIGNAL);
      if (close) {
        ::close(connection);
        return;
      }
      char rest;
      (void)::recv(connection, &rest, 1, 0);  // until the probe closes its end
      ::close(connection);
    });
  }
  ~Listener() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  Address address() const { return {Address::Kind::kTcp, "127.0.0.1", port_}; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
};

TEST(TcpPeerTest, AnHttp2ServersSettingsFrameIsPlaintextGrpc) {
  Listener server(std::string("\0\0\x06\x04\0\0\0\0\0\0\x03\0\0\0\x64", 15), /*close=*/false);
  EXPECT_EQ(probeTcpPeer(server.address(), kTimeout).state, TcpPeerState::kPlaintextGrpc);
}

TEST(TcpPeerTest, AConnectionClosedWithoutAWordOrWithATlsRecordIsATlsServersWay) {
  Listener closes("", /*close=*/true);
  EXPECT_EQ(probeTcpPeer(closes.address(), kTimeout).state, TcpPeerState::kClosedOnUs);
  Listener alerts(std::string("\x15\x03\x01\0\x02\x02\x46", 7), /*close=*/true);
  EXPECT_EQ(probeTcpPeer(alerts.address(), kTimeout).state, TcpPeerState::kClosedOnUs);
}

TEST(TcpPeerTest, AListenerThatSaysNothingIsSilentAndOneThatSaysSomethingElseIsOther) {
  Listener silent("", /*close=*/false);
  EXPECT_EQ(probeTcpPeer(silent.address(), std::chrono::milliseconds(300)).state, TcpPeerState::kSilent);
  Listener web("HTTP/1.1 400 Bad Request\r\n\r\n", /*close=*/true);
  EXPECT_EQ(probeTcpPeer(web.address(), kTimeout).state, TcpPeerState::kOther);
}

TEST(TcpPeerTest, APortNothingListensOnIsRefused) {
  Address closed;
  {
    Listener gone("", /*close=*/true);
    closed = gone.address();
    // Its one connection, so that the listener's thread ends.
    EXPECT_EQ(probeTcpPeer(closed, kTimeout).state, TcpPeerState::kClosedOnUs);
  }
  const TcpPeer peer = probeTcpPeer(closed, kTimeout);
  EXPECT_EQ(peer.state, TcpPeerState::kRefused);
  EXPECT_EQ(peer.detail, "Connection refused");
}

TEST(TcpPeerTest, AHostThatDoesNotResolveIsSaidSo) {
  // .invalid never resolves (RFC 6761), with or without a network.
  const TcpPeer peer = probeTcpPeer({Address::Kind::kTcp, "no-such-host.invalid", 50051}, kTimeout);
  EXPECT_EQ(peer.state, TcpPeerState::kDoesNotResolve);
  EXPECT_FALSE(peer.detail.empty());
  // The resolver answered (EAI_NONAME with a network, another EAI_* without), within the timeout.
  EXPECT_NE(peer.resolverError, 0) << peer.detail;
}

}  // namespace
}  // namespace nnremote::wire
