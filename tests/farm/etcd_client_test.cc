// farm::EtcdClient against a real 3-member etcd cluster on loopback.
#include "farm/etcd_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tests/farm/etcd_cluster.h"

namespace nnremote::farm {
namespace {

class EtcdClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::EtcdCluster::installed()) GTEST_SKIP() << "etcd is not installed (scripts/setup.sh: etcd-server)";
    ASSERT_TRUE(cluster_.start()) << "the etcd cluster did not come up";
    auto client = EtcdClient::create(cluster_.endpoints());
    ASSERT_TRUE(client.ok()) << client.error().message;
    etcd_ = *client;
  }

  testing::EtcdCluster cluster_{3};
  std::shared_ptr<EtcdClient> etcd_;
};

std::vector<std::string> keysOf(const std::vector<KeyValue>& entries) {
  std::vector<std::string> keys;
  for (const auto& entry : entries) keys.push_back(entry.key);
  return keys;
}

TEST_F(EtcdClientTest, PutsListsAndDeletesByPrefix) {
  ASSERT_TRUE(etcd_->put("/t/a/1", "one").ok());
  ASSERT_TRUE(etcd_->put("/t/a/2", "two").ok());
  ASSERT_TRUE(etcd_->put("/t/b/1", "other").ok());
  auto listed = etcd_->getPrefix("/t/a/");
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  EXPECT_EQ(keysOf(*listed), (std::vector<std::string>{"/t/a/1", "/t/a/2"}));
  EXPECT_EQ((*listed)[1].value, "two");
  ASSERT_TRUE(etcd_->remove("/t/a/1").ok());
  EXPECT_EQ(keysOf(*etcd_->getPrefix("/t/a/")), (std::vector<std::string>{"/t/a/2"}));
}

TEST_F(EtcdClientTest, PutIfAbsentTakesAKeyOnceAndDeleteIfValueChecksTheOwner) {
  auto first = etcd_->putIfAbsent("/t/hold", "alice", 0);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(*first);
  EXPECT_FALSE(*etcd_->putIfAbsent("/t/hold", "bob", 0));
  EXPECT_EQ(etcd_->getPrefix("/t/hold")->front().value, "alice");
  EXPECT_FALSE(*etcd_->deleteIfValue("/t/hold", "bob"));
  EXPECT_TRUE(*etcd_->deleteIfValue("/t/hold", "alice"));
  EXPECT_TRUE(etcd_->getPrefix("/t/hold")->empty());
}

TEST_F(EtcdClientTest, KeysGoWithTheirLease) {
  auto lease = etcd_->grantLease(std::chrono::seconds(2));
  ASSERT_TRUE(lease.ok()) << lease.error().message;
  ASSERT_TRUE(etcd_->put("/t/leased/kept", "x", *lease).ok());
  EXPECT_EQ(etcd_->getPrefix("/t/leased/")->front().lease, *lease);
  // Renewed past its TTL, it stays.
  for (int i = 0; i < 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    auto alive = etcd_->keepAlive(*lease);
    ASSERT_TRUE(alive.ok()) << alive.error().message;
    EXPECT_TRUE(*alive);
  }
  EXPECT_EQ(etcd_->getPrefix("/t/leased/")->size(), 1u);
  // Revoked, its key goes at once and the lease cannot be renewed.
  ASSERT_TRUE(etcd_->revokeLease(*lease).ok());
  EXPECT_TRUE(etcd_->getPrefix("/t/leased/")->empty());
  EXPECT_FALSE(*etcd_->keepAlive(*lease));
}

TEST_F(EtcdClientTest, AnUnrenewedLeaseExpires) {
  auto lease = etcd_->grantLease(std::chrono::seconds(2));
  ASSERT_TRUE(lease.ok());
  ASSERT_TRUE(etcd_->put("/t/expiring", "x", *lease).ok());
  bool gone = false;
  for (int i = 0; i < 80 && !gone; ++i) {  // at most 8 s
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    gone = etcd_->getPrefix("/t/expiring")->empty();
  }
  EXPECT_TRUE(gone);
}

TEST_F(EtcdClientTest, WaitForChangeWakesOnAPutAndTimesOutWithout) {
  ASSERT_TRUE(etcd_->getPrefix("/t/watched/").ok());
  const int64_t revision = etcd_->lastRevision();
  auto quiet = etcd_->waitForChange("/t/watched/", revision, std::chrono::milliseconds(300));
  ASSERT_TRUE(quiet.ok()) << quiet.error().message;
  EXPECT_FALSE(*quiet);
  std::thread writer([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    (void)etcd_->put("/t/watched/x", "1");
  });
  auto woken = etcd_->waitForChange("/t/watched/", revision, std::chrono::seconds(10));
  writer.join();
  ASSERT_TRUE(woken.ok()) << woken.error().message;
  EXPECT_TRUE(*woken);
}

TEST_F(EtcdClientTest, LosingOneMemberChangesNothingForTheClient) {
  ASSERT_TRUE(etcd_->put("/t/before", "1").ok());
  cluster_.killMember(0);  // the member the client talks to first
  // Losing the leader means an election; what the client must survive is the lost member, not
  // a cluster without a leader, so wait for the new one.
  ASSERT_TRUE(cluster_.waitForQuorum()) << "the two remaining members elected no leader";
  auto lease = etcd_->grantLease(std::chrono::seconds(5));
  ASSERT_TRUE(lease.ok()) << lease.error().message;
  EXPECT_TRUE(etcd_->put("/t/after", "2", *lease).ok());
  EXPECT_TRUE(*etcd_->keepAlive(*lease));
  auto listed = etcd_->getPrefix("/t/");
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  EXPECT_EQ(keysOf(*listed), (std::vector<std::string>{"/t/after", "/t/before"}));
}

TEST(EtcdClientEndpoints, MalformedEndpointsAreRefusedByName) {
  for (const std::string bad : {"", "localhost", "127.0.0.1:", ":2379", "127.0.0.1:23x9", "127.0.0.1:2379,,oops"}) {
    auto client = EtcdClient::create(bad);
    ASSERT_FALSE(client.ok()) << bad;
    EXPECT_EQ(client.error().code, hal::ErrorStatus::INVALID_ARGUMENT) << bad;
  }
}

TEST(EtcdClientEndpoints, AnUnreachableClusterFailsWithinTheCallTimeout) {
  auto client = EtcdClient::create("127.0.0.1:1", std::chrono::milliseconds(300));
  ASSERT_TRUE(client.ok());
  const auto start = std::chrono::steady_clock::now();
  auto put = (*client)->put("/k", "v");
  ASSERT_FALSE(put.ok());
  EXPECT_NE(put.error().message.find("127.0.0.1:1"), std::string::npos) << put.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace nnremote::farm
