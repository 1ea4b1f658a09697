// The devices the NNAPI C API offers: every device of the servers NNREMOTE_TARGETS names
// (reached through the proxy driver, in the order given), then `nnapi-reference`, the simulator
// running in the program's own process as Android's runtime has its CPU device. Found once, at
// the first call that needs them; an unreachable target is logged once and adds no device.
// Names are unique, as on Android, where a program picks a device by name (TensorFlow Lite's
// accelerator_name): a device named like one before it (two hosts serving the same simulated NPU)
// is NAME@TARGET; a target listed twice is used once.
//
// The environment, named after nnremote's flags (docs/runtime.md):
//   NNREMOTE_TARGETS      comma-separated targets as `--target` takes them (unix:PATH,
//                         unix-abstract:NAME, HOST:PORT, etcd://...); unset: unix:/tmp/nnremote.sock
//   NNREMOTE_TLS_CA, NNREMOTE_TLS_CERT, NNREMOTE_TLS_KEY, NNREMOTE_TLS_SERVER_NAME,
//   NNREMOTE_TOKEN_FILE   as --tls-ca, ... --token-file
//   NNREMOTE_NO_RECONNECT set (to anything): as --no-reconnect
//   NNREMOTE_NO_CPU_FALLBACK set (to anything): compilations made with Compilation_create
//                         from then on do not fall back to nnapi-reference (compilation.h)
#ifndef NNREMOTE_RUNTIME_DEVICES_H_
#define NNREMOTE_RUNTIME_DEVICES_H_

#include <memory>
#include <string>
#include <vector>

#include "hal/i_device.h"
#include "drivers/proxy/connection.h"

namespace nnremote::runtime {

// What an ANeuralNetworksDevice* points to; lives as long as the process.
struct RuntimeDevice {
  hal::SharedDevice device;
  std::shared_ptr<proxy::Connection> connection;  // null for nnapi-reference, which is in this process
  // nnapi-reference: the fallback that runs what no remote device supports.
  bool isReference = false;
  std::string renamed;  // NAME@TARGET when a device before it has its name (above); else empty

  // What Device_getName reports and messages say: unique among the registry's devices.
  const std::string& name() const { return renamed.empty() ? device->getName() : renamed; }
};

class DeviceRegistry {
 public:
  // The process's registry, made on first use from the environment.
  static DeviceRegistry& instance();

  const std::vector<std::unique_ptr<RuntimeDevice>>& devices() const { return devices_; }
  // Whether `device` is one of ours (an ANeuralNetworksDevice* the program could have made up).
  bool owns(const RuntimeDevice* device) const;
  const RuntimeDevice& reference() const { return *devices_.back(); }

  // The targets (each once) and connection options the environment gives.
  static std::vector<std::string> targetsFromEnvironment();
  static hal::Result<proxy::ConnectionOptions> connectionOptionsFromEnvironment();

 private:
  DeviceRegistry();
  // Whether one of the first `before` devices, or nnapi-reference, is called `name`.
  bool taken(const std::string& name, size_t before) const;

  std::vector<std::unique_ptr<RuntimeDevice>> devices_;
};

// The name nnapi-reference reports, as Android's CPU device does.
inline constexpr const char* kReferenceDeviceName = "nnapi-reference";

// nnapi-reference: the simulator, functionally, in this process.
hal::SharedDevice makeReferenceDevice();

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_DEVICES_H_
