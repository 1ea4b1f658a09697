#include "tools/connection_flags.h"

namespace nnremote::tools {

std::set<std::string> withConnectionFlags(std::set<std::string> commandFlags) {
  commandFlags.insert({"target", "tls-ca", "tls-cert", "tls-key", "tls-server-name", "token-file", "no-reconnect"});
  return commandFlags;
}

hal::Result<proxy::ConnectionOptions> connectionOptionsFrom(const Flags& flags) {
  proxy::ConnectionOptions options;
  options.reconnect = !flags.has("no-reconnect");
  proxy::ChannelSecurity& security = options.security;
  const std::pair<const char*, std::string*> files[] = {
      {"tls-ca", &security.tlsCaPem}, {"tls-cert", &security.tlsCertPem}, {"tls-key", &security.tlsKeyPem}};
  for (const auto& [flag, into] : files) {
    if (!flags.has(flag)) continue;
    NN_ASSIGN_OR_RETURN(*into, proxy::readSecret(flags.get(flag), std::string("--") + flag));
  }
  security.tlsServerName = flags.get("tls-server-name");
  if (flags.has("token-file")) {
    NN_ASSIGN_OR_RETURN(std::string token, proxy::readSecret(flags.get("token-file"), "--token-file"));
    // A token file usually ends with a newline that is not part of the token.
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.pop_back();
    if (token.empty()) return hal::invalidArgument() << "--token-file: " << flags.get("token-file") << " is empty";
    security.token = std::move(token);
  }
  return options;
}

}  // namespace nnremote::tools
