#include "tools/devices_command.h"

#include <iostream>

#include "hal/operand_types.h"
#include "tools/command_support.h"
#include "wire/nnremote.pb.h"

namespace nnremote::tools {

void printDevices(const Target& target) {
  std::cout << "Devices at " << target.description << ":\n";
  for (const auto& device : target.devices) {
    std::cout << "  " << device->getName() << "\n"
              << "    type:          " << hal::toString(device->getType()) << "\n"
              << "    version:       " << device->getVersionString() << "\n"
              << "    feature level: " << hal::toString(device->getFeatureLevel()) << "\n";
    if (const wire::BackendHostHealth* host = device->backendHost()) {
      std::cout << "    backend host:  "
                << (!host->unavailable().empty() ? "UNAVAILABLE: " + host->unavailable()
                                                 : host->running() ? "running (pid " + std::to_string(host->pid()) + ")"
                                                                   : "restarting")
                << ", " << host->restarts() << " restarts"
                << (host->last_exit().empty() || host->unavailable().find(host->last_exit()) != std::string::npos
                        ? ""  // the reason it is unavailable ends with it already
                        : "; last " + host->last_exit())
                << "\n";
    }
    std::cout << "    extensions:    ";
    if (device->getSupportedExtensions().empty()) std::cout << "none";
    for (const auto& extension : device->getSupportedExtensions()) {
      std::cout << "\n      " << extension.name;
      if (extension.operandTypes.empty()) std::cout << " (operations only)";
      for (const auto& type : extension.operandTypes) {
        std::cout << "\n        operand type " << type.type << ": " << (type.isTensor ? "tensor" : "scalar") << ", "
                  << type.byteSize << " bytes per element";
      }
    }
    const auto [modelFiles, dataFiles] = device->getNumberOfCacheFilesNeeded();
    std::cout << "\n    cache files:   " << modelFiles << " model, " << dataFiles << " data\n";
  }
}

int runDevices() {
  auto target = openTarget();
  if (!target.ok()) return fail("devices", target.error());
  printDevices(*target);
  return 0;
}

}  // namespace nnremote::tools
