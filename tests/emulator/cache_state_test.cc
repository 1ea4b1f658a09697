// Compilation caches against a real npu_emulator process: they outlive a restart only with
// --state-dir (whose key seals them), a restarted server that no longer holds a cache's data
// gets it from the client's file, a model prepared from cache is prepared again after a
// reconnect, one device's cache is refused by another, and the key file is kept private.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fstream>

#include "hal/compilation_cache.h"
#include "hal/model_builder.h"
#include "drivers/proxy/proxy_device.h"
#include "testing/emulator_process.h"

namespace nnremote::proxy {
namespace {

using hal::ErrorStatus;
using ::testing::HasSubstr;

// out = in * W + b with a 256 x 512 weight matrix: large enough that the proxy holds the data
// cache's body back on a first attempt.
hal::Model weightyModel() {
  hal::ModelBuilder b;
  std::vector<float> weights(256 * 512);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>(i % 7) * 0.25f;
  const uint32_t in = b.addInput(hal::OperandType::TENSOR_FLOAT32, {1, 512});
  const uint32_t w = b.addConstant(hal::OperandType::TENSOR_FLOAT32, {256, 512}, weights);
  const uint32_t bias = b.addConstant(hal::OperandType::TENSOR_FLOAT32, {256}, std::vector<float>(256, 1.0f));
  const uint32_t out = b.addOutput(hal::OperandType::TENSOR_FLOAT32, {1, 256});
  b.addOperation(hal::OperationType::FULLY_CONNECTED, {in, w, bias, b.addInt32(0)}, {out});
  return b.build();
}

// The first outputs, computed here: unit u sums (k % 7 over row u) * 0.25 * 1 + 1.
float expectedOutput(size_t unit) {
  float sum = 1.0f;
  for (size_t k = 0; k < 512; ++k) sum += static_cast<float>((unit * 512 + k) % 7) * 0.25f;
  return sum;
}

hal::Status checkRuns(const hal::IPreparedModel& prepared) {
  NN_ASSIGN_OR_RETURN(auto io, hal::makeRequest({hal::toBytes(std::vector<float>(512, 1.0f))}, {256 * 4}));
  NN_RETURN_IF_ERROR(prepared.execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).status());
  const std::vector<float> out = hal::fromMemory<float>(io.outputs[0], 256);
  for (size_t u : {size_t{0}, size_t{1}, size_t{255}}) {
    if (out[u] != expectedOutput(u)) {
      return hal::makeError(ErrorStatus::GENERAL_FAILURE) << "output " << u << " is " << out[u];
    }
  }
  return {};
}

class CacheStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = std::getenv("TEST_TMPDIR");
    directory_ = std::string(base != nullptr ? base : "/tmp") + "/cache-state-XXXXXX";
    ASSERT_NE(::mkdtemp(directory_.data()), nullptr);
    stateDir_ = directory_ + "/state";
    address_ = testing::EmulatorProcess::uniqueAddress("cache");
    for (size_t i = 0; i < token_.size(); ++i) token_[i] = static_cast<uint8_t>(0xA0 + i);
  }

  void connect() {
    auto connection = Connection::connect(address_, {});
    ASSERT_TRUE(connection.ok()) << connection.error().message;
    connection_ = *connection;
    auto devices = ProxyDevice::discover(connection_);
    ASSERT_TRUE(devices.ok()) << devices.error().message;
    devices_.assign(devices->begin(), devices->end());
  }

  hal::SharedDevice device(const std::string& name) const {
    for (const auto& d : devices_) {
      if (d->getName() == name) return d;
    }
    return nullptr;
  }

  std::vector<hal::CacheFile> handles(const std::string& name) const {
    auto file = hal::openCacheFile(directory_ + "/" + name, O_RDWR | O_CREAT);
    if (!file.ok()) std::abort();
    return {*file};
  }

  void save(const hal::IDevice& on) {
    auto prepared = on.prepareModel(weightyModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                    hal::Priority::MEDIUM, std::nullopt, handles("model"), handles("data"), token_);
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    struct stat info {};
    ASSERT_EQ(::stat((directory_ + "/data").c_str(), &info), 0);
    EXPECT_GT(info.st_size, 256 * 512 * 4) << "the proxy wrote the device's data cache into the client's file";
  }

  hal::Result<hal::SharedPreparedModel> load(const hal::IDevice& on) const {
    return on.prepareModelFromCache(std::nullopt, handles("model"), handles("data"), token_);
  }

  std::string directory_, stateDir_, address_;
  hal::CacheToken token_{};
  std::shared_ptr<Connection> connection_;
  std::vector<hal::SharedDevice> devices_;
};

