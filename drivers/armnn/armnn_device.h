// Arm NN behind the HAL: a device that lowers hal::Models to ::armnn::INetworks
// (model_lowering.h), lets Arm NN place them on its backends (CpuRef here; CpuAcc, GpuAcc and NPU
// backends such as Ethos-N on Arm boards), and executes them through Arm NN's runtime with
// measured timing. Served by npu_emulator --backend=armnn_backend.so[:BACKENDS].
#ifndef NNREMOTE_DRIVERS_ARMNN_ARMNN_DEVICE_H_
#define NNREMOTE_DRIVERS_ARMNN_ARMNN_DEVICE_H_

#include <armnn/ArmNN.hpp>

#include <memory>
#include <string>
#include <vector>

#include "hal/i_device.h"

namespace nnremote::armnn {

class ArmnnDevice final : public hal::IDevice {
 public:
  // `backends`: Arm NN backend ids in order of preference, all available in `runtime`.
  ArmnnDevice(std::shared_ptr<::armnn::IRuntime> runtime, std::vector<::armnn::BackendId> backends);

  const std::string& getName() const override { return name_; }
  const std::string& getVersionString() const override { return version_; }
  hal::Version getFeatureLevel() const override { return hal::Version::FEATURE_LEVEL_7; }
  hal::DeviceType getType() const override;
  const std::vector<hal::Extension>& getSupportedExtensions() const override { return extensions_; }
  const hal::Capabilities& getCapabilities() const override { return capabilities_; }
  std::pair<uint32_t, uint32_t> getNumberOfCacheFilesNeeded() const override { return {0, 0}; }

  // An operation is supported when it lowers and Arm NN places it alone on one of the backends
  // (::armnn::Optimize asks each backend's own layer support).
  hal::Result<std::vector<bool>> getSupportedOperations(const hal::Model& model) const override;
  hal::Result<hal::SharedPreparedModel> prepareModel(const hal::Model& model, hal::ExecutionPreference preference,
                                                     hal::Priority priority, const hal::OptionalTimePoint& deadline,
                                                     const std::vector<hal::CacheFile>& modelCache,
                                                     const std::vector<hal::CacheFile>& dataCache,
                                                     const hal::CacheToken& token) const override;
  hal::Result<hal::SharedPreparedModel> prepareModelFromCache(const hal::OptionalTimePoint& deadline,
                                                              const std::vector<hal::CacheFile>& modelCache,
                                                              const std::vector<hal::CacheFile>& dataCache,
                                                              const hal::CacheToken& token) const override;
  hal::Result<hal::SharedBuffer> allocate(const hal::BufferDesc& desc,
                                          const std::vector<hal::SharedPreparedModel>& preparedModels,
                                          const std::vector<hal::BufferRole>& inputRoles,
                                          const std::vector<hal::BufferRole>& outputRoles) const override;

 private:
  const std::shared_ptr<::armnn::IRuntime> runtime_;
  const std::vector<::armnn::BackendId> backends_;
  const std::string name_;
  const std::string version_;
  const std::vector<hal::Extension> extensions_;
  const hal::Capabilities capabilities_;
};

}  // namespace nnremote::armnn

#endif  // NNREMOTE_DRIVERS_ARMNN_ARMNN_DEVICE_H_
