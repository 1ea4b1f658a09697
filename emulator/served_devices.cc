#include "emulator/served_devices.h"

#include <optional>

#include "middleware/device_health.h"
#include "wire/conversions.h"

namespace nnremote::emulator {

hal::Result<hal::SharedDevice> ServedDevices::find(const std::string& name, const std::string& identity) const {
  for (const auto& device : devices_) {
    if (device->getName() == name && access_.allows(identity, name)) return device;
  }
  auto error = hal::invalidArgument();
  error << "device_name '" << name << "' is not served here (devices:";
  for (const auto& device : devices_) {
    if (access_.allows(identity, device->getName())) error << " " << device->getName();
  }
  error << ")";
  return error;
}

std::vector<wire::DeviceInfo> ServedDevices::infoFor(const std::string& identity) const {
  std::vector<wire::DeviceInfo> infos;
  for (const auto& device : devices_) {
    if (access_.allows(identity, device->getName())) infos.push_back(infoFor(*device, identity));
  }
  return infos;
}

wire::DeviceInfo ServedDevices::infoFor(const hal::IDevice& device, const std::string& identity) const {
  wire::DeviceInfo info = wire::deviceInfo(device);
  if (const std::optional<middleware::DeviceHealth> health = middleware::supervisedHealthOf(device)) {
    wire::BackendHostHealth* host = info.mutable_backend_host();
    host->set_running(health->running);
    host->set_unavailable(health->unavailable);
    host->set_restarts(health->restarts);
    host->set_last_exit(health->lastExit);
    host->set_pid(static_cast<uint32_t>(health->pid));
  }
  // Extensions this identity may not use are not there for it at all.
  auto* extensions = info.mutable_extensions();
  for (int i = extensions->size() - 1; i >= 0; --i) {
    if (!access_.allowsExtension(identity, extensions->Get(i).name())) extensions->DeleteSubrange(i, 1);
  }
  return info;
}

hal::Status ServedDevices::checkExtensionsAllowed(const hal::Model& model, const std::string& identity) const {
  for (size_t i = 0; i < model.extensionNameToPrefix.size(); ++i) {
    const std::string& name = model.extensionNameToPrefix[i].name;
    if (!access_.allowsExtension(identity, name)) {
      return hal::invalidArgument() << "extensionNameToPrefix[" << i << "] names extension '" << name << "', which '"
                                    << identity << "' may not use (extension_allowlist in the server config)";
    }
  }
  return {};
}

}  // namespace nnremote::emulator
