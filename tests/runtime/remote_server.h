// The npu_emulator a C API test's remote device lives on: started (on a unix socket of its own)
// before the library first looks for devices, and named to it through NNREMOTE_TARGETS.
// A test binary registers it once: AddGlobalTestEnvironment(new RemoteServer("name")), serving
// the simulated edge NPU unless given its devices.
#ifndef NNREMOTE_TESTS_RUNTIME_REMOTE_SERVER_H_
#define NNREMOTE_TESTS_RUNTIME_REMOTE_SERVER_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "drivers/sim/sim_device.h"
#include "emulator/emulator_server.h"
#include "tests/common/server_options.h"
#include "testing/unique_names.h"

namespace nnremote::testing {

class RemoteServer : public ::testing::Environment {
 public:
  explicit RemoteServer(std::string name, std::vector<hal::SharedDevice> devices = {})
      : name_(std::move(name)), devices_(std::move(devices)) {
    if (devices_.empty()) devices_.push_back(sim::SimDevice::create(sim::edgeNpuConfig()));
  }
  void SetUp() override {
    auto server = emulator::EmulatorServer::start(devices_, "unix-abstract:nnremote-" + name_ + "-" + uniqueToken(),
                                                  plainLoopbackOptions());
    ASSERT_TRUE(server.ok()) << server.error().message;
    server_ = std::move(server).value();
    setenv("NNREMOTE_TARGETS", server_->address().c_str(), 1);
  }
  void TearDown() override { server_.reset(); }

 private:
  const std::string name_;
  std::vector<hal::SharedDevice> devices_;
  std::unique_ptr<emulator::EmulatorServer> server_;
};

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTS_RUNTIME_REMOTE_SERVER_H_
