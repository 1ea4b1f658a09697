#include "middleware/recording_device.h"

#include <google/protobuf/util/delimited_message_util.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>

#include "hal/execution_adapters.h"
#include "hal/file_contents.h"
#include "hal/forwarding_device.h"
#include "hal/operand_types.h"
#include "wire/conversions.h"

namespace nnremote::middleware {
namespace {

int64_t nanosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
}

// The first `length` bytes a request argument names; empty for an omitted argument. An argument
// in a device buffer cannot be read here: `recorded` says so and replay skips the execution.
std::string argumentContents(const hal::Request& request, const hal::Request::Argument& argument, size_t length,
                             wire::RecordedExecution* recorded) {
  using LifeTime = hal::Request::Argument::LifeTime;
  const uint8_t* bytes = nullptr;
  if (argument.lifetime == LifeTime::POINTER) {
    bytes = static_cast<const uint8_t*>(argument.location.pointer);
  } else if (argument.lifetime == LifeTime::POOL) {
    const auto* memory = std::get_if<hal::SharedMemory>(&request.pools[argument.location.poolIndex]);
    if (memory == nullptr || *memory == nullptr) {
      recorded->set_not_recorded("a device buffer holds an argument");
    } else {
      bytes = (*memory)->data() + argument.location.offset;
    }
  }
  return bytes != nullptr ? std::string(reinterpret_cast<const char*>(bytes), length) : std::string();
}

class RecordingPreparedModel final : public hal::SyncExecutionPreparedModel {
 public:
  RecordingPreparedModel(hal::SharedPreparedModel inner, std::shared_ptr<Recorder> recorder, std::string device,
                         uint64_t modelId)
      : inner_(std::move(inner)), recorder_(std::move(recorder)), device_(std::move(device)), modelId_(modelId) {}
  ~RecordingPreparedModel() override {
    wire::RecordEntry entry;
    entry.mutable_release()->set_model_id(modelId_);
    recorder_->write(entry);
  }

  const hal::SharedPreparedModel& inner() const { return inner_; }
  const hal::Model* getModel() const override { return inner_->getModel(); }

  hal::Result<hal::ExecutionOutcome> execute(const hal::Request& request, hal::MeasureTiming measure,
                                             const hal::OptionalTimePoint& deadline,
                                             const hal::OptionalDuration& loopTimeoutDuration) const override {
    wire::RecordEntry entry;
    wire::RecordedExecution& recorded = *entry.mutable_execution();
    recorded.set_model_id(modelId_);
    recorded.set_device(device_);
    recordInputs(request, &recorded);
    const auto started = std::chrono::steady_clock::now();
    // Timing is always recorded, so a replay can be held against it; the client gets it only if
    // it asked.
    auto outcome = inner_->execute(request, hal::MeasureTiming::YES, deadline, loopTimeoutDuration);
    recorded.set_host_nanos(nanosSince(started));
    if (!outcome.ok()) {
      *recorded.mutable_outcome()->mutable_error() = wire::toWire(outcome.error());
    } else {
      *recorded.mutable_outcome()->mutable_timing() = wire::toWire(outcome->timing);
      recordOutputs(request, *outcome, &recorded);
      if (measure == hal::MeasureTiming::NO) {
        outcome->timing = {};
        outcome->profile.reset();
      }
    }
    recorder_->write(entry);
    return outcome;
  }

 protected:
  hal::Status validateReusableRequest(const hal::Request& request) const override {
    return inner_->createReusableExecution(request, hal::MeasureTiming::NO, std::nullopt).status();
  }

 private:
  void recordInputs(const hal::Request& request, wire::RecordedExecution* recorded) const {
    const hal::Model* model = inner_->getModel();
    for (size_t i = 0; i < request.inputs.size(); ++i) {
      const auto& argument = request.inputs[i];
      recorded->add_inputs(argumentContents(request, argument, argument.location.length, recorded));
      auto* shape = recorded->add_input_shapes();
      const auto& dimensions = !argument.dimensions.empty() || model == nullptr
                                   ? argument.dimensions
                                   : model->main.operands[model->main.inputIndexes[i]].dimensions;
      shape->mutable_dimensions()->Add(dimensions.begin(), dimensions.end());
      shape->set_is_sufficient(argument.lifetime != hal::Request::Argument::LifeTime::NO_VALUE);
    }
  }

  void recordOutputs(const hal::Request& request, const hal::ExecutionOutcome& outcome,
                     wire::RecordedExecution* recorded) const {
    const hal::Model* model = inner_->getModel();
    for (size_t i = 0; i < request.outputs.size(); ++i) {
      const auto& argument = request.outputs[i];
      // As many bytes as the output's actual shape holds, when the model tells its type.
      size_t length = argument.location.length;
      if (model != nullptr && i < outcome.outputShapes.size()) {
        const auto type = model->main.operands[model->main.outputIndexes[i]].type;
        if (auto size = hal::sizeOfData(type, outcome.outputShapes[i].dimensions); size.has_value()) {
          length = std::min<size_t>(length, *size);
        }
      }
      recorded->mutable_outcome()->add_output_data(argumentContents(request, argument, length, recorded));
      *recorded->mutable_outcome()->add_output_shapes() =
          wire::toWire(i < outcome.outputShapes.size() ? outcome.outputShapes[i] : hal::OutputShape{});
    }
  }

