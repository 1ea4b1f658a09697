#include "drivers/sim/sim_device.h"

#include <cstring>

#include "drivers/sim/compiled_artifact.h"
#include "drivers/sim/extensions/extension_registry.h"
#include "drivers/sim/extensions/extension_validation.h"
#include "drivers/sim/graph_executor.h"
#include "drivers/sim/sim_buffer.h"
#include "drivers/sim/sim_prepared_model.h"
#include "drivers/sim/timing/capabilities.h"
#include "hal/operand_types.h"
#include "hal/validation.h"

namespace nnremote::sim {
namespace {

using hal::ErrorStatus;
using hal::makeError;

// Appends `length` bytes to the model's operand values at an 8-byte aligned offset.
uint32_t appendAligned(hal::Model& model, const uint8_t* bytes, uint32_t length) {
  model.operandValues.resize((model.operandValues.size() + 7) / 8 * 8);
  const uint32_t offset = static_cast<uint32_t>(model.operandValues.size());
  model.operandValues.insert(model.operandValues.end(), bytes, bytes + length);
  return offset;
}

// The model as the prepared model keeps it. POINTER operands point into the caller's memory,
// which may change or vanish after prepareModel returns, so their data is copied into the
// model's own operand values. So is a constant whose data is not aligned for its element type
// (a client may place them anywhere): kernels read elements through typed pointers.
hal::Model ownConstants(hal::Model model) {
  auto ownSubgraph = [&model](hal::Model::Subgraph& subgraph) {
    for (hal::Operand& operand : subgraph.operands) {
      const uint8_t* bytes = constantData(model, operand);
      if (bytes == nullptr) continue;
      const size_t alignment = std::min<size_t>(hal::isExtension(operand.type) ? 1 : hal::elementSize(operand.type), 8);
      const bool aligned = alignment <= 1 || reinterpret_cast<uintptr_t>(bytes) % alignment == 0;
      if (operand.lifetime != hal::Operand::LifeTime::POINTER && aligned) continue;
      const std::vector<uint8_t> copy(bytes, bytes + operand.location.length);  // operandValues may move
      const uint32_t offset = appendAligned(model, copy.data(), operand.location.length);
      operand.lifetime = hal::Operand::LifeTime::CONSTANT_COPY;
      operand.location = {nullptr, 0, offset, operand.location.length, 0};
    }
  };
  ownSubgraph(model.main);
  for (auto& subgraph : model.referenced) ownSubgraph(subgraph);
  return model;
}

}  // namespace

hal::Duration preparationTime(const hal::Model& model, const NpuConfig& npu) {
  const double bytesPerCycle = npu.dram().bytes_per_cycle();
  const double cycles = npu.dram().latency_cycles() +
                        (bytesPerCycle > 0 ? static_cast<double>(constantBytes(model)) / bytesPerCycle : 0.0);
  return hal::cyclesToDuration(cycles, clockHz(npu));
}

hal::BackendDevice simBackendDevice(const NpuConfig& npu, const hal::CacheSecret& cacheSecret) {
  return {SimDevice::create(npu, cacheSecret), engineCount(npu),
          [npu](const hal::Model& model) { return preparationTime(model, npu); }};
}

std::shared_ptr<SimDevice> SimDevice::create(NpuConfig npu, hal::CacheSecret cacheSecret, Role role) {
  return std::make_shared<SimDevice>(std::move(npu), cacheSecret, role);
}

namespace {
uint64_t constantStoreBytes(const NpuConfig& npu) {
  const uint64_t mib = npu.compilation_cache().store_mib() == 0 ? 256 : npu.compilation_cache().store_mib();
  return mib << 20;
}

OperationCheck checkFor(SimDevice::Role role) {
  return role == SimDevice::Role::kCpuFallback ? OperationCheck::kHasKernel : OperationCheck::kKernelAccepts;
}
}  // namespace

SimDevice::SimDevice(NpuConfig npu, hal::CacheSecret cacheSecret, Role role)
    : npu_(std::move(npu)),
      cacheSecret_(cacheSecret),
      role_(role),
      constantStore_(constantStoreBytes(npu_)),
      name_(deviceName(npu_)),
      versionString_("nnremote-sim 0.2 (" + std::to_string(npu_.systolic_array().rows()) + "x" +
                     std::to_string(npu_.systolic_array().columns()) + " " +
                     Dataflow_Name(dataflowOf(npu_)) + " @ " +
                     std::to_string(static_cast<int>(npu_.clock_mhz())) + " MHz)"),
      capabilities_(deriveCapabilities(npu_)) {
  for (const std::string& name : npu_.extensions()) {
    // parseNpuConfig refuses unknown names; a config built in code may still carry one.
    if (const ExtensionDefinition* extension = findExtension(name)) {
      extensions_.push_back(extension->description);
      extensionNames_.push_back(name);
    }
  }
}

hal::Result<std::vector<bool>> SimDevice::getSupportedOperations(const hal::Model& model) const {
  NN_RETURN_IF_ERROR(hal::validateModel(model));
  NN_RETURN_IF_ERROR(validateExtensionOperands(model));
  std::vector<bool> supported;
  for (const Status& status : checkOperations(model, checkFor(role_))) supported.push_back(status.ok());
  // An extension this device does not offer is not supported, however the simulator could run it.
  for (size_t i = 0; i < supported.size(); ++i) {
    if (isUnsupportedExtensionOperation(model, model.main.operations[i], extensionNames_)) supported[i] = false;
  }
  return supported;
}

hal::Result<hal::SharedPreparedModel> SimDevice::prepareModel(
    const hal::Model& model, hal::ExecutionPreference preference, hal::Priority priority,
    const hal::OptionalTimePoint& deadline, const std::vector<hal::CacheFile>& modelCache,
    const std::vector<hal::CacheFile>& dataCache, const hal::CacheToken& token) const {
  if (static_cast<int32_t>(preference) < 0 || static_cast<int32_t>(preference) > 2) {
    return makeError(ErrorStatus::INVALID_ARGUMENT)
           << "preference = " << static_cast<int32_t>(preference) << " is not valid";
  }
  if (static_cast<int32_t>(priority) < 0 || static_cast<int32_t>(priority) > 2) {
    return makeError(ErrorStatus::INVALID_ARGUMENT)
           << "priority = " << static_cast<int32_t>(priority) << " is not valid";
  }
  if (deadline.has_value() && hal::Clock::now() >= *deadline) {
    return makeError(ErrorStatus::MISSED_DEADLINE_PERSISTENT)
           << "the deadline passed before preparation started";
  }
  NN_RETURN_IF_ERROR(hal::validateModel(model));
  NN_RETURN_IF_ERROR(checkPreparable(model));
  auto prepared = std::make_shared<SimPreparedModel>(ownConstants(model), npu_);
  if (!modelCache.empty() || !dataCache.empty()) {
    // Saving is best effort (the HAL lets a driver skip it): a cache that could not be written
    // only means the next prepareModelFromCache fails and the framework prepares again.
    (void)saveToCache(prepared->model(), modelCache, dataCache, token);
  }
  return hal::SharedPreparedModel(std::move(prepared));
}

// What prepareModel and prepareModelFromCache both require of a valid model.
hal::Status SimDevice::checkPreparable(const hal::Model& model) const {
  NN_RETURN_IF_ERROR(checkExtensionsSupported(model, extensionNames_, name_));
  NN_RETURN_IF_ERROR(validateExtensionOperands(model));
  // Refused before anything is copied: the constants live in device memory while prepared.
  if (const uint64_t constants = constantBytes(model); constants > deviceMemoryBytes(npu_)) {
    return makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
           << "the model's constants take " << constants << " bytes, more than the " << deviceMemoryBytes(npu_)
           << " bytes of device memory of " << name_ << " (dram.capacity_mib = " << (deviceMemoryBytes(npu_) >> 20)
           << ")";
  }
  const std::vector<Status> checks = checkOperations(model, checkFor(role_));
  for (size_t i = 0; i < checks.size(); ++i) {
    if (!checks[i].ok()) {
      return makeError(ErrorStatus::INVALID_ARGUMENT)
             << "main.operations[" << i << "] is not supported by " << name_ << ": "
             << checks[i].error().message;
    }
  }
  return {};
}

std::pair<uint32_t, uint32_t> SimDevice::getNumberOfCacheFilesNeeded() const {
  if (!npu_.compilation_cache().enabled()) return {0, 0};
  return {1, 1};
}

hal::Status SimDevice::saveToCache(const hal::Model& model, const std::vector<hal::CacheFile>& modelCache,
                                   const std::vector<hal::CacheFile>& dataCache, const hal::CacheToken& token) const {
  const auto [modelFiles, dataFiles] = getNumberOfCacheFilesNeeded();
  if (modelFiles == 0) return makeError(ErrorStatus::GENERAL_FAILURE) << name_ << " does not cache";
  // Every handle is checked before anything is written, so a refused save leaves no half cache.
  NN_RETURN_IF_ERROR(hal::checkCacheFiles(modelCache, modelFiles, "model_cache", hal::CacheAccess::WRITE));
  NN_RETURN_IF_ERROR(hal::checkCacheFiles(dataCache, dataFiles, "data_cache", hal::CacheAccess::WRITE));
  NN_ASSIGN_OR_RETURN(const Artifact artifact,
                      buildArtifact(model, {cacheSecret_, token, name_, versionString_}));
  const size_t dataLength = artifact.data->size();
  std::vector<uint8_t> dataFile;
  dataFile.reserve(kDataCacheHeaderBytes + dataLength);
  dataFile.insert(dataFile.end(), artifact.dataCacheHeader.begin(), artifact.dataCacheHeader.end());
  NN_ASSIGN_OR_RETURN(const DataCacheHeader header, parseDataCacheHeader(artifact.dataCacheHeader));
  dataFile.insert(dataFile.end(), artifact.data->data(), artifact.data->data() + header.length);
  // Data first: a save cut short leaves a model cache that does not match its data, which fails.
  NN_RETURN_IF_ERROR(hal::writeCacheFile(dataCache[0], "data_cache[0]", dataFile.data(), dataFile.size()));
  NN_RETURN_IF_ERROR(
      hal::writeCacheFile(modelCache[0], "model_cache[0]", artifact.modelCache.data(), artifact.modelCache.size()));
  constantStore_.insert(artifact.dataDigest, header.length, artifact.data);
  return {};
}

hal::Result<hal::Model> SimDevice::loadFromCache(const std::vector<hal::CacheFile>& modelCache,
                                                 const std::vector<hal::CacheFile>& dataCache,
                                                 const hal::CacheToken& token) const {
  const auto [modelFiles, dataFiles] = getNumberOfCacheFilesNeeded();
  NN_RETURN_IF_ERROR(hal::checkCacheFiles(modelCache, modelFiles, "model_cache", hal::CacheAccess::READ));
  NN_RETURN_IF_ERROR(hal::checkCacheFiles(dataCache, dataFiles, "data_cache", hal::CacheAccess::READ));
  NN_ASSIGN_OR_RETURN(const std::vector<uint8_t> modelBytes,
                      hal::readCacheFile(modelCache[0], "model_cache[0]", uint64_t{256} << 20));
  NN_ASSIGN_OR_RETURN(SealedGraph sealed, openModelCache(modelBytes, {cacheSecret_, token, name_, versionString_}));

  uint64_t dataFileSize = 0;
  NN_ASSIGN_OR_RETURN(const std::vector<uint8_t> head,
                      hal::readCacheFileHead(dataCache[0], "data_cache[0]", kDataCacheHeaderBytes, &dataFileSize));
  NN_ASSIGN_OR_RETURN(const DataCacheHeader header, parseDataCacheHeader(head));
  if (!hal::digestsEqual(header.digest, sealed.data.digest) || header.length != sealed.data.length ||
      dataFileSize != kDataCacheHeaderBytes + sealed.data.length) {
    return makeError(ErrorStatus::GENERAL_FAILURE)
           << "data_cache[0] does not hold the data model_cache[0] was saved with (" << dataFileSize
           << " bytes; expected " << kDataCacheHeaderBytes + sealed.data.length << ")";
  }
  hal::SharedMemory data = constantStore_.find(sealed.data.digest, sealed.data.length);
  if (data == nullptr) {
    // Not held any more: read the data and check it against the sealed digest.
    NN_ASSIGN_OR_RETURN(const std::vector<uint8_t> dataBytes,
                        hal::readCacheFile(dataCache[0], "data_cache[0]", uint64_t{1} << 32));
    if (dataBytes.size() != kDataCacheHeaderBytes + sealed.data.length) {
      return makeError(ErrorStatus::GENERAL_FAILURE) << "data_cache[0] changed while it was read";
    }
    NN_ASSIGN_OR_RETURN(hal::SharedMemory loaded, hal::createHeapMemory(std::max<uint64_t>(sealed.data.length, 1)));
    std::memcpy(loaded->data(), dataBytes.data() + kDataCacheHeaderBytes, sealed.data.length);
    if (!hal::digestsEqual(hal::sha256(loaded->data(), sealed.data.length), sealed.data.digest)) {
      return makeError(ErrorStatus::GENERAL_FAILURE)
             << "data_cache[0] fails its integrity check: it is not the data model_cache[0] was saved with";
    }
    constantStore_.insert(sealed.data.digest, sealed.data.length, loaded);
    data = std::move(loaded);
  }
  hal::Model model = std::move(sealed.graph);
  model.pools = {std::move(data)};
  return model;
}

hal::Result<hal::SharedPreparedModel> SimDevice::prepareModelFromCache(
    const hal::OptionalTimePoint& deadline, const std::vector<hal::CacheFile>& modelCache,
    const std::vector<hal::CacheFile>& dataCache, const hal::CacheToken& token) const {
  if (!npu_.compilation_cache().enabled()) {
    return makeError(ErrorStatus::GENERAL_FAILURE)
           << name_ << " does not support compilation caching (it needs 0 cache files)";
  }
  if (deadline.has_value() && hal::Clock::now() >= *deadline) {
    return makeError(ErrorStatus::MISSED_DEADLINE_PERSISTENT)
           << "the deadline passed before preparation from cache started";
  }
  NN_ASSIGN_OR_RETURN(hal::Model model, loadFromCache(modelCache, dataCache, token));
  // The seal says this device wrote it; validating again costs little and keeps a leaked secret
  // from becoming a way around validation.
  if (hal::Status valid = hal::validateModel(model); !valid.ok()) {
    return makeError(ErrorStatus::GENERAL_FAILURE) << "the cached model is not valid: " << valid.error().message;
  }
  NN_RETURN_IF_ERROR(checkPreparable(model));
  // Our own artifacts place constants aligned; anything else is copied into alignment, as for a
  // sent model (a cache_fuzzer finding).
  return hal::SharedPreparedModel(std::make_shared<SimPreparedModel>(ownConstants(std::move(model)), npu_));
}

hal::Result<hal::SharedBuffer> SimDevice::allocate(const hal::BufferDesc& desc,
                                                   const std::vector<hal::SharedPreparedModel>& preparedModels,
                                                   const std::vector<hal::BufferRole>& inputRoles,
                                                   const std::vector<hal::BufferRole>& outputRoles) const {
  // Only models this kind of device prepared can share its buffers.
  std::vector<const hal::Model*> models;
  for (const auto& prepared : preparedModels) {
    const auto* sim = dynamic_cast<const SimPreparedModel*>(prepared.get());
    models.push_back(sim != nullptr ? &sim->model() : nullptr);
  }
  NN_ASSIGN_OR_RETURN(hal::BufferOperand operand,
                      hal::validateBufferRoles(desc, models, inputRoles, outputRoles));
  // An execution could not size its output in such a buffer before it ran.
  if (hal::hasUnspecifiedDimensions(operand.type, operand.dimensions)) {
    return makeError(ErrorStatus::GENERAL_FAILURE)
           << name_ << " does not allocate buffers of unknown dimensions (" << hal::toString(operand.dimensions) << ")";
  }
  std::set<SimBuffer::Role> roles;
  for (const auto& role : inputRoles) roles.insert({preparedModels[role.modelIndex].get(), role.ioIndex, true});
  for (const auto& role : outputRoles) roles.insert({preparedModels[role.modelIndex].get(), role.ioIndex, false});
  uint32_t token;
  {
    std::lock_guard<std::mutex> lock(bufferMutex_);
    token = nextToken_++;
  }
  return hal::SharedBuffer(std::make_shared<SimBuffer>(static_cast<hal::Request::MemoryDomainToken>(token),
                                                       std::move(operand), std::move(roles)));
}

}  // namespace nnremote::sim
