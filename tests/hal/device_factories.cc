#include "tests/hal/device_factories.h"

#include <cstdlib>

#include "emulator/emulator_server.h"
#include "emulator/remote_devices.h"
#include "emulator/simulated_npus.h"
#include "drivers/proxy/proxy_device.h"
#include "testing/emulator_process.h"
#include "tests/common/server_options.h"
#include "tests/common/test_pki.h"

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

DeviceUnderTest serveWith(hal::SharedDevice device, const emulator::ServerOptions& serverOptions,
                          const proxy::ConnectionOptions& connectionOptions) {
  auto stack = std::make_shared<ProxyStack>();
  auto server = emulator::EmulatorServer::start({std::move(device)}, "127.0.0.1:0", serverOptions);
  if (!server.ok()) std::abort();
  stack->server = std::move(server).value();
  auto connection = proxy::Connection::connect(stack->server->address(), connectionOptions);
  if (!connection.ok()) std::abort();
  stack->connection = *connection;
  auto devices = proxy::ProxyDevice::discover(stack->connection);
  if (!devices.ok() || devices->size() != 1) std::abort();
  return {stack, devices->front()};
}

DeviceUnderTest serveThroughProxy(hal::SharedDevice device, emulator::SessionLimits sessionLimits) {
  return serveWith(std::move(device), plainLoopbackOptions(sessionLimits), {});
}

DeviceFactory throughSecureProxyFactory() {
  return {"ThroughSecureProxy", [] {
            static const TestPki* pki = [] {
              const char* tmp = std::getenv("TEST_TMPDIR");
              auto made = makeTestPki(std::string(tmp != nullptr ? tmp : "/tmp") + "/device-factory-pki");
              if (!made.ok()) std::abort();  // openssl missing: scripts/setup.sh installs it
              return new TestPki(std::move(made).value());
            }();
            constexpr const char* kToken = "conformance-token-0123456789";
            emulator::ServerOptions server;
            server.security.tlsCertPem = pki->server.certPem;
            server.security.tlsKeyPem = pki->server.keyPem;
            server.security.clientCaPem = pki->caPem;
            server.security.tokens.identityOf[kToken] = "conformance";
            proxy::ConnectionOptions client;
            client.security.tlsCaPem = pki->caPem;
            client.security.tlsCertPem = pki->alice.certPem;
            client.security.tlsKeyPem = pki->alice.keyPem;
            client.security.token = kToken;
            return serveWith(emulator::createSimulatedNpu(sim::edgeNpuConfig()), server, client);
          }};
}

DeviceFactory emulatorProcessFactory(const std::string& name, const std::vector<std::string>& flags) {
  return {name, [name, flags] {
            struct Stack {
              std::unique_ptr<EmulatorProcess> process;
              std::shared_ptr<proxy::Connection> connection;
            };
            auto stack = std::make_shared<Stack>();
            const std::string address = EmulatorProcess::uniqueAddress(name);
            stack->process = std::make_unique<EmulatorProcess>(address, flags);
            auto connection = proxy::Connection::connect(address);
            if (!connection.ok()) std::abort();
            stack->connection = *connection;
            auto devices = proxy::ProxyDevice::discover(stack->connection);
            if (!devices.ok() || devices->empty()) std::abort();
            return DeviceUnderTest{stack, devices->front()};
          }};
}

DeviceFactory throughBackendLibraryFactory() {
  return emulatorProcessFactory("ThroughBackendLibrary", {"--backend=drivers/sim/sim_backend.so:edge16"});
}

DeviceFactory throughTwoHopsFactory() {
  return {"ThroughTwoHops", [] {
            struct Stack {
              std::unique_ptr<emulator::EmulatorServer> far;
              DeviceUnderTest front;
            };
            auto stack = std::make_shared<Stack>();
            auto far = emulator::EmulatorServer::start({emulator::createSimulatedNpu(sim::edgeNpuConfig())},
                                                       "127.0.0.1:0", plainLoopbackOptions());
            if (!far.ok()) std::abort();
            stack->far = std::move(far).value();
            auto remote = emulator::connectRemoteDevices(stack->far->address());
            if (!remote.ok() || remote->size() != 1) std::abort();
            stack->front = serveThroughProxy(remote->front());
            return DeviceUnderTest{stack, stack->front.device};
          }};
}

DeviceFactory throughProxyServerChecksFactory() {
  return {"ThroughProxyServerChecks", [] {
            proxy::ConnectionOptions client;
            client.validateOnClient = false;
            return serveWith(emulator::createSimulatedNpu(sim::edgeNpuConfig()), plainLoopbackOptions(), client);
          }};
}

std::vector<DeviceFactory> allDeviceFactories() {
  return {{"InProcess", inProcess}, {"ThroughProxy", throughProxy}};
}

}  // namespace nnremote::testing
