// How the proxy proves itself to an npu_emulator and checks the server (docs/security.md):
// TLS or mutual TLS on TCP, and a bearer token on every call whatever the transport.
#ifndef NNREMOTE_DRIVERS_PROXY_CHANNEL_SECURITY_H_
#define NNREMOTE_DRIVERS_PROXY_CHANNEL_SECURITY_H_

#include <memory>
#include <string>

#include "hal/result.h"

namespace grpc {
class Channel;
class ChannelArguments;
}  // namespace grpc

namespace nnremote::proxy {

// PEM contents, not paths; empty fields are unused.
struct ChannelSecurity {
  std::string tlsCaPem;                // verify the server's certificate with this CA: TLS
  std::string tlsCertPem, tlsKeyPem;   // this client's certificate and key, for mutual TLS
  std::string tlsServerName;           // the name the server certificate must carry, if not the address's host
  std::string token;                   // sent as "authorization: Bearer TOKEN" on every call
};

// A channel to `address` with `arguments`, secured as `security` says. TLS on a unix socket is
// refused: the socket's file mode and the peer's uid protect it.
hal::Result<std::shared_ptr<grpc::Channel>> createSecureChannel(const std::string& address,
                                                               const ChannelSecurity& security,
                                                               grpc::ChannelArguments arguments);

// Reads a whole file, e.g. a PEM or a token; errors name `flag`, the option it came from.
hal::Result<std::string> readSecret(const std::string& path, const std::string& flag);

// Where a ChannelSecurity comes from on a command line: file paths (and a server name); empty
// ones are unused.
struct ChannelSecurityFiles {
  std::string tlsCa, tlsCert, tlsKey, tlsServerName, tokenFile;
};

// How errors name the option a file came from, as the user gave it.
enum class OptionNames {
  kFlags,        // PREFIX + "tls-ca": "--" for nnremote's --tls-ca, "--remote-" for npu_emulator's
  kEnvironment,  // PREFIX + "TLS_CA": "NNREMOTE_" for libneuralnetworks' NNREMOTE_TLS_CA
};

// Reads the files; errors name the option (`names`, after `prefix`). A token file's trailing
// newline is not part of the token; an empty token is an error.
hal::Result<ChannelSecurity> readChannelSecurity(const ChannelSecurityFiles& files, const std::string& prefix,
                                                 OptionNames names = OptionNames::kFlags);

}  // namespace nnremote::proxy

#endif  // NNREMOTE_DRIVERS_PROXY_CHANNEL_SECURITY_H_
