// A device for runtime tests that refuses what its script says: a decorator (over the simulated
// NPU, say) that claims not to support some operation types, and fails to prepare models with
// others, with the status given (INVALID_ARGUMENT for a bad argument, GENERAL_FAILURE for a device
// that fails).
#ifndef NNREMOTE_TESTS_RUNTIME_SCRIPTED_DEVICE_H_
#define NNREMOTE_TESTS_RUNTIME_SCRIPTED_DEVICE_H_

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hal/forwarding_device.h"
#include "hal/operand_types.h"

namespace nnremote::testing {

struct DeviceScript {
  std::string name;  // empty: the inner device's
  std::set<hal::OperationType> unsupported;
  std::map<hal::OperationType, hal::ErrorStatus> failsToPrepare;
};

class ScriptedDevice : public hal::ForwardingDevice {
 public:
  ScriptedDevice(hal::SharedDevice inner, DeviceScript script)
      : ForwardingDevice(std::move(inner)), script_(std::move(script)) {}

  const std::string& getName() const override {
    return script_.name.empty() ? ForwardingDevice::getName() : script_.name;
  }
  hal::Result<std::vector<bool>> getSupportedOperations(const hal::Model& model) const override {
    NN_ASSIGN_OR_RETURN(std::vector<bool> supported, ForwardingDevice::getSupportedOperations(model));
    for (size_t i = 0; i < supported.size(); ++i) {
      supported[i] = supported[i] && script_.unsupported.count(model.main.operations[i].type) == 0;
    }
    return supported;
  }
  hal::Result<hal::SharedPreparedModel> prepareModel(const hal::Model& model, hal::ExecutionPreference preference,
                                                     hal::Priority priority, const hal::OptionalTimePoint& deadline,
                                                     const std::vector<hal::CacheFile>& modelCache,
                                                     const std::vector<hal::CacheFile>& dataCache,
                                                     const hal::CacheToken& token) const override {
    for (const hal::Operation& operation : model.main.operations) {
      const auto fails = script_.failsToPrepare.find(operation.type);
      if (fails != script_.failsToPrepare.end()) {
        return hal::makeError(fails->second)
               << getName() << " is scripted to fail preparing " << hal::toString(operation.type);
      }
    }
    return ForwardingDevice::prepareModel(model, preference, priority, deadline, modelCache, dataCache, token);
  }

 private:
  const DeviceScript script_;
};

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTS_RUNTIME_SCRIPTED_DEVICE_H_
