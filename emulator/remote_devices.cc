#include "emulator/remote_devices.h"

#include "drivers/proxy/proxy_device.h"

namespace nnremote::emulator {

proxy::ConnectionOptions chainedConnectionOptions() {
  proxy::ConnectionOptions options;
  options.clientName = "npu_emulator (chained)";
  options.reconnectTimeout = std::chrono::seconds(2);
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
