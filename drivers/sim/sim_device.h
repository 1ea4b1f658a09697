// The simulated NPU as a HAL device, in process. It computes as fast as the host can and reports
// simulated timing; the emulator puts a middleware::ScheduledDevice in front of it, which makes it
// one busy device shared by all clients (queueing, priorities, deadlines, pacing).
#ifndef NNREMOTE_DRIVERS_SIM_SIM_DEVICE_H_
#define NNREMOTE_DRIVERS_SIM_SIM_DEVICE_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "drivers/sim/constant_store.h"
#include "drivers/sim/npu_config.h"
#include "hal/backend_abi.h"
#include "hal/compilation_cache.h"
#include "hal/i_device.h"

namespace nnremote::sim {

// The simulated time a preparation occupies the device: its constants loaded into device
// memory over the DRAM interface.
hal::Duration preparationTime(const hal::Model& model, const NpuConfig& npu);

// The simulated NPU as a backend device: the device, its engines, and its preparation time.
// What npu_emulator serves for --config, and sim_backend.so for --backend.
hal::BackendDevice simBackendDevice(const NpuConfig& npu, const hal::CacheSecret& cacheSecret);

class SimDevice final : public hal::IDevice {
 public:
  // kDriver, a driver's usual answers: the operations whose kernels accept the model's constant
  // parameters. kCpuFallback, as Android's CPU device (its runtime's fallback) answers: every
  // valid operation it has a kernel for, its parameters checked when it runs (an operation with a
  // bad constant parameter is prepared and fails its executions with GENERAL_FAILURE). Neither
  // allocates a buffer of unknown size (GENERAL_FAILURE), as neither Android's CPU device nor its
  // sample driver does.
  enum class Role { kDriver, kCpuFallback };

  // `cacheSecret` seals the compilation caches this device writes; a server passes the one from
  // its state directory so caches outlive it.
  static std::shared_ptr<SimDevice> create(NpuConfig npu, hal::CacheSecret cacheSecret = hal::randomCacheSecret(),
                                           Role role = Role::kDriver);

  SimDevice(NpuConfig npu, hal::CacheSecret cacheSecret, Role role = Role::kDriver);

  const std::string& getName() const override { return name_; }
  const std::string& getVersionString() const override { return versionString_; }
  hal::Version getFeatureLevel() const override { return hal::Version::FEATURE_LEVEL_7; }
  hal::DeviceType getType() const override { return halDeviceType(npu_); }
  const std::vector<hal::Extension>& getSupportedExtensions() const override { return extensions_; }
  const hal::Capabilities& getCapabilities() const override { return capabilities_; }
  std::pair<uint32_t, uint32_t> getNumberOfCacheFilesNeeded() const override;

  hal::Result<std::vector<bool>> getSupportedOperations(const hal::Model& model) const override;

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

  const NpuConfig& npu() const { return npu_; }

 private:
  // Writes the artifact of `model` (prepared) to the cache; best effort, as the HAL allows.
  hal::Status saveToCache(const hal::Model& model, const std::vector<hal::CacheFile>& modelCache,
                          const std::vector<hal::CacheFile>& dataCache, const hal::CacheToken& token) const;
  hal::Result<hal::Model> loadFromCache(const std::vector<hal::CacheFile>& modelCache,
                                        const std::vector<hal::CacheFile>& dataCache,
                                        const hal::CacheToken& token) const;
  hal::Status checkPreparable(const hal::Model& model) const;

  NpuConfig npu_;
  hal::CacheSecret cacheSecret_;
  Role role_;
  ConstantStore constantStore_;
  mutable std::mutex bufferMutex_;
  mutable uint32_t nextToken_ = 1;
  std::string name_;
  std::string versionString_;
  std::vector<hal::Extension> extensions_;
  std::vector<std::string> extensionNames_;
  hal::Capabilities capabilities_;
};

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_SIM_DEVICE_H_