  const hal::SharedPreparedModel inner_;
  const std::shared_ptr<Recorder> recorder_;
  const std::string device_;
  const uint64_t modelId_;
};

class RecordingDevice final : public hal::ForwardingDevice {
 public:
  RecordingDevice(hal::SharedDevice inner, std::shared_ptr<Recorder> recorder)
      : ForwardingDevice(std::move(inner)), recorder_(std::move(recorder)) {}

  hal::Result<hal::SharedPreparedModel> prepareModel(const hal::Model& model, hal::ExecutionPreference preference,
                                                     hal::Priority priority, const hal::OptionalTimePoint& deadline,
                                                     const std::vector<hal::CacheFile>& modelCache,
                                                     const std::vector<hal::CacheFile>& dataCache,
                                                     const hal::CacheToken& token) const override {
    const auto started = std::chrono::steady_clock::now();
    auto prepared = inner()->prepareModel(model, preference, priority, deadline, modelCache, dataCache, token);
    return record(&model, std::move(prepared), started);
  }
  hal::Result<hal::SharedPreparedModel> prepareModelFromCache(const hal::OptionalTimePoint& deadline,
                                                              const std::vector<hal::CacheFile>& modelCache,
                                                              const std::vector<hal::CacheFile>& dataCache,
                                                              const hal::CacheToken& token) const override {
    const auto started = std::chrono::steady_clock::now();
    auto prepared = inner()->prepareModelFromCache(deadline, modelCache, dataCache, token);
    // The model comes from the prepared model (no client sent one); a failure has none to record.
    if (!prepared.ok()) return prepared;
    return record((*prepared)->getModel(), std::move(prepared), started);
  }
  hal::Result<hal::SharedBuffer> allocate(const hal::BufferDesc& desc,
                                          const std::vector<hal::SharedPreparedModel>& preparedModels,
                                          const std::vector<hal::BufferRole>& inputRoles,
                                          const std::vector<hal::BufferRole>& outputRoles) const override {
    return inner()->allocate(desc, hal::unwrapPreparedModels<RecordingPreparedModel>(preparedModels), inputRoles,
                             outputRoles);
  }

 private:
  hal::Result<hal::SharedPreparedModel> record(const hal::Model* model, hal::Result<hal::SharedPreparedModel> prepared,
                                               std::chrono::steady_clock::time_point started) const {
    wire::RecordEntry entry;
    wire::RecordedPreparation& recorded = *entry.mutable_preparation();
    const uint64_t modelId = recorder_->nextModelId();
    recorded.set_model_id(modelId);
    recorded.set_device(getName());
    recorded.set_host_nanos(nanosSince(started));
    if (model != nullptr) {
      auto wireModel = wire::toWire(*model);
      if (wireModel.ok()) *recorded.mutable_model() = std::move(wireModel).value();
    }
    if (!prepared.ok()) *recorded.mutable_error() = wire::toWire(prepared.error());
    recorder_->write(entry);
    if (!prepared.ok()) return prepared;
    return hal::SharedPreparedModel(
        std::make_shared<RecordingPreparedModel>(std::move(prepared).value(), recorder_, getName(), modelId));
  }

  const std::shared_ptr<Recorder> recorder_;
};

}  // namespace

hal::Result<std::shared_ptr<Recorder>> Recorder::open(const std::string& directory) {
  if (auto writable = hal::makeWritableDirectory(directory); !writable.ok()) {
    return hal::invalidArgument() << "--record=" << writable.error().message;
  }
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const std::string path = directory + "/" + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now).count()) +
                           "-" + std::to_string(::getpid()) + ".nnrec";
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) {
    return hal::invalidArgument() << "--record=" << directory << ": cannot create " << path << ": "
                                  << std::strerror(errno);
  }
  return std::shared_ptr<Recorder>(new Recorder(path, std::move(file)));
}

void Recorder::write(const wire::RecordEntry& entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failed_) return;
  if (!google::protobuf::util::SerializeDelimitedToOstream(entry, &file_) || !file_.flush()) {
    failed_ = true;
    std::cerr << "npu_emulator: --record: writing " << path_ << " failed (" << std::strerror(errno)
              << "); recording stops here" << std::endl;
  }
}

std::vector<hal::SharedDevice> recordDevices(std::vector<hal::SharedDevice> devices, std::shared_ptr<Recorder> recorder) {
  for (auto& device : devices) device = std::make_shared<RecordingDevice>(std::move(device), recorder);
  return devices;
}

}  // namespace nnremote::middleware
