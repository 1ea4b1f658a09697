// A TCP port on loopback for a server a test starts as a child process, which cannot report the
// port it was given the way an in-process server started on port 0 does.
#ifndef NNREMOTE_TESTING_LOOPBACK_PORT_H_
#define NNREMOTE_TESTING_LOOPBACK_PORT_H_

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace nnremote::testing {

// A loopback port the kernel just gave out and took back; free unless someone races for it.
inline int freeLoopbackPort() {
  const int probe = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  const bool given = ::bind(probe, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
                     ::getsockname(probe, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  ::close(probe);
  return given ? ntohs(address.sin_port) : 0;
}

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTING_LOOPBACK_PORT_H_
