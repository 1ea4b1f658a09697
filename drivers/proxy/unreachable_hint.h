// Why a client could not connect to an address, for the end of its error: gRPC says only that
// the channel did not connect. What is at a unix socket's path (nothing, a stale socket, one this
// user may not use), what answers at a TCP address (nothing, gRPC without TLS, a TLS server), and
// so what to fix.
#ifndef NNREMOTE_DRIVERS_PROXY_UNREACHABLE_HINT_H_
#define NNREMOTE_DRIVERS_PROXY_UNREACHABLE_HINT_H_

#include <chrono>
#include <string>

namespace nnremote::proxy {

struct Unreachability {
  // Waiting cannot help, so a client should not: nothing listens there, a file that is no socket is
  // there, this user may not use the socket, or one side speaks TLS and the other does not.
  bool settled = false;
  std::string hint;  // " (WHY: WHAT TO DO)", or "" if nothing more is known
};

// Looks at `address`, which a channel did not connect to. `overTls`: whether the client connected
// with TLS (--tls-ca). A TCP probe takes up to `probeTimeout` (a refusal comes back at once).
Unreachability diagnoseUnreachable(const std::string& address, bool overTls,
                                   std::chrono::milliseconds probeTimeout = std::chrono::seconds(1));

}  // namespace nnremote::proxy

#endif  // NNREMOTE_DRIVERS_PROXY_UNREACHABLE_HINT_H_
