// The devices the HAL conformance suite runs against: the simulator in process, and the same
// simulator behind a real npu_emulator on loopback TCP, reached through the proxy driver.
#ifndef NNREMOTE_TESTS_HAL_DEVICE_FACTORIES_H_
#define NNREMOTE_TESTS_HAL_DEVICE_FACTORIES_H_

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "emulator/server_config.h"
#include "hal/i_device.h"

namespace nnremote::testing {

// Owns whatever keeps a device alive (a server, a connection). keepAlive is declared first so
// it is destroyed last, after the device and anything the test took from it.
struct DeviceUnderTest {
  std::shared_ptr<void> keepAlive;
  hal::SharedDevice device;
};

struct DeviceFactory {
  std::string name;
  std::function<DeviceUnderTest()> create;
};

// "InProcess" and "ThroughProxy", both on the edge16 NPU preset.
std::vector<DeviceFactory> allDeviceFactories();

// "ThroughProxyServerChecks": like ThroughProxy, with the proxy's own model validation off
// (ConnectionOptions::validateOnClient), so every model reaches the server and its checks are
// the ones tested.
DeviceFactory throughProxyServerChecksFactory();

// "ThroughSecureProxy": like ThroughProxy, with mutual TLS and a bearer token on the way
// (certificates made by openssl at first use).
DeviceFactory throughSecureProxyFactory();

// The first device of a real npu_emulator process started with `flags` on a unix socket, through
// the proxy driver. The test lists //emulator:npu_emulator (and any library named) in its data.
DeviceFactory emulatorProcessFactory(const std::string& name, const std::vector<std::string>& flags);

// "ThroughBackendLibrary": the edge16 simulator served by a real npu_emulator process from
// drivers/sim/sim_backend.so (--backend), on a unix socket. The test lists
// //emulator:npu_emulator in its data.
DeviceFactory throughBackendLibraryFactory();

// "ThroughTwoHops": client -> proxy -> emulator B -> proxy -> emulator A -> edge16 simulator,
// B serving A's device as its own (--config=remote:ADDR).
DeviceFactory throughTwoHopsFactory();

// `device` served by a real emulator on loopback TCP (with `sessionLimits`), as the proxy
// driver's device for it.
DeviceUnderTest serveThroughProxy(hal::SharedDevice device, emulator::SessionLimits sessionLimits = {});

inline std::ostream& operator<<(std::ostream& out, const DeviceFactory& factory) {
  return out << factory.name;
}

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTS_HAL_DEVICE_FACTORIES_H_
