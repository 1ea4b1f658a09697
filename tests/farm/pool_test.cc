// farm/pool.h: etcd:// targets, and picking and holding devices in a real etcd cluster's pool.
#include "farm/pool.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "tests/farm/etcd_cluster.h"

namespace nnremote::farm {
namespace {

TEST(PoolTargetTest, ParsesEveryPart) {
  auto plain = parsePoolTarget("etcd://127.0.0.1:2379/lab");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->endpoints, "127.0.0.1:2379");
  EXPECT_EQ(plain->pool, "lab");
  EXPECT_FALSE(plain->exclusive);
  auto full = parsePoolTarget("etcd://a:1,b:2,c:3/lab-2?device=nnremote-edge16&exclusive=1");
  ASSERT_TRUE(full.ok()) << full.error().message;
  EXPECT_EQ(full->endpoints, "a:1,b:2,c:3");
  EXPECT_EQ(full->device, "nnremote-edge16");
  EXPECT_TRUE(full->exclusive);
  auto typed = parsePoolTarget("etcd://a:1/lab?type=accelerator");
  ASSERT_TRUE(typed.ok());
  EXPECT_EQ(typed->type, "ACCELERATOR");
  EXPECT_TRUE(isPoolTarget("etcd://x"));
  EXPECT_FALSE(isPoolTarget("unix:/tmp/etcd://"));
}

TEST(PoolTargetTest, MalformedTargetsAreRefusedNamingTheProblem) {
  const std::pair<std::string, std::string> cases[] = {
      {"etcd://127.0.0.1:2379", "no /POOL"},
      {"etcd:///lab", "no etcd endpoint"},
      {"etcd://127.0.0.1/lab", "endpoint '127.0.0.1' has no port"},
      {"etcd://127.0.0.1:99999/lab", "has no usable port: '99999' is not a number from 1 to 65535"},
      {"etcd://etcd one:2379/lab", "'etcd one' is not a host name"},
      {"etcd://127.0.0.1:2379/", "pool name is empty"},
      {"etcd://127.0.0.1:2379/la b", "has ' '"},
      {"etcd://127.0.0.1:2379/lab?type=tpu", "type 'tpu'"},
      {"etcd://127.0.0.1:2379/lab?device=a&type=cpu", "not both"},
      {"etcd://127.0.0.1:2379/lab?exclusive=maybe", "exclusive=maybe"},
      {"etcd://127.0.0.1:2379/lab?colour=red", "colour=red"},
      {"etcd://127.0.0.1:2379/lab?device=", "device="},
  };
  for (const auto& [target, expected] : cases) {
    auto parsed = parsePoolTarget(target);
    ASSERT_FALSE(parsed.ok()) << target;
    EXPECT_EQ(parsed.error().code, hal::ErrorStatus::INVALID_ARGUMENT) << target;
    EXPECT_NE(parsed.error().message.find(expected), std::string::npos) << parsed.error().message;
  }
}

TEST(PoolRecordTest, RoundTripsThroughJson) {
  DeviceRecord record;
  record.set_address("127.0.0.1:5000");
  record.set_device("nnremote-edge16");
  record.set_type("ACCELERATOR");
  record.set_load(0.25);
  record.set_queue_depth(3);
  const std::string json = encodeRecord(record);
  EXPECT_NE(json.find("\"queue_depth\":3"), std::string::npos) << json;
  auto decoded = decodeRecord(json);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->SerializeAsString(), record.SerializeAsString());
  EXPECT_FALSE(decodeRecord("{not json").ok());
}

class PoolClaimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::EtcdCluster::installed()) GTEST_SKIP() << "etcd is not installed (scripts/setup.sh: etcd-server)";
    ASSERT_TRUE(cluster_.start()) << "the etcd cluster did not come up";
    etcd_ = *EtcdClient::create(cluster_.endpoints());
  }

  // Puts a device record as an emulator's registration would.
  void addDevice(const std::string& address, const std::string& name, double load, const std::string& type = "ACCELERATOR") {
    DeviceRecord record;
    record.set_address(address);
    record.set_device(name);
    record.set_type(type);
    record.set_load(load);
    ASSERT_TRUE(etcd_->put(deviceKey("lab", address, name), encodeRecord(record)).ok());
  }
  PoolTarget target(const std::string& query = "") {
    return *parsePoolTarget("etcd://" + cluster_.endpoints() + "/lab" + query);
  }

  testing::EtcdCluster cluster_{3};
  std::shared_ptr<EtcdClient> etcd_;
};

TEST_F(PoolClaimTest, PicksTheLeastLoadedMatchingDevice) {
  addDevice("10.0.0.1:1", "npu-a", 0.75);
  addDevice("10.0.0.2:1", "npu-a", 0.10);
  addDevice("10.0.0.3:1", "npu-b", 0.00);
  addDevice("10.0.0.4:1", "cpu-a", 0.00, "CPU");
  auto any = claimDevice(target(), {});
  ASSERT_TRUE(any.ok()) << any.error().message;
  EXPECT_EQ(any.value()->address(), "10.0.0.3:1");
  auto named = claimDevice(target("?device=npu-a"), {});
  ASSERT_TRUE(named.ok()) << named.error().message;
  EXPECT_EQ(named.value()->address(), "10.0.0.2:1");
  EXPECT_FALSE(named.value()->exclusive());
  auto cpu = claimDevice(target("?type=cpu"), {});
  ASSERT_TRUE(cpu.ok());
  EXPECT_EQ(cpu.value()->device(), "cpu-a");
  ClaimOptions avoiding;
  avoiding.avoidAddresses = {"10.0.0.2:1"};
  auto avoided = claimDevice(target("?device=npu-a"), avoiding);
  ASSERT_TRUE(avoided.ok());
  EXPECT_EQ(avoided.value()->address(), "10.0.0.1:1");
}

