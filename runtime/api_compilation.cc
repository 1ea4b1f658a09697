// The NDK's compilation functions.
#include <android/NeuralNetworks.h>

#include <set>

#include "runtime/handles.h"
#include "runtime/model_builder.h"
#include "runtime/result_codes.h"

using nnremote::runtime::Compilation;
using nnremote::runtime::CompilationHandle;
using nnremote::runtime::DeviceRegistry;
using nnremote::runtime::fromHandle;
using nnremote::runtime::ModelBuilder;
using nnremote::runtime::refuse;
using nnremote::runtime::RuntimeDevice;
using nnremote::runtime::toHandle;

namespace {

int create(const char* function, ANeuralNetworksModel* model, std::vector<const RuntimeDevice*> devices,
           bool explicitDevices, ANeuralNetworksCompilation** compilation) {
  const auto* builder = reinterpret_cast<const ModelBuilder*>(model);
  if (!builder->isFinished()) return refuse(function, ANEURALNETWORKS_BAD_STATE, "the model is not finished");
  auto halModel = builder->model();
  if (!halModel.ok()) return refuse(function, halModel.error());
  auto* handle = new (std::nothrow) CompilationHandle{
      std::make_shared<Compilation>(std::move(halModel).value(), std::move(devices), explicitDevices)};
  if (handle == nullptr) return refuse(function, ANEURALNETWORKS_OUT_OF_MEMORY, "no memory for the compilation");
  *compilation = toHandle(handle);
  return ANEURALNETWORKS_NO_ERROR;
}

// The preferred alignment and padding of every argument: the host's cache line, which lets the
// proxy send and the simulator read arguments without realigning them.
constexpr uint32_t kPreferredAlignment = 64;
constexpr uint32_t kPreferredPadding = 64;

int preferred(const char* function, const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* value,
              bool isInput, uint32_t preferredValue) {
  if (compilation == nullptr || value == nullptr) {
    return refuse(function, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  }
  const Compilation& c = *fromHandle(compilation)->compilation;
  if (!c.usable()) return refuse(function, ANEURALNETWORKS_BAD_STATE, "the compilation is not finished");
  const auto& indexes = isInput ? c.model().main.inputIndexes : c.model().main.outputIndexes;
  if (index >= indexes.size()) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA, "index " + std::to_string(index) + " is out of range");
  }
  *value = preferredValue;
  return ANEURALNETWORKS_NO_ERROR;
}

}  // namespace

extern "C" {

int ANeuralNetworksCompilation_create(ANeuralNetworksModel* model, ANeuralNetworksCompilation** compilation) {
  if (compilation != nullptr) *compilation = nullptr;
  if (model == nullptr || compilation == nullptr) {
    return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  }
  std::vector<const RuntimeDevice*> devices;
  for (const auto& device : DeviceRegistry::instance().devices()) devices.push_back(device.get());
  return create(__func__, model, std::move(devices), /*explicitDevices=*/false, compilation);
}

int ANeuralNetworksCompilation_createForDevices(ANeuralNetworksModel* model,
                                                const ANeuralNetworksDevice* const* devices, uint32_t numDevices,
                                                ANeuralNetworksCompilation** compilation) {
  if (compilation != nullptr) *compilation = nullptr;
  if (model == nullptr || devices == nullptr || compilation == nullptr) {
    return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  }
  if (numDevices == 0) return refuse(__func__, ANEURALNETWORKS_BAD_DATA, "numDevices is 0");
  std::vector<const RuntimeDevice*> chosen;
  std::set<const RuntimeDevice*> seen;
  for (uint32_t i = 0; i < numDevices; ++i) {
    if (devices[i] == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "a device is NULL");
    const RuntimeDevice* device = fromHandle(devices[i]);
    if (!DeviceRegistry::instance().owns(device)) {
      return refuse(__func__, ANEURALNETWORKS_BAD_DATA, "devices[" + std::to_string(i) + "] is not a device");
    }
    if (!seen.insert(device).second) {
      return refuse(__func__, ANEURALNETWORKS_BAD_DATA, "devices[" + std::to_string(i) + "] is given twice");
    }
    chosen.push_back(device);
  }
  return create(__func__, model, std::move(chosen), /*explicitDevices=*/true, compilation);
}

void ANeuralNetworksCompilation_free(ANeuralNetworksCompilation* compilation) { delete fromHandle(compilation); }

int ANeuralNetworksCompilation_setPreference(ANeuralNetworksCompilation* compilation, int32_t preference) {
  if (compilation == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "compilation is NULL");
  return fromHandle(compilation)->compilation->setPreference(preference);
}

int ANeuralNetworksCompilation_setPriority(ANeuralNetworksCompilation* compilation, int priority) {
  if (compilation == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "compilation is NULL");
  return fromHandle(compilation)->compilation->setPriority(priority);
}

int ANeuralNetworksCompilation_setTimeout(ANeuralNetworksCompilation* compilation, uint64_t duration) {
  if (compilation == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "compilation is NULL");
  return fromHandle(compilation)->compilation->setTimeout(duration);
}

int ANeuralNetworksCompilation_setCaching(ANeuralNetworksCompilation* compilation, const char* cacheDir,
                                          const uint8_t* token) {
  if (compilation == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "compilation is NULL");
  return fromHandle(compilation)->compilation->setCaching(cacheDir, token);
}

int ANeuralNetworksCompilation_finish(ANeuralNetworksCompilation* compilation) {
  if (compilation == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "compilation is NULL");
  return fromHandle(compilation)->compilation->finish();
}

int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput(const ANeuralNetworksCompilation* compilation,
                                                                   uint32_t index, uint32_t* alignment) {
  return preferred(__func__, compilation, index, alignment, true, kPreferredAlignment);
}

int ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput(const ANeuralNetworksCompilation* compilation,
                                                                 uint32_t index, uint32_t* padding) {
  return preferred(__func__, compilation, index, padding, true, kPreferredPadding);
}

int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput(const ANeuralNetworksCompilation* compilation,
                                                                    uint32_t index, uint32_t* alignment) {
  return preferred(__func__, compilation, index, alignment, false, kPreferredAlignment);
}

int ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput(const ANeuralNetworksCompilation* compilation,
                                                                  uint32_t index, uint32_t* padding) {
  return preferred(__func__, compilation, index, padding, false, kPreferredPadding);
}

}  // extern "C"
