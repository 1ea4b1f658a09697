#include "runtime/compilation.h"

#include <android/NeuralNetworks.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "hal/compilation_cache.h"
#include "hal/operand_types.h"
#include "hal/validation.h"
#include "runtime/partitioned_prepared_model.h"
#include "runtime/partitioning.h"
#include "runtime/result_codes.h"

namespace nnremote::runtime {
namespace {

// How fast (or frugal, for LOW_POWER) `device` says it is for tensors of `type` (null: none to
// go by), or for relaxed computation: lower is better; 1.0 is the CPU reference.
float costOn(const hal::IDevice& device, const hal::OperandType* type, bool relaxed,
             hal::ExecutionPreference preference) {
  const hal::Capabilities& capabilities = device.getCapabilities();
  auto pick = [&](const hal::PerformanceInfo& info) {
    return preference == hal::ExecutionPreference::LOW_POWER ? info.powerUsage : info.execTime;
  };
  if (relaxed) return pick(capabilities.relaxedFloat32toFloat16PerformanceTensor);
  if (type == nullptr) return 1.0f;
  for (const auto& entry : capabilities.operandPerformance) {
    if (entry.type == *type) return pick(entry.info);
  }
  return 1.0f;
}

// The whole model is judged by its main input's type, an operation by its first input's.
const hal::OperandType* firstType(const hal::Model::Subgraph& main, const std::vector<uint32_t>& operands) {
  return operands.empty() ? nullptr : &main.operands[operands.front()].type;
}

// A device's name as part of a file name: a renamed one holds its target (NAME@unix:/PATH).
std::string fileSafe(std::string name) {
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.' && c != '@') c = '_';
  }
  return name;
}

std::string hex(const hal::CacheToken& token) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (uint8_t byte : token) {
    out += digits[byte >> 4];
    out += digits[byte & 15];
  }
  return out;
}

// nnapi-reference when a compilation of `model` for `devices` may fall back to it: made by
// Compilation_create (not `explicitDevices`), with nnapi-reference among the devices, no OEM or
// extension operation in the model, and NNREMOTE_NO_CPU_FALLBACK unset; null otherwise.
const RuntimeDevice* cpuFallbackDevice(const hal::Model& model, const std::vector<const RuntimeDevice*>& devices,
                                       bool explicitDevices) {
  if (explicitDevices || std::getenv("NNREMOTE_NO_CPU_FALLBACK") != nullptr) return nullptr;
  auto cpuCannotRun = [](const hal::Model::Subgraph& subgraph) {
    return std::any_of(subgraph.operations.begin(), subgraph.operations.end(), [](const hal::Operation& operation) {
      return operation.type == hal::OperationType::OEM_OPERATION || hal::isExtension(operation.type);
    });
  };
  if (cpuCannotRun(model.main) || std::any_of(model.referenced.begin(), model.referenced.end(), cpuCannotRun)) {
    return nullptr;
  }
  for (const RuntimeDevice* device : devices) {
    if (device->isReference) return device;
  }
  return nullptr;
}

}  // namespace

Compilation::Compilation(hal::Model model, std::vector<const RuntimeDevice*> devices, bool explicitDevices)
    : model_(std::move(model)),
      devices_(std::move(devices)),
      explicitDevices_(explicitDevices),
      cpuFallback_(std::make_shared<CpuFallback>(cpuFallbackDevice(model_, devices_, explicitDevices_))) {}

int Compilation::setPreference(int32_t preference) {
  if (finished_) return refuse("ANeuralNetworksCompilation_setPreference", ANEURALNETWORKS_BAD_STATE, "finished");
  if (preference != ANEURALNETWORKS_PREFER_LOW_POWER && preference != ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER &&
      preference != ANEURALNETWORKS_PREFER_SUSTAINED_SPEED) {
    return refuse("ANeuralNetworksCompilation_setPreference", ANEURALNETWORKS_BAD_DATA,
                  "preference " + std::to_string(preference) + " is not a PreferenceCode");
  }
  preference_ = static_cast<hal::ExecutionPreference>(preference);
  return ANEURALNETWORKS_NO_ERROR;
}

