// Why a client could not connect to an address, for the end of its error: gRPC says only that
// the channel did not connect. What is at a unix socket's path (nothing, a stale socket, one this
// user may not use), what answers at a TCP address (nothing, gRPC without TLS, a TLS server), and
// so what to fix.
#ifndef NNREMOTE_DRIVERS_PROXY_UNREACHABLE_HINT_H_
#define NNREMOTE_DRIVERS_PROXY_UNREACHABLE_HINT_H_

#include <string>

namespace nnremote::proxy {

// " (WHY: WHAT TO DO)" for `address`, or "" if nothing more is known. `overTls`: whether the client
// connected with TLS (--tls-ca). Looks at the address (a TCP probe takes up to a second).
std::string whyUnreachable(const std::string& address, bool overTls);

}  // namespace nnremote::proxy

#endif  // NNREMOTE_DRIVERS_PROXY_UNREACHABLE_HINT_H_
