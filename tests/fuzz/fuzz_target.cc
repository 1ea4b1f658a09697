#include "tests/fuzz/fuzz_target.h"

#include <sys/mman.h>

#include <cstdlib>

#include "drivers/sim/compiled_artifact.h"
#include "drivers/sim/npu_config.h"
#include "drivers/sim/sim_device.h"
#include "hal/compilation_cache.h"
#include "hal/model_builder.h"
#include "hal/operand_types.h"
#include "hal/validation.h"

namespace nnremote::fuzz {

namespace {

sim::NpuConfig smallConfig() {
  sim::NpuConfig config = sim::edgeNpuConfig();
  config.mutable_dram()->set_capacity_mib(64);
  return config;
}

hal::CacheSecret fixedSecret() {
  hal::CacheSecret secret;
  secret.bytes.fill(0x42);
  return secret;
}

}  // namespace

const hal::SharedDevice& smallDevice() {
  static const hal::SharedDevice* device = new hal::SharedDevice(sim::SimDevice::create(smallConfig()));
  return *device;
}

const hal::SharedDevice& cachingDevice() {
  static const hal::SharedDevice* device =
      new hal::SharedDevice(sim::SimDevice::create(smallConfig(), fixedSecret()));
  return *device;
}

hal::CacheToken cacheToken() {
  hal::CacheToken token{};
  token.fill(7);
  return token;
}

hal::CacheFile memoryCacheFile(const std::vector<uint8_t>& bytes) {
  const int fd = ::memfd_create("fuzz-cache", MFD_CLOEXEC);
  if (fd < 0) std::abort();
  hal::CacheFile file{{std::make_shared<const hal::FileDescriptor>(fd)}};
  if (!hal::writeCacheFile(file, "fuzz cache", bytes.data(), bytes.size()).ok()) std::abort();
  return file;
}

namespace {

// Zero-filled inputs and room for the outputs the model declares, when their sizes are known
// and small: the request a client would most likely send.
std::optional<hal::RequestWithMemories> requestFor(const hal::Model& model) {
  std::vector<std::vector<uint8_t>> inputs;
  for (uint32_t index : model.main.inputIndexes) {
    const hal::Operand& operand = model.main.operands[index];
    const auto size = hal::sizeOfData(operand.type, operand.dimensions);
    if (!size || *size > (1u << 20)) return std::nullopt;
    inputs.emplace_back(*size, 0);
  }
  std::vector<size_t> outputs;
  for (uint32_t index : model.main.outputIndexes) {
    const hal::Operand& operand = model.main.operands[index];
    const auto size = hal::sizeOfData(operand.type, operand.dimensions);
    outputs.push_back(size && *size > 0 && *size <= (1u << 20) ? *size : 4096);
  }
  auto request = hal::makeRequest(inputs, outputs);
  if (!request.ok()) return std::nullopt;
  return std::move(request).value();
}

}  // namespace

void prepareFromCacheAndExecute(const std::vector<uint8_t>& modelCacheContent,
                                const std::vector<uint8_t>& dataCacheFile) {
  const hal::IDevice& device = *cachingDevice();
  const hal::CacheSecret secret = fixedSecret();
  const hal::CacheToken token = cacheToken();
  const sim::ArtifactBinding binding{secret, token, device.getName(), device.getVersionString()};
  std::vector<uint8_t> modelCache = modelCacheContent;
  const hal::Digest seal = sim::sealModelCache(binding, modelCache.data(), modelCache.size());
  modelCache.insert(modelCache.end(), seal.begin(), seal.end());
  auto prepared = device.prepareModelFromCache(std::nullopt, {memoryCacheFile(modelCache)},
                                               {memoryCacheFile(dataCacheFile)}, token);
  if (!prepared.ok() || (*prepared)->getModel() == nullptr) return;
  const auto made = requestFor(*(*prepared)->getModel());
  if (!made) return;
  (void)(*prepared)->execute(made->request, hal::MeasureTiming::YES, std::nullopt, std::chrono::milliseconds(10));
}

void prepareAndExecute(const hal::Model& model, const hal::Request* request) {
  auto prepared = smallDevice()->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                              hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  if (!prepared.ok()) return;
  std::optional<hal::RequestWithMemories> made;
  if (request == nullptr) {
    made = requestFor(model);
    if (!made) return;
    request = &made->request;
  }
  if (!hal::validateRequestForModel(*request, model, /*allowPointers=*/false).ok()) return;
  (void)(*prepared)->execute(*request, hal::MeasureTiming::YES, std::nullopt, std::chrono::milliseconds(10));
}

}  // namespace nnremote::fuzz
