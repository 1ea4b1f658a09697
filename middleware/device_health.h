// How the process behind a served device is, for devices that live in a process of their own
// (backend hosts, isolated_backend.h). ListDevices, /metrics and the farm's pool records report
// it; the service finds it under any decorators, as it finds a device's scheduler.
#ifndef NNREMOTE_MIDDLEWARE_DEVICE_HEALTH_H_
#define NNREMOTE_MIDDLEWARE_DEVICE_HEALTH_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "hal/forwarding_device.h"

namespace nnremote::middleware {

struct DeviceHealth {
  bool running = false;     // its process serves now
  std::string unavailable;  // why the device is given up on (a crash loop); empty: it is not
  uint64_t restarts = 0;    // processes started after the first
  std::string lastExit;     // how the last one ended, e.g. "killed by SIGSEGV in IPreparedModel::execute"
  pid_t pid = 0;            // the running process's
};

// A decorator for devices served by a supervised process of their own.
class SupervisedDevice : public hal::ForwardingDevice {
 public:
  using ForwardingDevice::ForwardingDevice;
  virtual DeviceHealth health() const = 0;
};

// The health of a supervised device; nullopt for one served in this process.
inline std::optional<DeviceHealth> supervisedHealthOf(const hal::IDevice& device) {
  const auto* supervised = hal::findDecorator<SupervisedDevice>(&device);
  if (supervised == nullptr) return std::nullopt;
  return supervised->health();
}

}  // namespace nnremote::middleware

#endif  // NNREMOTE_MIDDLEWARE_DEVICE_HEALTH_H_