TEST_F(PoolClaimTest, AnExclusiveHoldKeepsOthersOffUntilReleased) {
  addDevice("10.0.0.1:1", "npu", 0.0);
  addDevice("10.0.0.2:1", "npu", 0.5);
  ClaimOptions alice, bob, carol;
  alice.holder = "alice";
  bob.holder = "bob";
  carol.holder = "carol";
  carol.wait = std::chrono::milliseconds(300);
  auto first = claimDevice(target("?exclusive=1"), alice);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first.value()->address(), "10.0.0.1:1");
  auto second = claimDevice(target("?exclusive=1"), bob);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second.value()->address(), "10.0.0.2:1");
  auto pool = listPool(*etcd_, "lab");
  ASSERT_TRUE(pool.ok());
  EXPECT_EQ((*pool)[0].holder, "alice");
  EXPECT_EQ((*pool)[1].holder, "bob");
  // Nothing free: carol waits, then is told what the pool holds.
  auto refused = claimDevice(target("?exclusive=1"), carol);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("no free device"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("held by alice"), std::string::npos) << refused.error().message;
  // A release wakes a waiter through its watch.
  carol.wait = std::chrono::seconds(10);
  std::thread release([&first] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    first->reset();
  });
  auto third = claimDevice(target("?exclusive=1"), carol);
  release.join();
  ASSERT_TRUE(third.ok()) << third.error().message;
  EXPECT_EQ(third.value()->address(), "10.0.0.1:1");
  EXPECT_EQ(listPool(*etcd_, "lab")->front().holder, "carol");
}

TEST_F(PoolClaimTest, AHoldOutlivesItsTtlWhileKeptAlive) {
  addDevice("10.0.0.1:1", "npu", 0.0);
  ClaimOptions options;
  options.holder = "keeper";
  options.holdTtl = std::chrono::seconds(2);
  auto held = claimDevice(target("?exclusive=1"), options);
  ASSERT_TRUE(held.ok()) << held.error().message;
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));  // past the TTL: renewals keep it
  EXPECT_EQ(listPool(*etcd_, "lab")->front().holder, "keeper");
  EXPECT_TRUE(held.value()->stillListed());
  ASSERT_TRUE(etcd_->remove(deviceKey("lab", "10.0.0.1:1", "npu")).ok());
  EXPECT_FALSE(held.value()->stillListed());
}

// A claim waits through a registry that does not answer (here: not up yet; in a farm, a killed
// member's cluster electing a leader), for as long as its own wait, rather than failing on
// etcd's first unanswered call.
TEST(PoolClaimOutageTest, AClaimWaitsThroughAnEtcdThatDoesNotAnswer) {
  if (!testing::EtcdCluster::installed()) GTEST_SKIP() << "etcd is not installed (scripts/setup.sh: etcd-server)";
  testing::EtcdCluster later(1);
  std::mutex mutex;
  std::condition_variable unanswered;
  std::optional<hal::Error> firstUnanswered;
  ClaimOptions options;
  options.wait = std::chrono::seconds(120);
  options.onUnanswered = [&](const hal::Error& error) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!firstUnanswered) firstUnanswered = error;
    unanswered.notify_all();
  };
  auto claiming = std::async(std::launch::async, [&] {
    return claimDevice(*parsePoolTarget("etcd://" + later.endpoints() + "/lab?exclusive=1"), options);
  });
  {
    std::unique_lock<std::mutex> lock(mutex);
    ASSERT_TRUE(unanswered.wait_for(lock, std::chrono::seconds(60), [&] { return firstUnanswered.has_value(); }))
        << "no look at the pool went unanswered";
    EXPECT_EQ(firstUnanswered->code, hal::ErrorStatus::DEVICE_UNAVAILABLE) << firstUnanswered->message;
    EXPECT_NE(firstUnanswered->message.find("etcd Range at " + later.endpoints()), std::string::npos)
        << firstUnanswered->message;
  }
  ASSERT_TRUE(later.start()) << "the etcd cluster did not come up";
  DeviceRecord record;
  record.set_address("10.0.0.1:1");
  record.set_device("npu");
  record.set_type("ACCELERATOR");
  ASSERT_TRUE(
      (*EtcdClient::create(later.endpoints()))->put(deviceKey("lab", "10.0.0.1:1", "npu"), encodeRecord(record)).ok());
  auto claimed = claiming.get();
  ASSERT_TRUE(claimed.ok()) << claimed.error().message;
  EXPECT_EQ(claimed.value()->address(), "10.0.0.1:1");
  EXPECT_TRUE(claimed.value()->exclusive());
}

TEST_F(PoolClaimTest, AnEmptyPoolFailsAfterTheWaitNamingIt) {
  ClaimOptions options;
  options.wait = std::chrono::milliseconds(200);
  auto none = claimDevice(target("?device=npu-x"), options);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no device matching device=npu-x within 200 ms"), std::string::npos)
      << none.error().message;
  EXPECT_NE(none.error().message.find("has no devices"), std::string::npos) << none.error().message;
}

}  // namespace
}  // namespace nnremote::farm
