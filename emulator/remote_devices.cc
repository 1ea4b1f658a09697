#include "emulator/remote_devices.h"

#include "drivers/proxy/proxy_device.h"

namespace nnremote::emulator {

proxy::ConnectionOptions chainedConnectionOptions() {
  proxy::ConnectionOptions options;
  options.clientName = "npu_emulator (chained)";
  options.reconnectTimeout = std::chrono::seconds(2);
  // A relay waits for the far side's answers asleep: spinning, it held a core that the far side
  // or its own gRPC threads needed, and on the far side's shared queue that also has the far
  // server sleep at once after each answer (wire/shared_queue.h), where a spinner would hold a
  // core the relay's own work needs. Same host, 2 cores: a burst execution through a backend
  // host took 39 us against 94.5 us with both spinning, and a sync one 1.27x the in-process one
  // against 1.46x with the parent spinning; through a chained emulator, mostly 24 to 38 us
  // against 143 to 173 us (p50 of `nnremote load --executor=burst`; docs/backends.md).
  options.queueSpin = std::chrono::microseconds(0);
  return options;
}

hal::Result<std::vector<hal::SharedDevice>> connectRemoteDevices(const std::string& address,
                                                                 const proxy::ConnectionOptions& options) {
  auto connection = proxy::Connection::connect(address, options);
  if (!connection.ok()) return hal::withContext(connection.error(), std::string(kRemoteConfigPrefix) + address);
  auto devices = proxy::ProxyDevice::discover(*connection);
  if (!devices.ok()) return hal::withContext(devices.error(), std::string(kRemoteConfigPrefix) + address);
  if (devices->empty()) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << kRemoteConfigPrefix << address << " serves no devices";
  }
  return std::vector<hal::SharedDevice>(devices->begin(), devices->end());
}

}  // namespace nnremote::emulator
