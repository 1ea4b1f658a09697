#include "emulator/device_stack.h"

#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "emulator/isolated_backend.h"
#include "emulator/remote_devices.h"
#include "middleware/device_health.h"
#include "middleware/graph_dump_device.h"

namespace nnremote::emulator {
namespace {

// Layer 1 and 2: the drivers --config and --backend name, each local one behind its scheduler.
hal::Result<std::vector<hal::SharedDevice>> driverDevices(const DeviceStackOptions& options,
                                                          const std::optional<middleware::FaultPlan>& fault) {
  std::vector<hal::SharedDevice> devices;
  std::string simulated;  // the --config entries the simulator serves
  for (absl::string_view entry : absl::StrSplit(options.config, ',', absl::SkipEmpty())) {
    if (!absl::ConsumePrefix(&entry, kRemoteConfigPrefix)) {
      absl::StrAppend(&simulated, simulated.empty() ? "" : ",", entry);
      continue;
    }
    NN_ASSIGN_OR_RETURN(auto remote, connectRemoteDevices(std::string(entry), options.remote));
    devices.insert(devices.end(), remote.begin(), remote.end());
  }
  std::vector<BackendSpec> inProcess;
  if (!simulated.empty()) {
    auto library = bundledSimulatorBackend();
    if (!library.ok()) return hal::withContext(library.error(), "--config");
    inProcess.push_back({*library, simulated, "--config=" + simulated});
  }
  for (const auto& backend : options.backends) {
    if (options.isolation == nullptr) {
      inProcess.push_back(backend);
      continue;
    }
    BackendProcessOptions host;
    host.spec = backend;
    host.limits = options.isolation->isolationFor(backend.path);
    host.cacheSecret = options.serving.cacheSecret;
    // A fault aimed at a device may strike in its backend host, which it then ends.
    if (fault.has_value() && !fault->device.empty()) host.fault = options.fault;
    NN_ASSIGN_OR_RETURN(auto isolated, startIsolatedBackend(std::move(host)));
    for (auto& device : isolated) devices.push_back(scheduleDevice(std::move(device), options.serving));
  }
  for (const auto& backend : inProcess) {
    NN_ASSIGN_OR_RETURN(auto loaded, loadBackend(backend, options.serving.cacheSecret));
    for (auto& device : loaded) devices.push_back(scheduleDevice(std::move(device), options.serving));
  }
  std::set<std::string> names;
  for (const auto& device : devices) {
    if (!names.insert(device->getName()).second) {
      return hal::invalidArgument() << "two devices are named " << device->getName()
                                    << "; each device must have a name of its own";
    }
  }
  return devices;
}

// Layer 3: --fault, here or (for a device of a backend host) already in the child.
hal::Status injectFault(const middleware::FaultPlan& plan, DeviceStack* stack) {
  bool served = plan.device.empty();
  for (const auto& device : stack->devices) {
    if (device->getName() != plan.device) continue;
    served = true;
    if (middleware::supervisedHealthOf(*device).has_value()) stack->faultInBackendHost = plan.device;
  }
  if (!served) return hal::invalidArgument() << "--fault: no device named '" << plan.device << "' is served";
  if (stack->faultInBackendHost.empty()) {
    stack->faults = std::make_unique<middleware::FaultInjector>(plan);
    stack->devices = stack->faults->wrap(std::move(stack->devices));
  }
  return {};
}

}  // namespace

hal::Result<DeviceStack> stackDevices(const DeviceStackOptions& options) {
  std::optional<middleware::FaultPlan> fault;
  if (!options.fault.empty()) {
    NN_ASSIGN_OR_RETURN(fault, middleware::parseFaultPlan(options.fault));
  }
  DeviceStack stack;
  NN_ASSIGN_OR_RETURN(stack.devices, driverDevices(options, fault));
  if (fault.has_value()) NN_RETURN_IF_ERROR(injectFault(*fault, &stack));
  if (!options.dumpGraphs.empty()) {
    NN_ASSIGN_OR_RETURN(stack.devices, middleware::dumpGraphsOf(std::move(stack.devices), options.dumpGraphs));
  }
  if (!options.record.empty()) {
    NN_ASSIGN_OR_RETURN(stack.recorder, middleware::Recorder::open(options.record));
    stack.devices = middleware::recordDevices(std::move(stack.devices), stack.recorder);
  }
  return stack;
}

}  // namespace nnremote::emulator
