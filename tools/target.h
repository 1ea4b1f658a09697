// The devices a command works on: those of a remote npu_emulator (--target=ADDR), or of an
// emulator started inside this process on the default simulated NPUs, reached through the
// proxy driver all the same.
#ifndef NNREMOTE_TOOLS_TARGET_H_
#define NNREMOTE_TOOLS_TARGET_H_

#include <memory>
#include <string>
#include <vector>

#include "emulator/emulator_server.h"
#include "drivers/proxy/connection.h"
#include "drivers/proxy/proxy_device.h"

namespace nnremote::tools {

struct Target {
  std::unique_ptr<emulator::EmulatorServer> localServer;  // set when no --target was given
  std::shared_ptr<proxy::Connection> connection;
  std::vector<std::shared_ptr<proxy::ProxyDevice>> devices;
  std::string description;
  // How to open more connections to the same server, e.g. for `nnremote load`'s clients.
  std::string address;
  proxy::ConnectionOptions options;

  // The device named `name`, or the first device if `name` is empty.
  hal::Result<std::shared_ptr<proxy::ProxyDevice>> device(const std::string& name) const;
};

// The server --target names, or without it one started in this process serving `localNpus`
// (a --config list; empty: the default NPUs), connected with the security flags
// (tools/connection_flags.h).
// With an etcd:// --target, `avoid` lists emulators not to pick (ones found dead).
// `checkModelsOnClient` false sends every model to the server even when the proxy could refuse
// it itself (ConnectionOptions::validateOnClient): what `conform` needs to test the device.
hal::Result<Target> openTarget(const std::string& localNpus = "", const std::vector<std::string>& avoid = {},
                               bool checkModelsOnClient = true);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_TARGET_H_
