#include "runtime/compilation.h"

#include <android/NeuralNetworks.h>

#include <algorithm>
#include <sstream>

#include "hal/compilation_cache.h"
#include "hal/operand_types.h"
#include "hal/validation.h"
#include "runtime/result_codes.h"

namespace nnremote::runtime {
namespace {

// How fast (or frugal, for LOW_POWER) `device` says it is for the model's main input type:
// lower is better; 1.0 is the CPU reference.
float costOn(const hal::IDevice& device, const hal::Model& model, hal::ExecutionPreference preference) {
  const hal::Capabilities& capabilities = device.getCapabilities();
  auto pick = [&](const hal::PerformanceInfo& info) {
    return preference == hal::ExecutionPreference::LOW_POWER ? info.powerUsage : info.execTime;
  };
  if (model.relaxComputationFloat32toFloat16) return pick(capabilities.relaxedFloat32toFloat16PerformanceTensor);
  if (model.main.inputIndexes.empty()) return 1.0f;
  const hal::OperandType type = model.main.operands[model.main.inputIndexes.front()].type;
  for (const auto& entry : capabilities.operandPerformance) {
    if (entry.type == type) return pick(entry.info);
  }
  return 1.0f;
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

}  // namespace

Compilation::Compilation(hal::Model model, std::vector<const RuntimeDevice*> devices, bool explicitDevices)
    : model_(std::move(model)), devices_(std::move(devices)), explicitDevices_(explicitDevices) {}

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

hal::Result<const RuntimeDevice*> Compilation::chooseDevice() const {
  const RuntimeDevice* best = nullptr;
  float bestCost = 0;
  std::ostringstream refusals;
  for (const RuntimeDevice* candidate : devices_) {
    const hal::IDevice& device = *candidate->device;
    if (auto level = hal::validateModelForFeatureLevel(model_, device.getFeatureLevel(), device.getName());
        !level.ok()) {
      refusals << "; " << level.error().message;
      continue;
    }
    auto supported = device.getSupportedOperations(model_);
    if (!supported.ok()) {
      if (supported.error().code == hal::ErrorStatus::INVALID_ARGUMENT) return supported.error();
      refusals << "; " << device.getName() << ": " << supported.error().message;
      continue;
    }
    const auto missing = std::find(supported->begin(), supported->end(), false);
    if (missing != supported->end()) {
      const size_t index = static_cast<size_t>(missing - supported->begin());
      refusals << "; " << device.getName() << " does not support operation " << index << " ("
               << hal::toString(model_.main.operations[index].type) << ")";
      continue;
    }
    const float cost = costOn(device, model_, preference_);
    if (best == nullptr || cost < bestCost) {
      best = candidate;
      bestCost = cost;
    }
  }
  if (best == nullptr) {
    return hal::makeError(hal::ErrorStatus::INVALID_ARGUMENT)
           << "no device runs the whole model (partitioning across devices is not implemented yet)"
           << refusals.str();
  }
  return best;
}

hal::Result<hal::SharedPreparedModel> Compilation::prepareOn(const RuntimeDevice& chosen) const {
  const hal::IDevice& device = *chosen.device;
  hal::OptionalTimePoint deadline;
  if (timeoutNanoseconds_) deadline = hal::Clock::now() + hal::Duration(*timeoutNanoseconds_);
  std::vector<hal::CacheFile> modelCache, dataCache;
  const auto [modelFiles, dataFiles] = device.getNumberOfCacheFilesNeeded();
  const bool caching = !cacheDir_.empty() && (modelFiles > 0 || dataFiles > 0);
  if (caching) {
    const std::string stem = hex(token_) + "-" + device.getName();
    NN_ASSIGN_OR_RETURN(modelCache, hal::openCacheFiles(cacheDir_, stem + "-model", modelFiles));
    NN_ASSIGN_OR_RETURN(dataCache, hal::openCacheFiles(cacheDir_, stem + "-data", dataFiles));
    // A cache this device wrote before saves the preparation; any other answer means prepare.
    if (auto cached = device.prepareModelFromCache(deadline, modelCache, dataCache, token_); cached.ok()) {
      return cached;
    }
  }
  return device.prepareModel(model_, preference_, priority_, deadline, modelCache, dataCache,
                             caching ? token_ : hal::CacheToken{});
}

int Compilation::finish() {
  if (finished_) return refuse("ANeuralNetworksCompilation_finish", ANEURALNETWORKS_BAD_STATE, "finished twice");
  finished_ = true;  // as the NDK: finish is called once, whatever it returns
  auto chosen = chooseDevice();
  if (!chosen.ok()) return refuse("ANeuralNetworksCompilation_finish", chosen.error());
  auto prepared = prepareOn(**chosen);
  if (!prepared.ok()) return refuse("ANeuralNetworksCompilation_finish", prepared.error());
  chosen_ = *chosen;
  prepared_ = std::move(prepared).value();
  return ANEURALNETWORKS_NO_ERROR;
}

}  // namespace nnremote::runtime
