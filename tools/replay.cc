#include "tools/replay.h"

#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "absl/strings/str_join.h"

#include "hal/model_builder.h"
#include "hal/operand_types.h"
#include "wire/conversions.h"
#include "conformance/cts_runner.h"
#include "tools/recording_reader.h"

namespace nnremote::tools {
namespace {

constexpr size_t kDifferencesKept = 100;

// A recorded model and what became of it on the replay device.
struct ModelState {
  hal::Model model;
  hal::SharedPreparedModel prepared;  // null if the replay device refused it
  size_t summaryIndex = 0;
};

std::string labelFor(const std::string& file, uint64_t id, const hal::Model& model) {
  std::ostringstream label;
  label << file.substr(file.find_last_of('/') + 1) << " #" << id << ":";
  std::set<std::string> seen;
  for (const auto& operation : model.main.operations) {
    const std::string name = hal::toString(operation.type);
    if (seen.insert(name).second) label << (seen.size() == 1 ? " " : ", ") << name;
  }
  return label.str();
}

std::vector<uint32_t> dimensionsOf(const wire::OutputShape& shape) {
  return std::vector<uint32_t>(shape.dimensions().begin(), shape.dimensions().end());
}

std::string statusName(const wire::RecordedExecution& recorded) {
  return recorded.outcome().has_error() ? hal::toString(wire::fromWire(recorded.outcome().error()).code)
                                        : "NO_ERROR";
}

// The request the recording describes: a pool of its own per input and per output.
hal::Result<hal::RequestWithMemories> requestFor(const hal::Model& model, const wire::RecordedExecution& recorded) {
  const auto& graph = model.main;
  if (static_cast<size_t>(recorded.inputs_size()) != graph.inputIndexes.size()) {
    return hal::invalidArgument() << "the recording has " << recorded.inputs_size() << " inputs for a model with "
                                  << graph.inputIndexes.size();
  }
  std::vector<std::vector<uint8_t>> inputs;
  for (const auto& bytes : recorded.inputs()) inputs.emplace_back(bytes.begin(), bytes.end());
  std::vector<size_t> outputSizes;
  for (size_t i = 0; i < graph.outputIndexes.size(); ++i) {
    const auto& operand = graph.operands[graph.outputIndexes[i]];
    const auto& outputs = recorded.outcome().output_data();
    size_t size = i < static_cast<size_t>(outputs.size()) ? outputs.Get(static_cast<int>(i)).size() : 0;
    if (auto modelSize = hal::sizeOfData(operand); modelSize.has_value()) size = std::max<size_t>(size, *modelSize);
    outputSizes.push_back(std::max<size_t>(size, 1));
  }
  NN_ASSIGN_OR_RETURN(auto io, hal::makeRequest(inputs, outputSizes));
  for (size_t i = 0; i < io.request.inputs.size(); ++i) {
    const auto& shape = recorded.input_shapes(static_cast<int>(i));
    if (!shape.is_sufficient()) {
      io.request.inputs[i].lifetime = hal::Request::Argument::LifeTime::NO_VALUE;
      io.request.inputs[i].location = {};
    } else if (hal::hasUnspecifiedDimensions(graph.operands[graph.inputIndexes[i]])) {
      io.request.inputs[i].dimensions = dimensionsOf(shape);
    }
  }
  return io;
}

// Compares a successful replay with a successful recording; empty when they agree.
std::string compareOutputs(const hal::Model& model, const wire::RecordedExecution& recorded,
                           const hal::ExecutionOutcome& outcome, const hal::RequestWithMemories& io, bool exact) {
  conformance::CtsTestCase expected;
  expected.model = model;
  expected.isRelaxed = model.relaxComputationFloat32toFloat16;
  const wire::ExecutionOutcome& recordedOutcome = recorded.outcome();
  for (int i = 0; i < recordedOutcome.output_data_size(); ++i) {
    const auto& operand = model.main.operands[model.main.outputIndexes[i]];
    conformance::GoldenOutput golden;
    golden.type = operand.type;
    golden.dimensions = dimensionsOf(recordedOutcome.output_shapes(i));
    golden.scale = operand.scale;
    golden.zeroPoint = operand.zeroPoint;
    golden.data.assign(recordedOutcome.output_data(i).begin(), recordedOutcome.output_data(i).end());
    expected.outputs.push_back(std::move(golden));
  }
  for (size_t i = 0; i < expected.outputs.size(); ++i) {
    const auto& golden = expected.outputs[i];
    const std::vector<uint32_t> dimensions =
        i < outcome.outputShapes.size() ? outcome.outputShapes[i].dimensions : std::vector<uint32_t>{};
    if (dimensions != golden.dimensions) {
      return "output " + std::to_string(i) + " has dimensions " + hal::toString(dimensions) + ", recorded " +
             hal::toString(golden.dimensions);
    }
    const auto* data = io.outputs[i]->data();
    const std::vector<uint8_t> actual(data, data + std::min(io.outputs[i]->size(), golden.data.size()));
    if (exact) {
      if (actual != golden.data) return "output " + std::to_string(i) + " differs byte for byte";
    } else if (std::string difference = conformance::compareOutput(expected, i, actual, dimensions); !difference.empty()) {
      return difference;
    }
  }
  return "";
}

class Replayer {
 public:
  Replayer(const std::vector<hal::SharedDevice>& devices, const ReplayOptions& options)
      : devices_(devices), options_(options) {}

