// A base for device decorators (scheduling, fault injection, ...): every IDevice method passes
// to the wrapped device, so a decorator overrides only what it changes.
#ifndef NNREMOTE_HAL_FORWARDING_DEVICE_H_
#define NNREMOTE_HAL_FORWARDING_DEVICE_H_

#include <string>
#include <utility>
#include <vector>

#include "hal/i_device.h"

namespace nnremote::hal {

class ForwardingDevice : public IDevice {
 public:
  explicit ForwardingDevice(SharedDevice inner) : inner_(std::move(inner)) {}

  const SharedDevice& inner() const { return inner_; }

  const std::string& getName() const override { return inner_->getName(); }
  const std::string& getVersionString() const override { return inner_->getVersionString(); }
  Version getFeatureLevel() const override { return inner_->getFeatureLevel(); }
  DeviceType getType() const override { return inner_->getType(); }
  const std::vector<Extension>& getSupportedExtensions() const override { return inner_->getSupportedExtensions(); }
  const Capabilities& getCapabilities() const override { return inner_->getCapabilities(); }
  std::pair<uint32_t, uint32_t> getNumberOfCacheFilesNeeded() const override {
    return inner_->getNumberOfCacheFilesNeeded();
  }
  Result<std::vector<bool>> getSupportedOperations(const Model& model) const override {
    return inner_->getSupportedOperations(model);
  }
  Result<SharedPreparedModel> prepareModel(const Model& model, ExecutionPreference preference, Priority priority,
                                           const OptionalTimePoint& deadline, const std::vector<CacheFile>& modelCache,
                                           const std::vector<CacheFile>& dataCache,
                                           const CacheToken& token) const override {
    return inner_->prepareModel(model, preference, priority, deadline, modelCache, dataCache, token);
  }
  Result<SharedPreparedModel> prepareModelFromCache(const OptionalTimePoint& deadline,
                                                    const std::vector<CacheFile>& modelCache,
                                                    const std::vector<CacheFile>& dataCache,
                                                    const CacheToken& token) const override {
    return inner_->prepareModelFromCache(deadline, modelCache, dataCache, token);
  }
  Result<SharedBuffer> allocate(const BufferDesc& desc, const std::vector<SharedPreparedModel>& preparedModels,
                                const std::vector<BufferRole>& inputRoles,
                                const std::vector<BufferRole>& outputRoles) const override {
    return inner_->allocate(desc, preparedModels, inputRoles, outputRoles);
  }

 private:
  const SharedDevice inner_;
};

// A decorator that wraps the prepared models it hands out gets its own wrappers back in
// allocate(); the inner device knows only its own prepared models. `Wrapper::inner()` returns
// the wrapped one.
template <typename Wrapper>
std::vector<SharedPreparedModel> unwrapPreparedModels(const std::vector<SharedPreparedModel>& preparedModels) {
  std::vector<SharedPreparedModel> unwrapped;
  unwrapped.reserve(preparedModels.size());
  for (const auto& preparedModel : preparedModels) {
    const auto* wrapper = dynamic_cast<const Wrapper*>(preparedModel.get());
    unwrapped.push_back(wrapper != nullptr ? wrapper->inner() : preparedModel);
  }
  return unwrapped;
}

// The first decorator of type `Decorator` in a chain of ForwardingDevices, from `device` inwards;
// nullptr if there is none. How the server finds a device's scheduler or supervisor under
// whatever decorators wrap them.
template <typename Decorator>
const Decorator* findDecorator(const IDevice* device) {
  while (device != nullptr) {
    if (const auto* found = dynamic_cast<const Decorator*>(device)) return found;
    const auto* decorator = dynamic_cast<const ForwardingDevice*>(device);
    device = decorator != nullptr ? decorator->inner().get() : nullptr;
  }
  return nullptr;
}

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_FORWARDING_DEVICE_H_
