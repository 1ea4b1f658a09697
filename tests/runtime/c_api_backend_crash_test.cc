// Where backend isolation meets the C API: a real npu_emulator whose only device comes from a
// vendor library (crashing_backend.so) in a backend host of its own, which segfaults on every
// execution of a model with ADD. The server lives on; a program that chose that device gets
// DEAD_OBJECT, and one that let the library choose (Compilation_create) gets its result from
// nnapi-reference, as on Android, however often the host crashes.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>

#include "testing/emulator_process.h"
#include "tests/runtime/c_api_helpers.h"

namespace nnremote::testing {
namespace {

// Started before the library first looks for devices, and named to it through NNREMOTE_TARGETS.
class CrashingBackendServer : public ::testing::Environment {
 public:
  void SetUp() override {
    log_ = std::string(std::getenv("TEST_TMPDIR")) + "/server.log";
    const std::string address = EmulatorProcess::uniqueAddress("capi-backend-crash");
    process_ = std::make_unique<EmulatorProcess>(
        address, std::vector<std::string>{"--backend=tests/emulator/backends/crashing_backend.so:segfault:op=ADD"},
        log_);
    setenv("NNREMOTE_TARGETS", address.c_str(), 1);
  }
  void TearDown() override { process_.reset(); }

  // The server's log once it holds `needle`, waiting (bounded) for it.
  std::string logOnceItHolds(const std::string& needle) const {
    const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::string text;
    for (;;) {
      std::ifstream in(log_);
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      if (text.find(needle) != std::string::npos || std::chrono::steady_clock::now() > giveUp) return text;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

 private:
  std::string log_;
  std::unique_ptr<EmulatorProcess> process_;
};

CrashingBackendServer* const kServer =
    static_cast<CrashingBackendServer*>(::testing::AddGlobalTestEnvironment(new CrashingBackendServer()));

TEST(CApiBackendCrashTest, AProgramThatLetTheLibraryChooseGetsItsResultsWhileTheBackendCrashes) {
  const ANeuralNetworksDevice* crashing = deviceFor(true);
  ASSERT_NE(crashing, nullptr) << "no remote device through NNREMOTE_TARGETS";
  ASSERT_EQ(nameOf(crashing), "crashtest-edge16");
  Model model = addModel();
  ASSERT_NE(model, nullptr);
  // Both prepared on the backend host while it is up; the library chooses it, the only remote device.
  Compilation chosen = compile(model.get(), crashing);
  Compilation anyDevice = compile(model.get());
  ASSERT_NE(chosen, nullptr);
  ASSERT_NE(anyDevice, nullptr);

  float out[2] = {};
  EXPECT_EQ(computeSum(chosen.get(), out), ANEURALNETWORKS_DEAD_OBJECT)
      << "the backend host crashed during the execution";
  EXPECT_NE(kServer->logOnceItHolds("killed by SIGSEGV in IPreparedModel::execute").find("killed by SIGSEGV"),
            std::string::npos)
      << "the server reports its backend host's crash";

  // Each time on the restarted host, which crashes again (or, once its crashes make a loop, is
  // unavailable): every computation falls back.
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE("computation " + std::to_string(i));
    expectSum(anyDevice.get());
  }
}

}  // namespace
}  // namespace nnremote::testing
