// Certificates for security tests, made at test time with Debian's openssl command: a CA, a
// server certificate for localhost and 127.0.0.1, client certificates for alice and bob, and a
// client certificate from a second CA the server does not trust. Nothing secret is committed.
#ifndef NNREMOTE_TESTS_COMMON_TEST_PKI_H_
#define NNREMOTE_TESTS_COMMON_TEST_PKI_H_

#include <string>

#include "hal/result.h"

namespace nnremote::testing {

struct KeyPair {
  std::string certPem, keyPem;
};

struct TestPki {
  std::string caPem;          // signs server, alice and bob
  KeyPair server;             // CN=localhost, SAN DNS:localhost, IP:127.0.0.1
  KeyPair alice, bob;         // CN=alice, CN=bob
  KeyPair stranger;           // CN=stranger, signed by another CA
  std::string directory;      // where the files are, for command-line tests
};

// Makes them under `directory` (created if needed). Fails if openssl is missing or fails.
hal::Result<TestPki> makeTestPki(const std::string& directory);

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTS_COMMON_TEST_PKI_H_
