// What answers at a TCP address, for a client whose gRPC channel did not connect there: gRPC says
// only that it could not. The commonest causes are a server that is not running and one that
// speaks TLS when the client does not (or the reverse), and each wants a different fix.
#ifndef NNREMOTE_WIRE_TCP_PEER_H_
#define NNREMOTE_WIRE_TCP_PEER_H_

#include <chrono>
#include <string>

#include "wire/address.h"

namespace nnremote::wire {

enum class TcpPeerState {
  kDoesNotResolve,  // the host has no address
  kRefused,         // nothing listens on the port
  kNoAnswer,        // the connection was not accepted in time (a firewall, another host)
  kPlaintextGrpc,   // it answered HTTP/2 without TLS, as an npu_emulator with --insecure does
  kClosedOnUs,      // it closed a plaintext HTTP/2 connection, or answered it with a TLS record,
                    // as a TLS server does
  kSilent,          // it accepted the connection and said nothing in time
  kOther,           // it answered something else
};

struct TcpPeer {
  TcpPeerState state = TcpPeerState::kOther;
  std::string detail;  // the resolver's or the kernel's words, where they say more
  int resolverError = 0;  // kDoesNotResolve: getaddrinfo's EAI_* (0 if it did not answer in time)
};

// Connects to `address` (kTcp) and sends an HTTP/2 client preface and an empty SETTINGS frame,
// as a plaintext gRPC client begins, then reads what comes back; all within `timeout`.
TcpPeer probeTcpPeer(const Address& address, std::chrono::milliseconds timeout);

}  // namespace nnremote::wire

#endif  // NNREMOTE_WIRE_TCP_PEER_H_
