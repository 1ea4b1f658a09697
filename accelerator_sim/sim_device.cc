#include "accelerator_sim/sim_device.h"

#include <cstring>

#include "accelerator_sim/graph_executor.h"
#include "accelerator_sim/sim_buffer.h"
#include "accelerator_sim/sim_prepared_model.h"
#include "accelerator_sim/timing/capabilities.h"
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

// Where a constant's bytes are now, before the model owns them.
const uint8_t* constantData(const hal::Model& model, const hal::Operand& operand) {
  switch (operand.lifetime) {
    case hal::Operand::LifeTime::POINTER: return static_cast<const uint8_t*>(operand.location.pointer);
    case hal::Operand::LifeTime::CONSTANT_COPY: return model.operandValues.data() + operand.location.offset;
    case hal::Operand::LifeTime::CONSTANT_REFERENCE:
      return model.pools[operand.location.poolIndex]->data() + operand.location.offset;
    default: return nullptr;
  }
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
  return hal::Duration(static_cast<int64_t>(cycles * 1e9 / clockHz(npu)));
}

std::shared_ptr<SimDevice> SimDevice::create(NpuConfig npu) {
  return std::make_shared<SimDevice>(std::move(npu));
}

SimDevice::SimDevice(NpuConfig npu)
    : npu_(std::move(npu)),
      name_(deviceName(npu_)),
      versionString_("nnremote-sim 0.2 (" + std::to_string(npu_.systolic_array().rows()) + "x" +
                     std::to_string(npu_.systolic_array().columns()) + " " +
                     Dataflow_Name(dataflowOf(npu_)) + " @ " +
                     std::to_string(static_cast<int>(npu_.clock_mhz())) + " MHz)"),
      capabilities_(deriveCapabilities(npu_)) {}

hal::Result<std::vector<bool>> SimDevice::getSupportedOperations(const hal::Model& model) const {
  NN_RETURN_IF_ERROR(hal::validateModel(model));
  std::vector<bool> supported;
  for (const Status& status : checkOperations(model)) supported.push_back(status.ok());
  return supported;
}

hal::Result<hal::SharedPreparedModel> SimDevice::prepareModel(
    const hal::Model& model, hal::ExecutionPreference preference, hal::Priority priority,
    const hal::OptionalTimePoint& deadline, const std::vector<hal::CacheFile>& /*modelCache*/,
    const std::vector<hal::CacheFile>& /*dataCache*/, const hal::CacheToken& /*token*/) const {
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
  // Refused before anything is copied: the constants live in device memory while prepared.
  if (const uint64_t constants = constantBytes(model); constants > deviceMemoryBytes(npu_)) {
    return makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
           << "the model's constants take " << constants << " bytes, more than the " << deviceMemoryBytes(npu_)
           << " bytes of device memory of " << name_ << " (dram.capacity_mib = " << (deviceMemoryBytes(npu_) >> 20)
           << ")";
  }
  const std::vector<Status> checks = checkOperations(model);
  for (size_t i = 0; i < checks.size(); ++i) {
    if (!checks[i].ok()) {
      return makeError(ErrorStatus::INVALID_ARGUMENT)
             << "main.operations[" << i << "] is not supported by " << name_ << ": "
             << checks[i].error().message;
    }
  }
  return hal::SharedPreparedModel(
      std::make_shared<SimPreparedModel>(ownConstants(model), npu_));
}

hal::Result<hal::SharedPreparedModel> SimDevice::prepareModelFromCache(
    const hal::OptionalTimePoint&, const std::vector<hal::CacheFile>&,
    const std::vector<hal::CacheFile>&, const hal::CacheToken&) const {
  return makeError(ErrorStatus::GENERAL_FAILURE)
         << name_ << " does not support compilation caching (it needs 0 cache files)";
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
