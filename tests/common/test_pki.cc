#include "tests/common/test_pki.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace nnremote::testing {
namespace {

hal::Status run(const std::string& command) {
  if (std::system((command + " >/dev/null 2>&1").c_str()) != 0) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "failed: " << command;
  }
  return {};
}

hal::Result<std::string> readFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "cannot read " << path;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

constexpr const char* kNewKey = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";

hal::Status makeCa(const std::string& dir, const std::string& name) {
  return run("openssl req -x509 " + std::string(kNewKey) + " -days 2 -subj /CN=" + name + " -keyout " + dir + "/" +
             name + ".key -out " + dir + "/" + name + ".pem");
}

// Signs a new key for `subject` with CA `ca`; `extensions` is an openssl extension line or empty.
hal::Result<KeyPair> issue(const std::string& dir, const std::string& ca, const std::string& name,
                           const std::string& extensions) {
  const std::string base = dir + "/" + name;
  NN_RETURN_IF_ERROR(run("openssl req " + std::string(kNewKey) + " -subj /CN=" + name + " -keyout " + base +
                         ".key -out " + base + ".csr"));
  std::string extensionFlag;
  if (!extensions.empty()) {
    std::ofstream(base + ".ext") << extensions << "\n";
    extensionFlag = " -extfile " + base + ".ext";
  }
  NN_RETURN_IF_ERROR(run("openssl x509 -req -days 2 -in " + base + ".csr -CA " + dir + "/" + ca + ".pem -CAkey " +
                         dir + "/" + ca + ".key -CAcreateserial -out " + base + ".pem" + extensionFlag));
  KeyPair pair;
  NN_ASSIGN_OR_RETURN(pair.certPem, readFile(base + ".pem"));
  NN_ASSIGN_OR_RETURN(pair.keyPem, readFile(base + ".key"));
  return pair;
}

}  // namespace

hal::Result<TestPki> makeTestPki(const std::string& directory) {
  ::mkdir(directory.c_str(), 0700);
  TestPki pki;
  pki.directory = directory;
  NN_RETURN_IF_ERROR(makeCa(directory, "test-ca"));
  NN_RETURN_IF_ERROR(makeCa(directory, "other-ca"));
  NN_ASSIGN_OR_RETURN(pki.caPem, readFile(directory + "/test-ca.pem"));
  NN_ASSIGN_OR_RETURN(pki.server, issue(directory, "test-ca", "localhost", "subjectAltName=DNS:localhost,IP:127.0.0.1"));
  NN_ASSIGN_OR_RETURN(pki.alice, issue(directory, "test-ca", "alice", ""));
  NN_ASSIGN_OR_RETURN(pki.bob, issue(directory, "test-ca", "bob", ""));
  NN_ASSIGN_OR_RETURN(pki.stranger, issue(directory, "other-ca", "stranger", ""));
  return pki;
}

}  // namespace nnremote::testing
