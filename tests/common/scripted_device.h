// A device for tests that refuses what its script says: a decorator (over the simulated
// NPU, say) that claims not to support some operation types, fails to prepare models with
// others, with the status given (INVALID_ARGUMENT for a bad argument, GENERAL_FAILURE for a device
// that fails), and may fail every execution with one status, hold executions at a gate, or answer
// successful ones with no output shapes or broken ones.
#ifndef NNREMOTE_TESTS_COMMON_SCRIPTED_DEVICE_H_
#define NNREMOTE_TESTS_COMMON_SCRIPTED_DEVICE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hal/execution_adapters.h"
#include "hal/forwarding_device.h"
#include "hal/operand_types.h"

namespace nnremote::testing {

// Holds executions at a device while closed, so that a test can look at an execution while it
// runs. Every wait is bounded: a test that forgets to open it fails rather than hangs.
class ExecutionGate {
 public:
  static constexpr std::chrono::seconds kBound{30};

  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = false;
    arrived_ = 0;
  }
  void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  // Whether an execution reached the gate since it closed (waiting for one up to kBound).
  bool awaitArrival() {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, kBound, [this] { return arrived_ > 0; });
  }
  // Where an execution waits.
  void pass() {
    std::unique_lock<std::mutex> lock(mutex_);
    ++arrived_;
    changed_.notify_all();
    changed_.wait_for(lock, kBound, [this] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = true;
  int arrived_ = 0;
};

struct DeviceScript {
  std::string name;  // empty: the inner device's
  std::set<hal::OperationType> unsupported;
  std::map<hal::OperationType, hal::ErrorStatus> failsToPrepare;
  // Every execution of a model it prepared, by any executor, fails with this status (for
  // OUTPUT_INSUFFICIENT_SIZE, every output too small for its declared shape); NONE: they run.
  hal::ErrorStatus failsToExecute = hal::ErrorStatus::NONE;
  // When set, every execution passes it first.
  std::shared_ptr<ExecutionGate> gate;
  // What a successful execution answers as its output shapes: what the device computed; none
  // (which the HAL allows); or, a broken answer, the first marked insufficient.
  enum class Shapes { kComputed, kNone, kFirstInsufficient } shapesOnSuccess = Shapes::kComputed;
};

// A prepared model that fails or holds executions as its device's script says; every executor
// comes from its execute.
class ScriptedPreparedModel : public hal::SyncExecutionPreparedModel {
 public:
  ScriptedPreparedModel(hal::SharedPreparedModel inner, const hal::Model& model, const DeviceScript& script)
      : inner_(std::move(inner)),
        failsWith_(script.failsToExecute),
        gate_(script.gate),
        shapesOnSuccess_(script.shapesOnSuccess) {
    for (uint32_t output : model.main.outputIndexes)
      outputShapes_.push_back({model.main.operands[output].dimensions, false});
  }
  hal::Result<hal::ExecutionOutcome> execute(const hal::Request& request, hal::MeasureTiming measure,
                                             const hal::OptionalTimePoint& deadline,
                                             const hal::OptionalDuration& loopTimeout) const override {
    if (gate_ != nullptr) gate_->pass();
    if (failsWith_ == hal::ErrorStatus::NONE) {
      auto outcome = inner_->execute(request, measure, deadline, loopTimeout);
      if (outcome.ok() && shapesOnSuccess_ == DeviceScript::Shapes::kNone) outcome->outputShapes.clear();
      if (outcome.ok() && !outcome->outputShapes.empty()) {
        if (shapesOnSuccess_ == DeviceScript::Shapes::kFirstInsufficient) outcome->outputShapes[0].isSufficient = false;
      }
      return outcome;
    }
    hal::Error error = hal::makeError(failsWith_) << "scripted to fail every execution";
    if (failsWith_ == hal::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) error.outputShapes = outputShapes_;
    return error;
  }
  const hal::Model* getModel() const override { return inner_->getModel(); }

 private:
  const hal::SharedPreparedModel inner_;
  const hal::ErrorStatus failsWith_;
  const std::shared_ptr<ExecutionGate> gate_;
  const DeviceScript::Shapes shapesOnSuccess_;
  std::vector<hal::OutputShape> outputShapes_;
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
    ++prepareCalls_;
    for (const hal::Operation& operation : model.main.operations) {
      const auto fails = script_.failsToPrepare.find(operation.type);
      if (fails != script_.failsToPrepare.end()) {
        return hal::makeError(fails->second)
               << getName() << " is scripted to fail preparing " << hal::toString(operation.type);
      }
    }
    NN_ASSIGN_OR_RETURN(
        hal::SharedPreparedModel prepared,
        ForwardingDevice::prepareModel(model, preference, priority, deadline, modelCache, dataCache, token));
    if (script_.failsToExecute == hal::ErrorStatus::NONE && script_.gate == nullptr &&
        script_.shapesOnSuccess == DeviceScript::Shapes::kComputed) {
      return prepared;
    }
    return hal::SharedPreparedModel(std::make_shared<ScriptedPreparedModel>(std::move(prepared), model, script_));
  }

  hal::Result<hal::SharedPreparedModel> prepareModelFromCache(const hal::OptionalTimePoint& deadline,
                                                              const std::vector<hal::CacheFile>& modelCache,
                                                              const std::vector<hal::CacheFile>& dataCache,
                                                              const hal::CacheToken& token) const override {
    ++prepareFromCacheCalls_;
    return ForwardingDevice::prepareModelFromCache(deadline, modelCache, dataCache, token);
  }

  // How often it was asked to prepare a model, and to prepare one from a cache.
  int prepareCalls() const { return prepareCalls_.load(); }
  int prepareFromCacheCalls() const { return prepareFromCacheCalls_.load(); }

 private:
  const DeviceScript script_;
  mutable std::atomic<int> prepareCalls_{0}, prepareFromCacheCalls_{0};
};

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTS_COMMON_SCRIPTED_DEVICE_H_