int Compilation::setPriority(int priority) {
  if (finished_) return refuse("ANeuralNetworksCompilation_setPriority", ANEURALNETWORKS_BAD_STATE, "finished");
  switch (priority) {
    case ANEURALNETWORKS_PRIORITY_LOW: priority_ = hal::Priority::LOW; break;
    case ANEURALNETWORKS_PRIORITY_MEDIUM: priority_ = hal::Priority::MEDIUM; break;
    case ANEURALNETWORKS_PRIORITY_HIGH: priority_ = hal::Priority::HIGH; break;
    default:
      return refuse("ANeuralNetworksCompilation_setPriority", ANEURALNETWORKS_BAD_DATA,
                    "priority " + std::to_string(priority) + " is not a PriorityCode");
  }
  return ANEURALNETWORKS_NO_ERROR;
}

int Compilation::setTimeout(uint64_t nanoseconds) {
  if (finished_) return refuse("ANeuralNetworksCompilation_setTimeout", ANEURALNETWORKS_BAD_STATE, "finished");
  // As the NDK documents: only for a compilation made for exactly one device.
  if (!forOneDevice()) {
    return refuse("ANeuralNetworksCompilation_setTimeout", ANEURALNETWORKS_BAD_DATA,
                  "a timeout needs a compilation created for exactly one device (createForDevices)");
  }
  if (nanoseconds == 0) {
    timeoutNanoseconds_.reset();
  } else {
    timeoutNanoseconds_ = nanoseconds;
  }
  return ANEURALNETWORKS_NO_ERROR;
}

int Compilation::setCaching(const char* cacheDir, const uint8_t* token) {
  if (cacheDir == nullptr || token == nullptr) {
    return refuse("ANeuralNetworksCompilation_setCaching", ANEURALNETWORKS_UNEXPECTED_NULL, "cacheDir or token is NULL");
  }
  if (finished_) return refuse("ANeuralNetworksCompilation_setCaching", ANEURALNETWORKS_BAD_STATE, "finished");
  cacheDir_ = cacheDir;
  std::copy(token, token + token_.size(), token_.begin());
  return ANEURALNETWORKS_NO_ERROR;
}

hal::Result<std::vector<Compilation::Support>> Compilation::support() const {
  const std::vector<hal::Version> levels = hal::operationFeatureLevels(model_);
  std::vector<Support> result;
  for (const RuntimeDevice* candidate : devices_) {
    const hal::IDevice& device = *candidate->device;
    Support entry{candidate, std::vector<bool>(model_.main.operations.size(), false), false, {}};
    auto supported = device.getSupportedOperations(model_);
    if (!supported.ok()) {
      if (supported.error().code == hal::ErrorStatus::INVALID_ARGUMENT) return supported.error();
      entry.query = supported.error();
      entry.query.message = candidate->name() + ": " + entry.query.message;
    } else if (supported->size() == entry.operations.size()) {
      const auto deviceLevel = static_cast<int32_t>(device.getFeatureLevel());
      for (size_t i = 0; i < entry.operations.size(); ++i) {
        entry.operations[i] = (*supported)[i] && static_cast<int32_t>(levels[i]) <= deviceLevel;
      }
    }
    entry.all = std::find(entry.operations.begin(), entry.operations.end(), false) == entry.operations.end() &&
                hal::validateModelForFeatureLevel(model_, device.getFeatureLevel(), device.getName()).ok();
    result.push_back(std::move(entry));
  }
  return result;
}

const RuntimeDevice* Compilation::chooseDevice(const std::vector<Support>& support) const {
  const RuntimeDevice* best = nullptr;
  float bestCost = 0;
  bool anyRemoteSupportsSome = false;
  const RuntimeDevice* reference = nullptr;
  for (const Support& entry : support) {
    if (entry.device->isReference) {
      if (entry.all) reference = entry.device;
      continue;
    }
    anyRemoteSupportsSome = anyRemoteSupportsSome ||
                            std::find(entry.operations.begin(), entry.operations.end(), true) != entry.operations.end();
    if (!entry.all) continue;
    const float cost = costOn(*entry.device->device, firstType(model_.main, model_.main.inputIndexes),
                              model_.relaxComputationFloat32toFloat16, preference_);
    if (best == nullptr || cost < bestCost) {
      best = entry.device;
      bestCost = cost;
    }
  }
  // nnapi-reference runs the whole model only when no remote device can take part of it.
  if (best == nullptr && !anyRemoteSupportsSome) return reference;
  return best;
}

