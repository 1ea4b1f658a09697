// Device names through the C API are unique, as a program that picks its accelerator by name
// (TensorFlow Lite's accelerator_name) needs: two servers serving the same simulated NPU, and a
// server serving a device named like nnapi-reference, give NAME@TARGET for the later ones; a
// target listed twice is used once; and errors from the environment name the variable.
#include <android/NeuralNetworks.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "drivers/sim/sim_device.h"
#include "emulator/emulator_server.h"
#include "runtime/devices.h"
#include "testing/unique_names.h"
#include "tests/common/server_options.h"
#include "tests/runtime/c_api_helpers.h"

namespace nnremote::testing {
namespace {

using ::testing::ElementsAre;

hal::SharedDevice namedDevice(const std::string& vendor, const std::string& name) {
  sim::NpuConfig npu = sim::edgeNpuConfig();
  npu.set_vendor(vendor);
  npu.set_device_name(name);
  return sim::SimDevice::create(npu);
}

// Two servers, on unix sockets whose paths hold a '/', as a renamed device's cache files must
// not; both serve nnremote-edge16, the second also a device named nnapi-reference.
class TwoServers : public ::testing::Environment {
 public:
  void SetUp() override {
    for (int i = 0; i < 2; ++i) {
      std::vector<hal::SharedDevice> devices;
      devices.push_back(namedDevice("nnremote", "edge16"));
      if (i == 1) devices.push_back(namedDevice("nnapi", "reference"));
      auto server = emulator::EmulatorServer::start(
          devices, "unix:/tmp/nnremote-names-" + std::to_string(i) + "-" + uniqueToken() + ".sock",
          plainLoopbackOptions());
      ASSERT_TRUE(server.ok()) << server.error().message;
      servers_.push_back(std::move(server).value());
    }
    // The first listed twice (with a space and an empty entry, which are ignored).
    const std::string targets = first() + ", " + first() + ",," + second();
    setenv("NNREMOTE_TARGETS", targets.c_str(), 1);
  }
  void TearDown() override { servers_.clear(); }

  std::string first() const { return servers_[0]->address(); }
  std::string second() const { return servers_[1]->address(); }

 private:
  std::vector<std::unique_ptr<emulator::EmulatorServer>> servers_;
};

TwoServers* const kServers = static_cast<TwoServers*>(::testing::AddGlobalTestEnvironment(new TwoServers()));

std::vector<std::string> deviceNames() {
  std::vector<std::string> names;
  for (const ANeuralNetworksDevice* device : allDevices()) names.push_back(nameOf(device));
  return names;
}

TEST(CApiDeviceNamesTest, EveryDeviceHasANameOfItsOwn) {
  EXPECT_EQ(runtime::DeviceRegistry::targetsFromEnvironment(),
            (std::vector<std::string>{kServers->first(), kServers->second()}));
  EXPECT_THAT(deviceNames(), ElementsAre("nnremote-edge16", "nnremote-edge16@" + kServers->second(),
                                         "nnapi-reference@" + kServers->second(), "nnapi-reference"));
}

TEST(CApiDeviceNamesTest, ARenamedDeviceComputesAndCachesItsCompilations) {
  const std::vector<ANeuralNetworksDevice*> devices = allDevices();
  ASSERT_EQ(devices.size(), 4u);
  const ANeuralNetworksDevice* renamed = devices[1];
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  const std::string cacheDir = std::string(std::getenv("TEST_TMPDIR")) + "/cache";
  std::filesystem::create_directories(cacheDir);
  uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN] = {7};
  ANeuralNetworksCompilation* raw = nullptr;
  ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(model.get(), &renamed, 1, &raw), ANEURALNETWORKS_NO_ERROR);
  Compilation compilation(raw);
  ASSERT_EQ(ANeuralNetworksCompilation_setCaching(raw, cacheDir.c_str(), token), ANEURALNETWORKS_NO_ERROR);
  ASSERT_EQ(ANeuralNetworksCompilation_finish(raw), ANEURALNETWORKS_NO_ERROR);
  expectSum(raw);
  // The cache files are in the folder itself, named without the target's '/'.
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(cacheDir)) {
    EXPECT_NE(entry.path().filename().string().find("nnremote-edge16@unix__tmp_nnremote-names-1"), std::string::npos)
        << entry.path();
    ++files;
  }
  EXPECT_GT(files, 0u);
}

TEST(CApiDeviceNamesTest, SecurityErrorsNameTheEnvironmentVariable) {
  ASSERT_EQ(setenv("NNREMOTE_TOKEN_FILE", "/nonexistent/token", 1), 0);
  auto options = runtime::DeviceRegistry::connectionOptionsFromEnvironment();
  ASSERT_EQ(unsetenv("NNREMOTE_TOKEN_FILE"), 0);
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.error().message, "NNREMOTE_TOKEN_FILE: cannot read /nonexistent/token: No such file or directory");

  ASSERT_EQ(setenv("NNREMOTE_TLS_CA", "/nonexistent/ca.pem", 1), 0);
  options = runtime::DeviceRegistry::connectionOptionsFromEnvironment();
  ASSERT_EQ(unsetenv("NNREMOTE_TLS_CA"), 0);
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.error().message, "NNREMOTE_TLS_CA: cannot read /nonexistent/ca.pem: No such file or directory");
}

}  // namespace
}  // namespace nnremote::testing
