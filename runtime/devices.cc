#include "runtime/devices.h"

#include <algorithm>
#include <cstdlib>
#include <future>
#include <iostream>
#include <system_error>

#include "drivers/sim/sim_device.h"
#include "wire/wire_constants.h"
#include "drivers/proxy/channel_security.h"
#include "drivers/proxy/proxy_device.h"

namespace nnremote::runtime {
namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

hal::SharedDevice makeReferenceDevice() {
  sim::NpuConfig npu = sim::edgeNpuConfig();
  npu.set_vendor("nnapi");
  npu.set_device_name("reference");
  npu.set_device_type(sim::CPU);
  // Answers as Android's CPU device: every valid operation compiles (a bad parameter fails the
  // execution); no device memory of unknown size.
  return sim::SimDevice::create(npu, hal::randomCacheSecret(), sim::SimDevice::Role::kCpuFallback);
}

std::vector<std::string> DeviceRegistry::targetsFromEnvironment() {
  const char* list = std::getenv("NNREMOTE_TARGETS");
  if (list == nullptr) return {wire::kDefaultServerAddress};
  std::vector<std::string> targets;
  std::string current;
  for (const char* c = list;; ++c) {
    if (*c == ',' || *c == '\0') {
      if (!current.empty() && std::find(targets.begin(), targets.end(), current) == targets.end()) {
        targets.push_back(current);
      }
      current.clear();
      if (*c == '\0') break;
    } else if (*c != ' ') {
      current += *c;
    }
  }
  return targets;
}

hal::Result<proxy::ConnectionOptions> DeviceRegistry::connectionOptionsFromEnvironment() {
  proxy::ConnectionOptions options;
  options.clientName = "libneuralnetworks";
  options.reconnect = std::getenv("NNREMOTE_NO_RECONNECT") == nullptr;
  NN_ASSIGN_OR_RETURN(options.security,
                      proxy::readChannelSecurity({environment("NNREMOTE_TLS_CA"), environment("NNREMOTE_TLS_CERT"),
                                                  environment("NNREMOTE_TLS_KEY"),
                                                  environment("NNREMOTE_TLS_SERVER_NAME"),
                                                  environment("NNREMOTE_TOKEN_FILE")},
                                                 "NNREMOTE_", proxy::OptionNames::kEnvironment));
  return options;
}

DeviceRegistry& DeviceRegistry::instance() {
  static DeviceRegistry* registry = new DeviceRegistry();  // never destroyed: devices outlive static teardown
  return *registry;
}

DeviceRegistry::DeviceRegistry() {
  auto options = connectionOptionsFromEnvironment();
  if (!options.ok()) {
    std::cerr << "libneuralnetworks: no remote devices: " << options.error().message << "\n";
  } else {
    // Every target at once, so that one that does not answer delays the program by one connection
    // timeout, not one per target; the devices are listed in the targets' order.
    struct Found {
      std::shared_ptr<proxy::Connection> connection;
      std::vector<hal::SharedDevice> devices;
    };
    std::vector<std::pair<std::string, std::future<hal::Result<Found>>>> lookups;
    for (const std::string& target : targetsFromEnvironment()) {
      auto find = [target, &options]() -> hal::Result<Found> {
        NN_ASSIGN_OR_RETURN(auto connection, proxy::Connection::connect(target, *options));
        NN_ASSIGN_OR_RETURN(auto devices, proxy::ProxyDevice::discover(connection));
        return Found{std::move(connection), {devices.begin(), devices.end()}};
      };
      std::future<hal::Result<Found>> lookup;
      try {
        lookup = std::async(std::launch::async, find);
      } catch (const std::system_error&) {  // no thread to be had (RLIMIT_NPROC): in turn, below
        lookup = std::async(std::launch::deferred, find);
      }
      lookups.emplace_back(target, std::move(lookup));
    }
    for (auto& [target, lookup] : lookups) {
      auto found = lookup.get();
      if (!found.ok()) {
        std::cerr << "libneuralnetworks: no devices from " << target << ": " << found.error().message << "\n";
        continue;
      }
      for (auto& device : found->devices) {
        devices_.push_back(std::make_unique<RuntimeDevice>(RuntimeDevice{device, found->connection, false, {}}));
        if (taken(device->getName(), devices_.size() - 1)) devices_.back()->renamed = device->getName() + "@" + target;
      }
    }
  }
  devices_.push_back(std::make_unique<RuntimeDevice>(RuntimeDevice{makeReferenceDevice(), nullptr, true, {}}));
}

bool DeviceRegistry::taken(const std::string& name, size_t before) const {
  if (name == kReferenceDeviceName) return true;
  for (size_t i = 0; i < before; ++i) {
    if (devices_[i]->name() == name) return true;
  }
  return false;
}

bool DeviceRegistry::owns(const RuntimeDevice* device) const {
  for (const auto& ours : devices_) {
    if (ours.get() == device) return true;
  }
  return false;
}

}  // namespace nnremote::runtime
