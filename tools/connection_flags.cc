#include "tools/connection_flags.h"

namespace nnremote::tools {

std::set<std::string> withConnectionFlags(std::set<std::string> commandFlags) {
  commandFlags.insert({"target", "tls-ca", "tls-cert", "tls-key", "tls-server-name", "token-file", "no-reconnect"});
  return commandFlags;
}

hal::Result<proxy::ConnectionOptions> connectionOptionsFrom(const Flags& flags) {
  proxy::ConnectionOptions options;
  options.reconnect = !flags.has("no-reconnect");
  NN_ASSIGN_OR_RETURN(options.security,
                      proxy::readChannelSecurity({flags.get("tls-ca"), flags.get("tls-cert"), flags.get("tls-key"),
                                                  flags.get("tls-server-name"), flags.get("token-file")},
                                                 "--"));
  return options;
}

}  // namespace nnremote::tools
