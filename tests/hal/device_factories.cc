#include "tests/hal/device_factories.h"

#include <cstdlib>

#include "emulator/emulator_server.h"
#include "emulator/simulated_npus.h"
#include "proxy_driver/proxy_device.h"
#include "tests/common/server_options.h"

namespace nnremote::testing {
namespace {

DeviceUnderTest inProcess() {
  return {nullptr, emulator::createSimulatedNpu(sim::edgeNpuConfig())};
}

struct ProxyStack {
  std::unique_ptr<emulator::EmulatorServer> server;
  std::shared_ptr<proxy::Connection> connection;
};

DeviceUnderTest throughProxy() { return serveThroughProxy(emulator::createSimulatedNpu(sim::edgeNpuConfig())); }

}  // namespace

DeviceUnderTest serveThroughProxy(hal::SharedDevice device, emulator::SessionLimits sessionLimits) {
  auto stack = std::make_shared<ProxyStack>();
  auto server = emulator::EmulatorServer::start({std::move(device)}, "127.0.0.1:0",
                                                testing::plainLoopbackOptions(sessionLimits));
  if (!server.ok()) std::abort();
  stack->server = std::move(server).value();
  auto connection = proxy::Connection::connect(stack->server->address());
  if (!connection.ok()) std::abort();
  stack->connection = *connection;
  auto devices = proxy::ProxyDevice::discover(stack->connection);
  if (!devices.ok() || devices->size() != 1) std::abort();
  return {stack, devices->front()};
}

std::vector<DeviceFactory> allDeviceFactories() {
  return {{"InProcess", inProcess}, {"ThroughProxy", throughProxy}};
}

}  // namespace nnremote::testing
