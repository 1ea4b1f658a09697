#include "tests/farm/etcd_cluster.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "farm/etcd_client.h"
#include "testing/socket_address.h"

namespace nnremote::testing {
namespace {

const char* kEtcdBinary = "/usr/bin/etcd";

}  // namespace

bool EtcdCluster::installed() { return ::access(kEtcdBinary, X_OK) == 0; }

EtcdCluster::EtcdCluster(int members) {
  for (int i = 0; i < members; ++i) {
    members_.push_back(
        {"127.0.0.1:" + std::to_string(freeLoopbackPort()), "127.0.0.1:" + std::to_string(freeLoopbackPort()), -1});
  }
  const char* tmp = std::getenv("TEST_TMPDIR");
  char pattern[512];
  std::snprintf(pattern, sizeof(pattern), "%s/etcd.XXXXXX", tmp != nullptr ? tmp : "/tmp");
  dataDirectory_ = ::mkdtemp(pattern) != nullptr ? pattern : "/tmp";
}

EtcdCluster::~EtcdCluster() {
  for (size_t i = 0; i < members_.size(); ++i) killMember(static_cast<int>(i));
  std::error_code ignored;
  std::filesystem::remove_all(dataDirectory_, ignored);
}

std::string EtcdCluster::endpoints() const {
  std::string list;
  for (const Member& member : members_) list += (list.empty() ? "" : ",") + member.clientAddress;
  return list;
}

bool EtcdCluster::start() {
  auto client = farm::EtcdClient::create(endpoints());
  if (!client.ok()) return false;
  std::string cluster;
  for (size_t i = 0; i < members_.size(); ++i) {
    cluster += (cluster.empty() ? "" : ",") + ("m" + std::to_string(i)) + "=http://" + members_[i].peerAddress;
  }
  for (size_t i = 0; i < members_.size(); ++i) {
    const std::string name = "m" + std::to_string(i);
    const std::string peer = "http://" + members_[i].peerAddress, client = "http://" + members_[i].clientAddress;
    std::vector<std::string> arguments = {"etcd",
                                          "--name",
                                          name,
                                          "--data-dir",
                                          dataDirectory_ + "/" + name,
                                          "--listen-peer-urls",
                                          peer,
                                          "--initial-advertise-peer-urls",
                                          peer,
                                          "--listen-client-urls",
                                          client,
                                          "--advertise-client-urls",
                                          client,
                                          "--initial-cluster",
                                          cluster,
                                          "--initial-cluster-state",
                                          "new",
                                          "--initial-cluster-token",
                                          "nnremote-test-" + std::to_string(::getpid())};
    const std::string log = dataDirectory_ + "/" + name + ".log";
    members_[i].pid = ::fork();
    if (members_[i].pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a test that dies takes its cluster along
      // etcd logs a lot; keep it out of the test log.
      const int logFile = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (logFile >= 0) {
        ::dup2(logFile, STDOUT_FILENO);
        ::dup2(logFile, STDERR_FILENO);
      }
      std::vector<char*> argv;
      for (auto& argument : arguments) argv.push_back(argument.data());
      argv.push_back(nullptr);
      ::execv(kEtcdBinary, argv.data());
      ::_exit(127);
    }
  }
  if (!waitForQuorum(std::chrono::seconds(20))) return false;
  // A quorum answers with one member down (its port taken before it bound it): a test that then
  // kills another would find no leader. Every member must run.
  for (Member& member : members_) {
    if (::waitpid(member.pid, nullptr, WNOHANG) != 0) {
      std::fprintf(stderr, "etcd member at %s (peer %s) is not running: see its log in %s\n",
                   member.clientAddress.c_str(), member.peerAddress.c_str(), dataDirectory_.c_str());
      member.pid = -1;
      return false;
    }
  }
  return true;
}

bool EtcdCluster::waitForQuorum(std::chrono::seconds limit) {
  std::string running;
  for (const Member& member : members_) {
    if (member.pid > 0) running += (running.empty() ? "" : ",") + member.clientAddress;
  }
  auto client = farm::EtcdClient::create(running, std::chrono::seconds(2));
  if (!client.ok()) return false;
  const auto giveUp = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < giveUp) {
    if ((*client)->put("/nnremote-test/ready", "1").ok()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

void EtcdCluster::killMember(int index) {
  Member& member = members_.at(index);
  if (member.pid <= 0) return;
  ::kill(member.pid, SIGKILL);
  ::waitpid(member.pid, nullptr, 0);
  member.pid = -1;
}

}  // namespace nnremote::testing
