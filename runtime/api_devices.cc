// The NDK's device functions and runtime-wide queries.
#include <android/NeuralNetworks.h>
#include <android/NeuralNetworksExtensions.h>

#include <algorithm>
#include <cstring>

#include "runtime/handles.h"
#include "runtime/result_codes.h"

using nnremote::runtime::DeviceRegistry;
using nnremote::runtime::fromHandle;
using nnremote::runtime::refuse;
using nnremote::runtime::toHandle;

namespace {

// Every function of feature levels 1 to 5 is implemented (6 to 8 added none), and the model rules
// (hal's operation table) go up to feature level 7, as far as the devices do.
constexpr int64_t kRuntimeFeatureLevel = ANEURALNETWORKS_FEATURE_LEVEL_7;

// The device behind a handle the program gives, or null if it is not one of ours.
const nnremote::runtime::RuntimeDevice* known(const ANeuralNetworksDevice* device) {
  const auto* ours = fromHandle(device);
  return DeviceRegistry::instance().owns(ours) ? ours : nullptr;
}

}  // namespace

extern "C" {

int ANeuralNetworks_getDeviceCount(uint32_t* numDevices) {
  if (numDevices == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "numDevices is NULL");
  *numDevices = static_cast<uint32_t>(DeviceRegistry::instance().devices().size());
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworks_getDevice(uint32_t devIndex, ANeuralNetworksDevice** device) {
  if (device == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "device is NULL");
  const auto& devices = DeviceRegistry::instance().devices();
  if (devIndex >= devices.size()) {
    *device = nullptr;
    return refuse(__func__, ANEURALNETWORKS_BAD_DATA,
                  "devIndex " + std::to_string(devIndex) + " is not below " + std::to_string(devices.size()));
  }
  *device = toHandle(devices[devIndex].get());
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksDevice_getName(const ANeuralNetworksDevice* device, const char** name) {
  if (device == nullptr || name == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  const auto* ours = known(device);
  if (ours == nullptr) return refuse(__func__, ANEURALNETWORKS_BAD_DATA, "not a device of this runtime");
  *name = ours->name().c_str();
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksDevice_getType(const ANeuralNetworksDevice* device, int32_t* type) {
  if (device == nullptr || type == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  const auto* ours = known(device);
  if (ours == nullptr) return refuse(__func__, ANEURALNETWORKS_BAD_DATA, "not a device of this runtime");
  *type = static_cast<int32_t>(ours->device->getType());  // hal::DeviceType has the NDK's values
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksDevice_getVersion(const ANeuralNetworksDevice* device, const char** version) {
  if (device == nullptr || version == nullptr) {
    return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  }
  const auto* ours = known(device);
  if (ours == nullptr) return refuse(__func__, ANEURALNETWORKS_BAD_DATA, "not a device of this runtime");
  *version = ours->device->getVersionString().c_str();
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksDevice_getFeatureLevel(const ANeuralNetworksDevice* device, int64_t* featureLevel) {
  if (device == nullptr || featureLevel == nullptr) {
    return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  }
  const auto* ours = known(device);
  if (ours == nullptr) return refuse(__func__, ANEURALNETWORKS_BAD_DATA, "not a device of this runtime");
  // hal::Version has the NDK's values. The NDK: a device's level is "always less than or equal
  // to the runtime feature level".
  *featureLevel = std::min(static_cast<int64_t>(ours->device->getFeatureLevel()), kRuntimeFeatureLevel);
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksDevice_wait(const ANeuralNetworksDevice* device) {
  if (device == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "device is NULL");
  const auto* ours = known(device);
  if (ours == nullptr) return refuse(__func__, ANEURALNETWORKS_BAD_DATA, "not a device of this runtime");
  if (ours->connection == nullptr) return ANEURALNETWORKS_NO_ERROR;  // nnapi-reference is always there
  // A remote device is ready when its server has a session for us, a new one if it was lost.
  auto session = ours->connection->session();
  if (!session.ok()) return refuse(__func__, ANEURALNETWORKS_UNAVAILABLE_DEVICE, session.error().message);
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksDevice_getExtensionSupport(const ANeuralNetworksDevice* device, const char* extensionName,
                                              bool* isExtensionSupported) {
  if (device == nullptr || extensionName == nullptr || isExtensionSupported == nullptr) {
    return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  }
  const auto* ours = known(device);
  if (ours == nullptr) return refuse(__func__, ANEURALNETWORKS_BAD_DATA, "not a device of this runtime");
  *isExtensionSupported = false;
  for (const auto& extension : ours->device->getSupportedExtensions()) {
    if (extension.name == extensionName) *isExtensionSupported = true;
  }
  return ANEURALNETWORKS_NO_ERROR;
}

int64_t ANeuralNetworks_getRuntimeFeatureLevel(void) { return kRuntimeFeatureLevel; }

uint64_t ANeuralNetworks_getDefaultLoopTimeout(void) { return nnremote::runtime::kDefaultLoopTimeoutNs; }

uint64_t ANeuralNetworks_getMaximumLoopTimeout(void) { return nnremote::runtime::kMaximumLoopTimeoutNs; }

}  // extern "C"
