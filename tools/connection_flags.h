// The flags every command that reaches a server takes: where it is (--target) and how to prove
// who we are to it (TLS, mutual TLS, a bearer token; docs/security.md).
#ifndef NNREMOTE_TOOLS_CONNECTION_FLAGS_H_
#define NNREMOTE_TOOLS_CONNECTION_FLAGS_H_

#include <set>
#include <string>

#include "hal/result.h"
#include "drivers/proxy/connection.h"

namespace nnremote::tools {

// `commandFlags` plus target, tls-ca, tls-cert, tls-key, tls-server-name, token-file,
// no-reconnect and wait.
std::set<std::string> withConnectionFlags(std::set<std::string> commandFlags);

// Connection options from those flags: PEM and token files are read here, so a missing file is
// reported before any connection is tried.
hal::Result<proxy::ConnectionOptions> connectionOptionsFromFlags();

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_CONNECTION_FLAGS_H_
