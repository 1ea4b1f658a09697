// Socket addresses for tests that start servers as child processes: a free TCP port on loopback
// for one (which cannot report the port it was given, as an in-process server started on port 0
// does), and the kernel's form of an address given as the servers take it.
#ifndef NNREMOTE_TESTING_SOCKET_ADDRESS_H_
#define NNREMOTE_TESTING_SOCKET_ADDRESS_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>

namespace nnremote::testing {

// A loopback port free now, below the kernel's ephemeral range: a port the kernel gives out
// (bind to port 0) is one it may give again, to any process's outgoing connection, before the
// child server binds it; on a busy machine a test's etcd member then failed to start. Two
// tests may still pick the same one; a caller that starts a server checks that it runs.
inline int freeLoopbackPort() {
  int low = 32768;  // the kernel's default start of the range
  if (std::FILE* range = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "r")) {
    if (std::fscanf(range, "%d", &low) != 1) low = 32768;
    std::fclose(range);
  }
  if (low <= 12000) low = 32768;
  // Not seeded from the pid: in Bazel's sandbox every test may have the same one, and then
  // every test picked the same ports.
  std::random_device entropy;
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int port = 10000 + static_cast<int>(entropy() % static_cast<unsigned>(low - 10000));
    const int probe = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    const bool free = ::bind(probe, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    ::close(probe);
    if (free) return port;
  }
  return 0;
}

struct SocketAddress {
  sockaddr_storage name{};
  socklen_t length = 0;

  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&name); }
};

// "unix:PATH" or "IPV4:PORT", as npu_emulator --listen takes them; nullopt for anything else.
inline std::optional<SocketAddress> socketAddress(const std::string& address) {
  SocketAddress parsed;
  if (address.rfind("unix:", 0) == 0) {
    auto* local = reinterpret_cast<sockaddr_un*>(&parsed.name);
    local->sun_family = AF_UNIX;
    std::strncpy(local->sun_path, address.c_str() + std::strlen("unix:"), sizeof(local->sun_path) - 1);
    parsed.length = sizeof(sockaddr_un);
    return parsed;
  }
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return std::nullopt;
  auto* internet = reinterpret_cast<sockaddr_in*>(&parsed.name);
  internet->sin_family = AF_INET;
  internet->sin_port = htons(static_cast<uint16_t>(std::atoi(address.c_str() + colon + 1)));
  if (::inet_pton(AF_INET, address.substr(0, colon).c_str(), &internet->sin_addr) != 1) return std::nullopt;
  parsed.length = sizeof(sockaddr_in);
  return parsed;
}

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTING_SOCKET_ADDRESS_H_
