#include "drivers/proxy/unreachable_hint.h"

#include <grp.h>
#include <netdb.h>
#include <pwd.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "wire/address.h"
#include "wire/tcp_peer.h"
#include "wire/unix_socket_path.h"

namespace nnremote::proxy {
namespace {

// A socket this process may not connect to: whose it is and its mode, since the fix is the
// server's (--socket-group) or the user's groups.
std::string unixAccessHint(const std::string& path, int error) {
  if (error == 0) return "";
  std::string hint = " (cannot connect to " + path + ": " + std::strerror(error);
  struct stat status {};
  if ((error == EACCES || error == EPERM) && ::stat(path.c_str(), &status) == 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(status.st_mode & 07777));
    const passwd* owner = ::getpwuid(status.st_uid);
    const group* group = ::getgrgid(status.st_gid);
    hint += "; it belongs to " + (owner != nullptr ? std::string(owner->pw_name) : std::to_string(status.st_uid)) +
            ":" + (group != nullptr ? std::string(group->gr_name) : std::to_string(status.st_gid)) + " with mode " +
            mode + ": npu_emulator --socket-group=GROUP lets a group's members in";
  }
  return hint + ")";
}

// For a unix socket address, what is at its path, to say why nothing answered there.
Unreachability unixSocketDiagnosis(const std::string& address) {
  const auto where = wire::parseAddress(address, wire::AddressUse::kConnect);
  if (!where.ok() || where->kind != wire::Address::Kind::kUnixPath) return {};
  const std::string& path = where->name;
  const wire::UnixSocketPath probe = wire::probeUnixSocketPath(path);
  switch (probe.state) {
    case wire::UnixSocketPathState::kMissing:
      return {true, " (" + path + " does not exist: is npu_emulator running?)"};
    case wire::UnixSocketPathState::kNotASocket:
      return {true, " (" + path + " is not a socket)"};
    case wire::UnixSocketPathState::kStale:
      return {true, " (nothing listens on " + path + ": a stale socket, as a killed server leaves)"};
    case wire::UnixSocketPathState::kListening:
      return {false, " (something listens on " + path + " but did not answer as an npu_emulator)"};
    case wire::UnixSocketPathState::kUnknown:
      return {probe.error == EACCES || probe.error == EPERM, unixAccessHint(path, probe.error)};
  }
  return {};
}

// For a TCP address, what answers there, to say why the channel did not connect: not running,
// or TLS on one side only (the commonest mistakes in setting up a farm), or a bad certificate.
// A name the resolver does not know is settled; one it could not look up now is not.
Unreachability tcpDiagnosis(const std::string& address, bool overTls, std::chrono::milliseconds probeTimeout) {
  const auto where = wire::parseAddress(address, wire::AddressUse::kConnect);
  if (!where.ok() || where->kind != wire::Address::Kind::kTcp) return {};
  const wire::TcpPeer peer = wire::probeTcpPeer(*where, probeTimeout);
  const std::string detail = peer.detail.empty() ? "" : ": " + peer.detail;
  switch (peer.state) {
    case wire::TcpPeerState::kDoesNotResolve:
      return {peer.resolverError == EAI_NONAME, " (host '" + where->name + "' does not resolve" + detail + ")"};
    case wire::TcpPeerState::kRefused:
      return {true, " (connection refused: nothing listens on port " + std::to_string(where->port) +
                        "; is npu_emulator running there?)"};
    case wire::TcpPeerState::kNoAnswer:
      return {false, " (no connection was accepted" + detail + ": a firewall, or the wrong host?)"};
    case wire::TcpPeerState::kPlaintextGrpc:
      if (overTls) {
        return {true, " (it speaks gRPC without TLS, as npu_emulator --insecure does: connect without --tls-ca, "
                      "or start it with --tls-cert and --tls-key)"};
      }
      return {false, " (it answers as a gRPC server, but not in time)"};
    case wire::TcpPeerState::kClosedOnUs:
      return {true, overTls ? " (the TLS handshake failed: is --tls-ca the CA that signed the server's "
                              "certificate, does the certificate name the host (else --tls-server-name), and "
                              "does the server want a client certificate (--tls-cert, --tls-key)?)"
                            : " (it does not speak gRPC without TLS: if it is an npu_emulator with --tls-cert, "
                              "connect with --tls-ca=PEM, NNREMOTE_TLS_CA for libneuralnetworks)"};
    case wire::TcpPeerState::kSilent:
      return {false, " (it accepted a connection but did not answer: a busy or stopped server?)"};
    case wire::TcpPeerState::kOther:
      return {true, " (something listens there, but not an npu_emulator)"};
  }
  return {};
}

}  // namespace

Unreachability diagnoseUnreachable(const std::string& address, bool overTls, std::chrono::milliseconds probeTimeout) {
  return wire::isUnixAddress(address) ? unixSocketDiagnosis(address) : tcpDiagnosis(address, overTls, probeTimeout);
}

}  // namespace nnremote::proxy