TEST_F(CacheStateTest, CachesOutliveARestartWithAStateDirectory) {
  auto server = std::make_unique<testing::EmulatorProcess>(address_, std::vector<std::string>{"--state-dir=" + stateDir_});
  connect();
  const auto edge = device("nnremote-edge16");
  ASSERT_NE(edge, nullptr);
  save(*edge);
  auto before = load(*edge);
  ASSERT_TRUE(before.ok()) << before.error().message;
  ASSERT_TRUE(checkRuns(**before).ok());

  server.reset();  // SIGKILL
  server = std::make_unique<testing::EmulatorProcess>(address_, std::vector<std::string>{"--state-dir=" + stateDir_});
  // The model prepared from cache before the crash is prepared again from the bytes the proxy
  // read, once the connection has a new session.
  auto first = checkRuns(**before);
  if (!first.ok()) {
    EXPECT_EQ(first.code(), ErrorStatus::DEAD_OBJECT) << first.error().message;
  }
  const hal::Status again = checkRuns(**before);
  EXPECT_TRUE(again.ok()) << again.error().message;
  EXPECT_GE(connection_->reconnects(), 1u);

  // The new server holds no data yet: the proxy's first attempt (body held back) fails and the
  // second sends the whole data cache.
  auto after = load(*edge);
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_TRUE(checkRuns(**after).ok());
}

TEST_F(CacheStateTest, WithoutAStateDirectoryARestartInvalidatesCaches) {
  auto server = std::make_unique<testing::EmulatorProcess>(address_);
  connect();
  save(*device("nnremote-edge16"));
  ASSERT_TRUE(load(*device("nnremote-edge16")).ok());
  server.reset();
  server = std::make_unique<testing::EmulatorProcess>(address_);
  auto after = load(*device("nnremote-edge16"));
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().code, ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(after.error().message, HasSubstr("integrity check"));
}

TEST_F(CacheStateTest, OneDevicesCacheIsRefusedByAnother) {
  auto server = std::make_unique<testing::EmulatorProcess>(
      address_, std::vector<std::string>{"--config=edge16,large128", "--state-dir=" + stateDir_});
  connect();
  ASSERT_NE(device("nnremote-large128"), nullptr);
  save(*device("nnremote-edge16"));
  auto elsewhere = load(*device("nnremote-large128"));
  ASSERT_FALSE(elsewhere.ok());
  EXPECT_EQ(elsewhere.error().code, ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(elsewhere.error().message, HasSubstr("not written by nnremote-large128"));
  EXPECT_TRUE(load(*device("nnremote-edge16")).ok());
}

TEST_F(CacheStateTest, TheKeyIsPrivateAndAReadableOneIsRefused) {
  {
    testing::EmulatorProcess server(address_, {"--state-dir=" + stateDir_});
  }
  struct stat info {};
  ASSERT_EQ(::stat(stateDir_.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  const std::string key = stateDir_ + "/compilation-cache.key";
  ASSERT_EQ(::stat(key.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_EQ(info.st_size, 32);

  // The same key is read back, not replaced.
  auto first = hal::loadOrCreateCacheSecret(stateDir_);
  auto second = hal::loadOrCreateCacheSecret(stateDir_);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->bytes, second->bytes);

  ASSERT_EQ(::chmod(key.c_str(), 0644), 0);
  auto leaked = hal::loadOrCreateCacheSecret(stateDir_);
  ASSERT_FALSE(leaked.ok());
  EXPECT_THAT(leaked.error().message, HasSubstr("can be read by others"));
}

}  // namespace
}  // namespace nnremote::proxy
