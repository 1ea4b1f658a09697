// Server options for tests that serve on loopback TCP: plain TCP is refused unless asked for,
// and a test's own server on 127.0.0.1 is one nothing else needs to trust.
#ifndef NNREMOTE_TESTS_COMMON_SERVER_OPTIONS_H_
#define NNREMOTE_TESTS_COMMON_SERVER_OPTIONS_H_

#include "emulator/emulator_server.h"

namespace nnremote::testing {

inline emulator::ServerOptions plainLoopbackOptions(emulator::SessionLimits session = {}) {
  emulator::ServerOptions options;
  options.session = session;
  options.security.insecureTcp = true;
  return options;
}

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTS_COMMON_SERVER_OPTIONS_H_