hal::Result<std::vector<const RuntimeDevice*>> Compilation::assignOperations(
    const std::vector<Support>& support) const {
  std::vector<const RuntimeDevice*> deviceOf(model_.main.operations.size(), nullptr);
  for (size_t op = 0; op < deviceOf.size(); ++op) {
    const hal::Operation& operation = model_.main.operations[op];
    const hal::OperandType* type = firstType(model_.main, operation.inputs);
    float bestCost = 0;
    const RuntimeDevice* reference = nullptr;
    for (const Support& entry : support) {
      if (!entry.operations[op]) continue;
      if (entry.device->isReference) {
        reference = entry.device;
        continue;
      }
      const float cost =
          costOn(*entry.device->device, type, model_.relaxComputationFloat32toFloat16, preference_);
      if (deviceOf[op] == nullptr || cost < bestCost) {
        deviceOf[op] = entry.device;
        bestCost = cost;
      }
    }
    if (deviceOf[op] == nullptr) deviceOf[op] = reference;
    if (deviceOf[op] == nullptr) {
      // A device that could not answer (one whose server is gone) is the likelier reason.
      for (const Support& entry : support) {
        if (!entry.query.message.empty()) return entry.query;
      }
      std::ostringstream devices;
      for (const Support& entry : support) devices << (devices.tellp() > 0 ? ", " : "") << entry.device->name();
      return hal::invalidArgument() << "main.operations[" << op << "] " << hal::toString(operation.type)
                                    << " is supported by none of the devices (" << devices.str() << ")";
    }
  }
  return deviceOf;
}

