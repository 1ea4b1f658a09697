// A remote device as a hal::IDevice: every call becomes an RPC to the npu_emulator.
#ifndef NNREMOTE_DRIVERS_PROXY_PROXY_DEVICE_H_
#define NNREMOTE_DRIVERS_PROXY_PROXY_DEVICE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hal/i_device.h"
#include "drivers/proxy/connection.h"

// The wire's messages (wire/nnremote.pb.h), declared: users of a device need not compile the
// protocol.
namespace nnremote::wire {
class BackendHostHealth;
class DeviceInfo;
}  // namespace nnremote::wire

namespace nnremote::proxy {

class ProxyDevice final : public hal::IDevice {
 public:
  // One ProxyDevice per device the server at `connection` serves.
  static hal::Result<std::vector<std::shared_ptr<ProxyDevice>>> discover(
      std::shared_ptr<Connection> connection);

  ProxyDevice(std::shared_ptr<Connection> connection, const wire::DeviceInfo& info);

  const std::string& getName() const override { return name_; }
  const std::string& getVersionString() const override { return versionString_; }
  hal::Version getFeatureLevel() const override { return featureLevel_; }
  hal::DeviceType getType() const override { return type_; }
  const std::vector<hal::Extension>& getSupportedExtensions() const override { return extensions_; }
  const hal::Capabilities& getCapabilities() const override { return capabilities_; }
  std::pair<uint32_t, uint32_t> getNumberOfCacheFilesNeeded() const override {
    return cacheFilesNeeded_;
  }

  hal::Result<std::vector<bool>> getSupportedOperations(const hal::Model& model) const override;

  // How the server's backend host for this device was when it was discovered; null for a
  // device the server runs in its own process (docs/backends.md#isolation).
  const wire::BackendHostHealth* backendHost() const { return backendHost_.get(); }

  hal::Result<hal::SharedPreparedModel> prepareModel(
      const hal::Model& model, hal::ExecutionPreference preference, hal::Priority priority,
      const hal::OptionalTimePoint& deadline, const std::vector<hal::CacheFile>& modelCache,
      const std::vector<hal::CacheFile>& dataCache, const hal::CacheToken& token) const override;

  hal::Result<hal::SharedPreparedModel> prepareModelFromCache(
      const hal::OptionalTimePoint& deadline, const std::vector<hal::CacheFile>& modelCache,
      const std::vector<hal::CacheFile>& dataCache, const hal::CacheToken& token) const override;

  hal::Result<hal::SharedBuffer> allocate(
      const hal::BufferDesc& desc, const std::vector<hal::SharedPreparedModel>& preparedModels,
      const std::vector<hal::BufferRole>& inputRoles,
      const std::vector<hal::BufferRole>& outputRoles) const override;

 private:
  std::shared_ptr<Connection> connection_;
  std::string name_;
  std::string versionString_;
  hal::Version featureLevel_;
  hal::DeviceType type_;
  std::vector<hal::Extension> extensions_;
  hal::Capabilities capabilities_;
  std::pair<uint32_t, uint32_t> cacheFilesNeeded_;
  std::shared_ptr<const wire::BackendHostHealth> backendHost_;
};

}  // namespace nnremote::proxy

#endif  // NNREMOTE_DRIVERS_PROXY_PROXY_DEVICE_H_
