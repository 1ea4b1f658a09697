// A backend library for backend_loader_test: what it does is chosen by its argument.
//   throw-in-factory  the factory throws
//   fail              the factory returns an error
//   none              the factory returns no devices
//   engines=N         as below, declaring N engines
//   cache-files=N     as below, needing N model cache files
//   broken-answers    as below, but preparing and allocating succeed without an object (null),
//                     and getSupportedOperations answers for one operation too few (one too
//                     many for a model without operations)
//   (anything else)   one device, "test-throwing", whose every call into it throws, except
//                     getSupportedOperations, which answers (all supported)
#include <stdexcept>
#include <string>

#include "hal/backend_abi.h"
#include "hal/execution_adapters.h"

namespace nnremote::testing {
namespace {

class ThrowingPreparedModel final : public hal::SyncExecutionPreparedModel {
 public:
  hal::Result<hal::ExecutionOutcome> execute(const hal::Request&, hal::MeasureTiming, const hal::OptionalTimePoint&,
                                             const hal::OptionalDuration&) const override {
    throw std::runtime_error("the board stopped answering");
  }
};

class ThrowingDevice final : public hal::IDevice {
 public:
  uint32_t modelCacheFiles = 0;
  bool brokenAnswers = false;

  const std::string& getName() const override { return name_; }
  const std::string& getVersionString() const override { return version_; }
  hal::Version getFeatureLevel() const override { return hal::Version::FEATURE_LEVEL_4; }
  hal::DeviceType getType() const override { return hal::DeviceType::ACCELERATOR; }
  const std::vector<hal::Extension>& getSupportedExtensions() const override { return extensions_; }
  const hal::Capabilities& getCapabilities() const override { return capabilities_; }
  std::pair<uint32_t, uint32_t> getNumberOfCacheFilesNeeded() const override { return {modelCacheFiles, 0}; }
  hal::Result<std::vector<bool>> getSupportedOperations(const hal::Model& model) const override {
    const size_t count = model.main.operations.size();
    if (!brokenAnswers) return std::vector<bool>(count, true);
    // One answer too few; for a model without operations, one too many: wrong either way.
    return std::vector<bool>(count == 0 ? 1 : count - 1, true);
  }
  // Prepares with LOW_POWER; throws with any other preference, so both paths can be tested.
  hal::Result<hal::SharedPreparedModel> prepareModel(const hal::Model&, hal::ExecutionPreference preference,
                                                     hal::Priority, const hal::OptionalTimePoint&,
                                                     const std::vector<hal::CacheFile>&,
                                                     const std::vector<hal::CacheFile>&,
                                                     const hal::CacheToken&) const override {
    if (brokenAnswers) return hal::SharedPreparedModel();
    if (preference != hal::ExecutionPreference::LOW_POWER) throw std::logic_error("no compiler on this board");
    return hal::SharedPreparedModel(std::make_shared<ThrowingPreparedModel>());
  }
  hal::Result<hal::SharedPreparedModel> prepareModelFromCache(const hal::OptionalTimePoint&,
                                                              const std::vector<hal::CacheFile>&,
                                                              const std::vector<hal::CacheFile>&,
                                                              const hal::CacheToken&) const override {
    throw 42;  // not even a std::exception
  }
  hal::Result<hal::SharedBuffer> allocate(const hal::BufferDesc&, const std::vector<hal::SharedPreparedModel>&,
                                          const std::vector<hal::BufferRole>&,
                                          const std::vector<hal::BufferRole>&) const override {
    if (brokenAnswers) return hal::SharedBuffer();
    throw std::bad_alloc();
  }

 private:
  const std::string name_ = "test-throwing";
  const std::string version_ = "1";
  const std::vector<hal::Extension> extensions_{};
  const hal::Capabilities capabilities_{};
};

hal::Result<std::vector<hal::BackendDevice>> createTestDevices(const hal::BackendArguments& arguments) {
  if (arguments.argument == "throw-in-factory") throw std::runtime_error("the board is not connected");
  if (arguments.argument == "fail") {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "no board answers on /dev/npu0";
  }
  if (arguments.argument == "none") return std::vector<hal::BackendDevice>{};
  auto throwing = std::make_shared<ThrowingDevice>();
  hal::BackendDevice device;
  if (arguments.argument.rfind("engines=", 0) == 0) {
    device.engines = static_cast<uint32_t>(std::stoul(arguments.argument.substr(8)));
  }
  if (arguments.argument.rfind("cache-files=", 0) == 0) {
    throwing->modelCacheFiles = static_cast<uint32_t>(std::stoul(arguments.argument.substr(12)));
  }
  throwing->brokenAnswers = arguments.argument == "broken-answers";
  device.device = std::move(throwing);
  return std::vector<hal::BackendDevice>{std::move(device)};
}

}  // namespace
}  // namespace nnremote::testing

NNREMOTE_DEFINE_BACKEND(nnremote::testing::createTestDevices)
