// npu_emulator --etcd: real emulator processes registering in a real 3-member etcd cluster.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "farm/pool.h"
#include "testing/add_model.h"
#include "drivers/proxy/connection.h"
#include "drivers/proxy/proxy_device.h"
#include "testing/emulator_process.h"
#include "tests/farm/etcd_cluster.h"

namespace nnremote::farm {
namespace {

using Clock = std::chrono::steady_clock;

class RegistrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::EtcdCluster::installed()) GTEST_SKIP() << "etcd is not installed (scripts/setup.sh: etcd-server)";
    etcd_ = *EtcdClient::create(cluster_.endpoints());
  }

  std::vector<std::string> emulatorFlags(const std::string& pool, int ttlSeconds) {
    return {"--etcd=" + cluster_.endpoints(), "--pool=" + pool, "--etcd-ttl=" + std::to_string(ttlSeconds)};
  }
  // Polls the pool (every 50 ms, at most `within`) until it lists `count` devices; how long that took.
  std::optional<Clock::duration> waitForDevices(const std::string& pool, size_t count, std::chrono::seconds within) {
    const auto start = Clock::now();
    while (Clock::now() - start < within) {
      auto devices = listPool(*etcd_, pool);
      if (devices.ok() && devices->size() == count) return Clock::now() - start;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return std::nullopt;
  }

  testing::EtcdCluster cluster_{3};
  std::shared_ptr<EtcdClient> etcd_;
};

TEST_F(RegistrationTest, EveryDeviceIsRegisteredWithWhatClientsNeed) {
  ASSERT_TRUE(cluster_.start());
  const std::string address = testing::EmulatorProcess::uniqueAddress("farm");
  auto flags = emulatorFlags("lab", 5);
  flags.push_back("--config=edge16,large128");
  testing::EmulatorProcess emulator(address, flags);
  ASSERT_TRUE(waitForDevices("lab", 2, std::chrono::seconds(10)));
  auto devices = listPool(*etcd_, "lab");
  ASSERT_TRUE(devices.ok());
  const DeviceRecord& edge = (*devices)[0].record;
  EXPECT_EQ(edge.address(), address);
  EXPECT_EQ(edge.device(), "nnremote-edge16");
  EXPECT_EQ(edge.type(), "ACCELERATOR");
  EXPECT_EQ(edge.npu(), "16x16 OUTPUT_STATIONARY @ 800 MHz");
  EXPECT_NE(edge.version().find("nnremote-sim"), std::string::npos);
  EXPECT_EQ(edge.queue_depth(), 0u);
  EXPECT_FALSE(edge.emulator().empty());
  EXPECT_EQ((*devices)[1].record.device(), "nnremote-large128");
  // Each key is on the emulator's lease.
  auto entries = etcd_->getPrefix(poolPrefix("lab"));
  ASSERT_TRUE(entries.ok());
  EXPECT_NE(entries->front().lease, 0);
}

TEST_F(RegistrationTest, ACleanStopDeletesTheKeysAtOnce) {
  ASSERT_TRUE(cluster_.start());
  testing::EmulatorProcess emulator(testing::EmulatorProcess::uniqueAddress("farm"), emulatorFlags("stop", 30));
  ASSERT_TRUE(waitForDevices("stop", 1, std::chrono::seconds(10)));
  emulator.terminate();
  // Far sooner than the 30 s lease would take.
  const auto gone = waitForDevices("stop", 0, std::chrono::seconds(10));
  ASSERT_TRUE(gone.has_value()) << "the keys outlived a clean stop";
  EXPECT_NE(emulator.waitForExit(std::chrono::seconds(10)), -1);
}

TEST_F(RegistrationTest, AKilledEmulatorsKeysExpireWithItsLease) {
  ASSERT_TRUE(cluster_.start());
  testing::EmulatorProcess emulator(testing::EmulatorProcess::uniqueAddress("farm"), emulatorFlags("kill", 2));
  ASSERT_TRUE(waitForDevices("kill", 1, std::chrono::seconds(10)));
  std::this_thread::sleep_for(std::chrono::seconds(3));  // kept alive past its TTL
  ASSERT_EQ(listPool(*etcd_, "kill")->size(), 1u);
  emulator.kill();
  EXPECT_TRUE(waitForDevices("kill", 0, std::chrono::seconds(10)).has_value());
}

TEST_F(RegistrationTest, AnEmulatorServesWithoutEtcdAndRegistersWhenItComesUp) {
  // The cluster is not running yet: the emulator retries in the background and serves anyway.
  const std::string address = testing::EmulatorProcess::uniqueAddress("farm");
  testing::EmulatorProcess emulator(address, emulatorFlags("late", 5));
  auto connection = proxy::Connection::connect(address);
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  auto devices = proxy::ProxyDevice::discover(*connection);
  ASSERT_TRUE(devices.ok());
  EXPECT_EQ(devices->front()->getName(), "nnremote-edge16");
  ASSERT_TRUE(cluster_.start());
  EXPECT_TRUE(waitForDevices("late", 1, std::chrono::seconds(15)).has_value());
}

TEST_F(RegistrationTest, APoolTargetConnectsToTheDeviceItPickedAndHoldsIt) {
  ASSERT_TRUE(cluster_.start());
  testing::EmulatorProcess first(testing::EmulatorProcess::uniqueAddress("farm"), emulatorFlags("pick", 5));
  auto flags = emulatorFlags("pick", 5);
  flags.push_back("--config=edge16,large128");
  testing::EmulatorProcess second(testing::EmulatorProcess::uniqueAddress("farm"), flags);
  ASSERT_TRUE(waitForDevices("pick", 3, std::chrono::seconds(10)));
  const std::string target = "etcd://" + cluster_.endpoints() + "/pick?device=nnremote-large128&exclusive=1";
  proxy::ConnectionOptions options;
  options.clientName = "registration-test";
  auto connection = proxy::Connection::connect(target, options);
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  EXPECT_EQ((*connection)->pooledDevice(), "nnremote-large128");
  auto devices = proxy::ProxyDevice::discover(*connection);
  ASSERT_TRUE(devices.ok());
  ASSERT_EQ(devices->size(), 1u) << "a pool target offers only the device it picked";
  EXPECT_EQ(devices->front()->getName(), "nnremote-large128");
  // It works: a model prepares and runs there.
  auto prepared = devices->front()->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                                 hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  EXPECT_TRUE(prepared.ok()) << prepared.error().message;
  prepared = hal::Error{};
  // Held: a second exclusive client finds nothing free; once released, it does.
  options.poolWait = std::chrono::milliseconds(200);
  auto refused = proxy::Connection::connect(target, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("held by registration-test@"), std::string::npos) << refused.error().message;
  devices->clear();
  connection->reset();
  options.poolWait = std::chrono::seconds(10);
  EXPECT_TRUE(proxy::Connection::connect(target, options).ok());
}

}  // namespace
}  // namespace nnremote::farm
