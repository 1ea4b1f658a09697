// Who is calling: every RPC is made by an identity, and every session belongs to the identity
// that opened it (docs/security.md).
//
//   - With --tokens, a call must carry "authorization: Bearer TOKEN" for a listed token; its
//     IDENTITY is the caller's, whatever the transport.
//   - Otherwise, over mutual TLS, the client certificate's subject (e.g. "CN=alice").
//   - Otherwise, on a unix socket, "uid:N" from the peer's SO_PEERCRED.
//   - Otherwise (plain TCP, which needs --insecure) everyone is "anonymous".
#ifndef NNREMOTE_EMULATOR_CALLER_IDENTITY_H_
#define NNREMOTE_EMULATOR_CALLER_IDENTITY_H_

#include <grpcpp/support/status.h>
#include <sys/types.h>

#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "hal/result.h"

namespace grpc {
class ServerContextBase;
}  // namespace grpc

namespace nnremote::emulator {

// The identity of plain TCP callers, which prove nothing about themselves.
constexpr const char* kAnonymousIdentity = "anonymous";

// Bearer tokens and the identity each stands for.
struct TokenTable {
  std::map<std::string, std::string> identityOf;  // token -> identity
  bool empty() const { return identityOf.empty(); }
};

// Reads a tokens file: one "IDENTITY TOKEN" per line; blank lines and lines starting with '#'
// are skipped. A token shorter than 16 characters, or given twice, is refused.
hal::Result<TokenTable> loadTokenFile(const std::string& path);

// The uid behind each unix-socket connection, by the peer name gRPC gives its calls.
class UnixPeers {
 public:
  void connected(const std::string& peer, uid_t uid);
  // False if `peer` is not a unix connection this server accepted.
  bool uidOf(const std::string& peer, uid_t* uid) const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, uid_t> uids_;
};

class Authenticator {
 public:
  Authenticator(TokenTable tokens, const UnixPeers* unixPeers)
      : tokens_(std::move(tokens)), unixPeers_(unixPeers) {}

  // The caller's identity into *identity, or UNAUTHENTICATED naming what is missing or wrong.
  grpc::Status identify(const grpc::ServerContextBase& context, std::string* identity) const;
  // Whether the call came over one of this server's unix sockets, i.e. from this host.
  bool isUnixPeer(const grpc::ServerContextBase& context) const;

 private:
  const TokenTable tokens_;
  const UnixPeers* const unixPeers_;  // may be null: no unix listener
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_CALLER_IDENTITY_H_
