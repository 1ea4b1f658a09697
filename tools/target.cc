#include "tools/target.h"

#include <unistd.h>

#include <random>

#include "emulator/simulated_npus.h"
#include "tools/connection_flags.h"
#include "tools/nnremote_flags.h"

namespace nnremote::tools {

hal::Result<std::shared_ptr<proxy::ProxyDevice>> Target::device(const std::string& name) const {
  if (devices.empty()) return hal::invalidArgument() << description << " serves no devices";
  if (name.empty()) return devices.front();
  for (const auto& device : devices) {
    if (device->getName() == name) return device;
  }
  auto error = hal::invalidArgument();
  error << "no device named '" << name << "' at " << description << " (devices:";
  for (const auto& device : devices) error << " " << device->getName();
  return error << ")";
}

hal::Result<Target> openTarget(const std::string& localNpus, const std::vector<std::string>& avoid,
                               bool checkModelsOnClient) {
  Target target;
  NN_ASSIGN_OR_RETURN(target.options, connectionOptionsFromFlags());
  target.options.poolAvoid = avoid;
  target.options.validateOnClient = checkModelsOnClient;
  const std::string address = absl::GetFlag(FLAGS_target);
  std::string connectTo = address;
  if (address.empty()) {
    NN_ASSIGN_OR_RETURN(const auto npus, sim::npuConfigsFromList(localNpus));
    const auto devices = emulator::createSimulatedNpus(npus);
    // Not the pid alone: in containers and sandboxes (pid namespaces) two nnremote processes can
    // share a pid and the abstract socket namespace, and the second could not listen.
    const std::string local = "unix-abstract:nnremote-local-" + std::to_string(::getpid()) + "-" +
                              std::to_string(std::random_device()());
    emulator::turnOffAbslDeadlockDetection();
    NN_ASSIGN_OR_RETURN(target.localServer, emulator::EmulatorServer::start(devices, local));
    connectTo = target.localServer->address();
    target.description = "an in-process npu_emulator (" + connectTo + ")";
  } else {
    target.description = address;
  }
  NN_ASSIGN_OR_RETURN(target.connection, proxy::Connection::connect(connectTo, target.options));
  // An etcd:// target resolved to one emulator; more connections go straight there.
  target.address = target.connection->address();
  if (const std::string& pooled = target.connection->pooledDevice(); !pooled.empty()) {
    target.description = address + " (" + pooled + " at " + target.address + ")";
  }
  NN_ASSIGN_OR_RETURN(target.devices, proxy::ProxyDevice::discover(target.connection));
  return target;
}

}  // namespace nnremote::tools
