#include "tools/connection_flags.h"

#include "tools/nnremote_flags.h"

namespace nnremote::tools {

std::set<std::string> withConnectionFlags(std::set<std::string> commandFlags) {
  commandFlags.insert({"target", "tls-ca", "tls-cert", "tls-key", "tls-server-name", "token-file", "no-reconnect", "wait"});
  return commandFlags;
}

hal::Result<proxy::ConnectionOptions> connectionOptionsFromFlags() {
  proxy::ConnectionOptions options;
  options.reconnect = !absl::GetFlag(FLAGS_no_reconnect);
  const absl::Duration wait = absl::GetFlag(FLAGS_wait);
  if (wait < absl::ZeroDuration()) return hal::invalidArgument() << "--wait must not be negative";
  options.poolWait = absl::ToChronoMilliseconds(wait);
  NN_ASSIGN_OR_RETURN(options.security,
                      proxy::readChannelSecurity({absl::GetFlag(FLAGS_tls_ca), absl::GetFlag(FLAGS_tls_cert),
                                                  absl::GetFlag(FLAGS_tls_key), absl::GetFlag(FLAGS_tls_server_name),
                                                  absl::GetFlag(FLAGS_token_file)},
                                                 "--"));
  return options;
}

}  // namespace nnremote::tools
