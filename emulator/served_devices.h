// The devices a server serves, as each identity may see them (ClientAccess in the server config):
// which it may use, and without the vendor extensions it may not.
#ifndef NNREMOTE_EMULATOR_SERVED_DEVICES_H_
#define NNREMOTE_EMULATOR_SERVED_DEVICES_H_

#include <string>
#include <vector>

#include "emulator/server_config.h"
#include "hal/i_device.h"
#include "hal/types.h"
#include "hal/result.h"
#include "wire/nnremote.pb.h"

namespace nnremote::emulator {

class ServedDevices {
 public:
  ServedDevices(std::vector<hal::SharedDevice> devices, ClientAccess access)
      : devices_(std::move(devices)), access_(std::move(access)) {}

  // A device `identity` may see, by name; one it may not is reported as not served, and the
  // error lists those it may.
  hal::Result<hal::SharedDevice> find(const std::string& name, const std::string& identity) const;
  // Every device `identity` may see, as it sees it.
  std::vector<wire::DeviceInfo> infoFor(const std::string& identity) const;
  // The device as `identity` sees it: without the extensions it may not use, and with the health
  // of the process that serves it if that is a backend host.
  wire::DeviceInfo infoFor(const hal::IDevice& device, const std::string& identity) const;
  // INVALID_ARGUMENT, naming it, for an extension of `model` that `identity` may not use.
  hal::Status checkExtensionsAllowed(const hal::Model& model, const std::string& identity) const;

 private:
  const std::vector<hal::SharedDevice> devices_;
  const ClientAccess access_;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_SERVED_DEVICES_H_
