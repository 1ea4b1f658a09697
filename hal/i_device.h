// A device: the entry point of a HAL driver. The simulator, the proxy driver and anything the
// emulator serves implement this one interface.
#ifndef NNREMOTE_HAL_I_DEVICE_H_
#define NNREMOTE_HAL_I_DEVICE_H_

#include <string>
#include <utility>
#include <vector>

#include "hal/i_buffer.h"
#include "hal/i_prepared_model.h"
#include "hal/types.h"

namespace nnremote::hal {

// The most cache files of each kind a device may need (as the HAL's constant): a runtime opens
// that many files per compilation it caches.
constexpr uint32_t kMaxNumberOfCacheFiles = 32;

class IDevice {
 public:
  virtual ~IDevice() = default;

  // "{VENDOR}-{DEVICE_NAME}", unique among the devices a process sees.
  virtual const std::string& getName() const = 0;
  virtual const std::string& getVersionString() const = 0;
  virtual Version getFeatureLevel() const = 0;
  virtual DeviceType getType() const = 0;
  virtual const std::vector<Extension>& getSupportedExtensions() const = 0;
  virtual const Capabilities& getCapabilities() const = 0;
  // {model cache files, data cache files}; {0, 0} when the device does not cache. At most
  // kMaxNumberOfCacheFiles each.
  virtual std::pair<uint32_t, uint32_t> getNumberOfCacheFilesNeeded() const = 0;

  // One entry per operation of model.main, true where this device can run it.
  virtual Result<std::vector<bool>> getSupportedOperations(const Model& model) const = 0;

  virtual Result<SharedPreparedModel> prepareModel(const Model& model,
                                                   ExecutionPreference preference,
                                                   Priority priority,
                                                   const OptionalTimePoint& deadline,
                                                   const std::vector<CacheFile>& modelCache,
                                                   const std::vector<CacheFile>& dataCache,
                                                   const CacheToken& token) const = 0;

  virtual Result<SharedPreparedModel> prepareModelFromCache(
      const OptionalTimePoint& deadline, const std::vector<CacheFile>& modelCache,
      const std::vector<CacheFile>& dataCache, const CacheToken& token) const = 0;

  virtual Result<SharedBuffer> allocate(const BufferDesc& desc,
                                        const std::vector<SharedPreparedModel>& preparedModels,
                                        const std::vector<BufferRole>& inputRoles,
                                        const std::vector<BufferRole>& outputRoles) const = 0;
};

using SharedDevice = std::shared_ptr<const IDevice>;

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_I_DEVICE_H_
