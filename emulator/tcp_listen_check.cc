#include "emulator/tcp_listen_check.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace nnremote::emulator {
namespace {

// What a bind's errno means to someone starting a listener, or "" where strerror says enough.
std::string meaning(int error, const std::string& host, const std::string& port) {
  switch (error) {
    case EADDRINUSE:
      return "port " + port + " is in use";
    case EACCES:
      return "port " + port + " needs privileges this process lacks";
    case EADDRNOTAVAIL:
      return "'" + host + "' is not an address of this host";
    default:
      return "";
  }
}

}  // namespace

hal::Status checkCanListen(const wire::Address& where) {
  if (where.isUnix()) return {};
  const std::string host = where.resolverHost();
  const std::string port = std::to_string(where.port);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (const int error = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); error != 0) {
    return hal::invalidArgument() << "host '" << host << "' does not resolve ("
                                  << (error == EAI_SYSTEM ? std::strerror(errno) : ::gai_strerror(error)) << ")";
  }
  // A listener takes every address the host resolves to that it can bind, and fails only when
  // it can bind none (gRPC does): so does this check, saying why the first one could not.
  hal::Status firstRefusal;
  bool anyBound = false;
  for (const addrinfo* candidate = found; candidate != nullptr && !anyBound; candidate = candidate->ai_next) {
    const int probe = ::socket(candidate->ai_family, candidate->ai_socktype | SOCK_CLOEXEC, candidate->ai_protocol);
    if (probe < 0) continue;  // a family this host does not have: the listener skips it too
    // As the listener binds: a port that only connections in TIME_WAIT still hold is free.
    const int one = 1;
    ::setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(probe, candidate->ai_addr, candidate->ai_addrlen) == 0) {
      anyBound = true;
    } else if (firstRefusal.ok()) {
      const int error = errno;
      const std::string what = meaning(error, host, port);
      firstRefusal = hal::invalidArgument()
                     << (what.empty() ? "" : what + " (") << std::strerror(error) << (what.empty() ? "" : ")");
    }
    ::close(probe);
  }
  ::freeaddrinfo(found);
  return anyBound ? hal::Status() : firstRefusal;
}

}  // namespace nnremote::emulator
