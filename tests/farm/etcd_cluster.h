// A real etcd cluster for tests: `members` etcd processes on free loopback ports, with their data
// in a fresh directory, started and killed by the test. Tests skip when etcd is not installed
// (scripts/setup.sh installs Debian's etcd-server).
#ifndef NNREMOTE_TESTS_FARM_ETCD_CLUSTER_H_
#define NNREMOTE_TESTS_FARM_ETCD_CLUSTER_H_

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace nnremote::testing {

class EtcdCluster {
 public:
  // Picks the ports; start() starts the members. Knowing the endpoints before etcd runs lets a
  // test start an emulator against a cluster that is not up yet.
  explicit EtcdCluster(int members = 3);
  ~EtcdCluster();  // kills every member and removes the data

  static bool installed();

  // Starts every member and waits (bounded, 20 s) until the cluster answers. False if it did not,
  // or if a member is not running then.
  bool start();
  // "127.0.0.1:P1,127.0.0.1:P2,..."
  std::string endpoints() const;
  // SIGKILLs member `index` (from 0).
  void killMember(int index);
  // Waits (bounded by `limit`) until the members still running accept a write: after a member
  // is killed, until they have a leader again. On a busy machine an election can take seconds.
  bool waitForQuorum(std::chrono::seconds limit = std::chrono::seconds(60));

 private:
  struct Member {
    std::string clientAddress, peerAddress;
    pid_t pid = -1;
  };
  std::vector<Member> members_;
  std::string dataDirectory_;
};

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTS_FARM_ETCD_CLUSTER_H_