// A cache token of its own for each partition step, so the steps' caches do not collide.
hal::CacheToken stepToken(const hal::CacheToken& token, const std::string& part) {
  hal::CacheToken mixed = token;
  uint64_t hash = 1469598103934665603ull;  // FNV-1a over the part's name
  for (char c : part) hash = (hash ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  for (size_t i = 0; i < mixed.size(); ++i) mixed[i] ^= static_cast<uint8_t>(hash >> (8 * (i % 8)));
  return mixed;
}

hal::Result<hal::SharedPreparedModel> Compilation::preparePartitioned(
    const std::vector<const RuntimeDevice*>& deviceOf) {
  NN_ASSIGN_OR_RETURN(std::vector<PartitionStep> steps, partitionModel(model_, deviceOf));
  std::vector<PreparedStep> prepared;
  std::vector<std::string> names;
  for (size_t i = 0; i < steps.size(); ++i) {
    const RuntimeDevice& device = *steps[i].device;
    auto step = prepareOn(device, steps[i].model, "step" + std::to_string(i));
    if (!step.ok()) {
      hal::Error error = step.error();
      error.message = "partition step " + std::to_string(i) + " on " + device.name() + ": " + error.message;
      return error;
    }
    names.push_back(device.name());
    prepared.push_back({std::move(steps[i]), std::move(step).value(), names.back()});
  }
  deviceNames_ = std::move(names);
  return hal::SharedPreparedModel(
      std::make_shared<PartitionedPreparedModel>(model_, std::move(prepared), cpuFallback_));
}

hal::Result<hal::SharedPreparedModel> Compilation::prepareOn(const RuntimeDevice& chosen, const hal::Model& model,
                                                             const std::string& part) const {
  const hal::IDevice& device = *chosen.device;
  hal::OptionalTimePoint deadline;
  if (timeoutNanoseconds_) deadline = hal::deadlineAfter(*timeoutNanoseconds_);
  std::vector<hal::CacheFile> modelCache, dataCache;
  const auto [modelFiles, dataFiles] = device.getNumberOfCacheFilesNeeded();
  bool caching = !cacheDir_.empty() && (modelFiles > 0 || dataFiles > 0);
  const hal::CacheToken token = part.empty() ? token_ : stepToken(token_, part);
  if (caching) {
    const std::string stem = hex(token_) + "-" + fileSafe(chosen.name()) + (part.empty() ? "" : "-" + part);
    bool modelCreated = false, dataCreated = false;
    auto modelOpened = hal::openCacheFiles(cacheDir_, stem + "-model", modelFiles, &modelCreated);
    auto dataOpened =
        modelOpened.ok() ? hal::openCacheFiles(cacheDir_, stem + "-data", dataFiles, &dataCreated) : modelOpened;
    if (!dataOpened.ok()) {
      // As Android's runtime: a cache that cannot be opened costs the caching, not the compilation.
      std::cerr << "libneuralnetworks: ANeuralNetworksCompilation_finish: compiling without a cache on "
                << chosen.name() << ": " << dataOpened.error().message << "\n";
      caching = false;
    } else {
      modelCache = std::move(modelOpened).value();
      dataCache = std::move(dataOpened).value();
      // A cache this device wrote before saves the preparation; any other answer means prepare.
      // Files just created hold no cache, so the device is not asked (as Android's runtime).
      if (!modelCreated && !dataCreated) {
        if (auto cached = device.prepareModelFromCache(deadline, modelCache, dataCache, token); cached.ok()) {
          return cached;
        }
      }
    }
  }
  return device.prepareModel(model, preference_, priority_, deadline, modelCache, dataCache,
                             caching ? token : hal::CacheToken{});
}

hal::Result<hal::SharedPreparedModel> Compilation::prepareOnChosen(const std::vector<Support>& support) {
  if (const RuntimeDevice* chosen = chooseDevice(support)) {
    deviceNames_ = {chosen->name()};
    wholeDevice_ = chosen;
    return prepareOn(*chosen, model_);
  }
  NN_ASSIGN_OR_RETURN(const std::vector<const RuntimeDevice*> deviceOf, assignOperations(support));
  return preparePartitioned(deviceOf);
}

int Compilation::finish() {
  if (finished_) return refuse("ANeuralNetworksCompilation_finish", ANEURALNETWORKS_BAD_STATE, "finished twice");
  finished_ = true;  // as the NDK: finish is called once, whatever it returns
  auto support = this->support();
  if (!support.ok()) return refuse("ANeuralNetworksCompilation_finish", support.error());
  auto prepared = prepareOnChosen(*support);
  // As Android's runtime: a failure that is not the program's (a device that failed or died)
  // costs the devices, not the compilation, which then runs whole on nnapi-reference.
  const RuntimeDevice* cpu = cpuFallback_->cpu();
  if (!prepared.ok() && prepared.error().code != hal::ErrorStatus::INVALID_ARGUMENT && cpu != nullptr &&
      wholeDevice_ != cpu) {
    reportCpuFallback("ANeuralNetworksCompilation_finish", prepared.error());
    prepared = prepareOn(*cpu, model_);
    deviceNames_ = {cpu->name()};
    wholeDevice_ = cpu;
    preparedOnCpuInstead_ = true;
  }
  if (!prepared.ok()) return refuse("ANeuralNetworksCompilation_finish", prepared.error());
  prepared_ = std::move(prepared).value();
  return ANEURALNETWORKS_NO_ERROR;
}

bool Compilation::fallsBackToCpu() const {
  const RuntimeDevice* cpu = cpuFallback_->cpu();
  return cpu != nullptr && wholeDevice_ != cpu;
}

void Compilation::reportCpuFallback(const char* function, const hal::Error& error) const {
  std::string failed = function;
  for (size_t i = 0; i < deviceNames_.size(); ++i) failed += (i == 0 ? " on " : ", ") + deviceNames_[i];
  cpuFallback_->report(failed, error, "it");
}

hal::Result<hal::SharedPreparedModel> Compilation::cpuPrepared() const {
  return cpuFallback_->prepared(CpuFallback::kWholeModel, model_);
}

std::vector<Compilation::StepRole> Compilation::stepRoles(bool isInput, uint32_t index) const {
  const auto* partitioned = dynamic_cast<const PartitionedPreparedModel*>(prepared_.get());
  if (partitioned == nullptr) return {{prepared_, wholeDevice_, isInput, index}};
  const uint32_t operand = (isInput ? model_.main.inputIndexes : model_.main.outputIndexes)[index];
  std::vector<StepRole> roles;
  for (const PreparedStep& step : partitioned->steps()) {
    // A model output that a later step reads is read from the same memory: that step's input.
    for (size_t k = 0; k < step.step.inputs.size(); ++k) {
      if (step.step.inputs[k] == operand) {
        roles.push_back({step.prepared, step.step.device, true, static_cast<uint32_t>(k)});
      }
    }
    for (size_t k = 0; !isInput && k < step.step.outputs.size(); ++k) {
      if (step.step.outputs[k] == operand) {
        roles.push_back({step.prepared, step.step.device, false, static_cast<uint32_t>(k)});
      }
    }
  }
  return roles;
}

}  // namespace nnremote::runtime