  hal::Status replay(const std::string& recording) {
    NN_ASSIGN_OR_RETURN(auto reader, RecordingReader::open(recording));
    wire::RecordEntry entry;
    std::string currentFile;
    while (reader->next(&entry)) {
      if (reader->file() != currentFile) {  // model ids are per file
        currentFile = reader->file();
        models_.clear();
      }
      if (entry.has_preparation()) NN_RETURN_IF_ERROR(prepare(currentFile, entry.preparation()));
      if (entry.has_execution()) execute(entry.execution());
      if (entry.has_release()) models_.erase(entry.release().model_id());
    }
    summary_.warnings = reader->warnings();
    if (reader->entriesRead() == 0 && !summary_.warnings.empty()) {
      return hal::invalidArgument() << "--recording=" << recording << ": nothing in it can be read: "
                                    << absl::StrJoin(summary_.warnings, "; ");
    }
    return {};
  }

  ReplaySummary take() { return std::move(summary_); }

 private:
  hal::Result<hal::SharedDevice> deviceFor(const std::string& recordedName) const {
    const std::string& wanted = options_.deviceName.empty() ? recordedName : options_.deviceName;
    std::string names;
    for (const auto& device : devices_) {
      if (device->getName() == wanted) return device;
      names += " " + device->getName();
    }
    return hal::invalidArgument() << "no device named " << wanted << " to replay on"
                                  << (options_.deviceName.empty() ? " (the recorded device; pick one with --device)" : "")
                                  << "; the target has:" << (names.empty() ? " none" : names);
  }

  hal::Status prepare(const std::string& file, const wire::RecordedPreparation& recorded) {
    if (recorded.has_error()) return {};  // nothing ran on it; its executions do not exist
    NN_ASSIGN_OR_RETURN(auto device, deviceFor(recorded.device()));
    auto model = wire::fromWire(recorded.model(), wire::resolveInlineOnly);
    if (!model.ok()) return hal::withContext(model.error(), "the recorded model #" + std::to_string(recorded.model_id()));
    ModelState state;
    state.model = std::move(model).value();
    ModelReplay summary;
    summary.label = labelFor(file, recorded.model_id(), state.model);
    summary.recordedDevice = recorded.device();
    summary.replayDevice = device->getName();
    auto prepared = device->prepareModel(state.model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                         hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
    if (prepared.ok()) {
      state.prepared = *prepared;
    } else {
      summary.refused = std::string(hal::toString(prepared.error().code)) + ": " + prepared.error().message;
    }
    state.summaryIndex = summary_.models.size();
    summary_.models.push_back(std::move(summary));
    models_[recorded.model_id()] = std::move(state);
    return {};
  }

  void execute(const wire::RecordedExecution& recorded) {
    auto found = models_.find(recorded.model_id());
    // Recordings made before wire version 2 kept the outcome elsewhere; they are skipped too.
    if (found == models_.end() || !recorded.not_recorded().empty() || !recorded.has_outcome()) {
      ++summary_.skipped;
      return;
    }
    ModelState& state = found->second;
    ModelReplay& model = summary_.models[state.summaryIndex];
    ++summary_.replayed;
    ++model.executions;
    const std::string difference = compare(state, recorded, &model);
    if (difference.empty()) {
      ++summary_.matched;
      ++model.matched;
      return;
    }
    ++summary_.differed;
    ++model.differed;
    if (state.prepared == nullptr) ++summary_.refused;
    if (summary_.differences.size() < kDifferencesKept) summary_.differences.push_back(model.label + ": " + difference);
  }

  // Empty when the replay agrees with the recording; otherwise how it differs.
  std::string compare(const ModelState& state, const wire::RecordedExecution& recorded, ModelReplay* model) const {
    if (state.prepared == nullptr) return "the replay device refused the model (" + model->refused + ")";
    auto io = requestFor(state.model, recorded);
    if (!io.ok()) return "cannot rebuild the request: " + io.error().message;
    auto outcome = state.prepared->execute(io->request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
    const std::string replayedStatus = outcome.ok() ? "NO_ERROR" : hal::toString(outcome.error().code);
    if (replayedStatus != statusName(recorded)) {
      return "status " + replayedStatus + (outcome.ok() ? "" : " (" + outcome.error().message + ")") + ", recorded " +
             statusName(recorded);
    }
    if (!outcome.ok()) return "";
    const hal::Timing recordedTiming = wire::fromWire(recorded.outcome().timing());
    if (recordedTiming.timeOnDevice.has_value() && outcome->timing.timeOnDevice.has_value()) {
      ++model->timedExecutions;
      model->recordedDeviceUs += recordedTiming.timeOnDevice->count() / 1e3;
      model->replayedDeviceUs += outcome->timing.timeOnDevice->count() / 1e3;
    }
    return compareOutputs(state.model, recorded, *outcome, *io, options_.exact);
  }

  const std::vector<hal::SharedDevice>& devices_;
  const ReplayOptions options_;
  std::map<uint64_t, ModelState> models_;  // of the current file
  ReplaySummary summary_;
};

}  // namespace

hal::Result<ReplaySummary> replayRecording(const std::string& recording, const std::vector<hal::SharedDevice>& devices,
                                           const ReplayOptions& options) {
  Replayer replayer(devices, options);
  NN_RETURN_IF_ERROR(replayer.replay(recording));
  return replayer.take();
}

std::string summaryLine(const ReplaySummary& summary) {
  std::ostringstream line;
  line << summary.replayed << " replayed, " << summary.matched << " matched, " << summary.differed << " differed";
  if (summary.refused > 0) line << " (" << summary.refused << " of them on models the device refused)";
  if (summary.skipped > 0) line << ", " << summary.skipped << " not replayable (device buffers)";
  return line.str();
}

}  // namespace nnremote::tools
