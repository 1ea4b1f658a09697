#include "wire/conversions.h"

#include <cstring>

namespace nnremote::wire {
namespace {

using hal::makeError;

template <typename Field>
std::vector<uint32_t> toVector(const Field& field) {
  return std::vector<uint32_t>(field.begin(), field.end());
}

template <typename Field>
void assign(Field* field, const std::vector<uint32_t>& values) {
  field->Clear();
  field->Reserve(static_cast<int>(values.size()));
  for (uint32_t v : values) field->Add(v);
}

wire::DataLocation toWire(const hal::DataLocation& location) {
  wire::DataLocation out;
  out.set_pool_index(location.poolIndex);
  out.set_offset(location.offset);
  out.set_length(location.length);
  out.set_padding(location.padding);
  return out;
}

hal::DataLocation fromWire(const wire::DataLocation& location) {
  return {nullptr, location.pool_index(), location.offset(), location.length(), location.padding()};
}

wire::PerformanceInfo toWire(const hal::PerformanceInfo& info) {
  wire::PerformanceInfo out;
  out.set_exec_time(info.execTime);
  out.set_power_usage(info.powerUsage);
  return out;
}

hal::PerformanceInfo fromWire(const wire::PerformanceInfo& info) {
  return {info.exec_time(), info.power_usage()};
}

// Copies POINTER data into operand values so the model can cross a process boundary.
void flushPointer(hal::Operand* operand, std::string* operandValues) {
  if (operand->lifetime != hal::Operand::LifeTime::POINTER) return;
  const uint32_t offset = static_cast<uint32_t>(operandValues->size());
  operandValues->append(static_cast<const char*>(operand->location.pointer),
                        operand->location.length);
  operand->lifetime = hal::Operand::LifeTime::CONSTANT_COPY;
  operand->location = {nullptr, 0, offset, operand->location.length, 0};
}

void toWire(hal::Operand operand, std::string* operandValues, wire::Operand* out) {
  flushPointer(&operand, operandValues);
  out->set_type(static_cast<int32_t>(operand.type));
  assign(out->mutable_dimensions(), operand.dimensions);
  out->set_scale(operand.scale);
  out->set_zero_point(operand.zeroPoint);
  out->set_lifetime(static_cast<wire::OperandLifeTime>(operand.lifetime));
  *out->mutable_location() = toWire(operand.location);
  if (const auto* channel = std::get_if<hal::Operand::SymmPerChannelQuantParams>(&operand.extraParams)) {
    auto* params = out->mutable_channel_quant();
    for (float s : channel->scales) params->add_scales(s);
    params->set_channel_dim(channel->channelDim);
  } else if (const auto* extension = std::get_if<hal::Operand::ExtensionParams>(&operand.extraParams)) {
    out->set_extension(extension->data(), extension->size());
  }
}

hal::Operand fromWire(const wire::Operand& in) {
  hal::Operand operand;
  operand.type = static_cast<hal::OperandType>(in.type());
  operand.dimensions = toVector(in.dimensions());
  operand.scale = in.scale();
  operand.zeroPoint = in.zero_point();
  operand.lifetime = static_cast<hal::Operand::LifeTime>(in.lifetime());
  operand.location = fromWire(in.location());
  if (in.has_channel_quant()) {
    hal::Operand::SymmPerChannelQuantParams params;
    params.scales.assign(in.channel_quant().scales().begin(), in.channel_quant().scales().end());
    params.channelDim = in.channel_quant().channel_dim();
    operand.extraParams = std::move(params);
  } else if (in.extra_params_case() == wire::Operand::kExtension) {
    operand.extraParams = hal::Operand::ExtensionParams(in.extension().begin(), in.extension().end());
  }
  return operand;
}

void toWire(const hal::Model::Subgraph& subgraph, std::string* operandValues, wire::Subgraph* out) {
  for (const auto& operand : subgraph.operands) toWire(operand, operandValues, out->add_operands());
  for (const auto& operation : subgraph.operations) {
    auto* op = out->add_operations();
    op->set_type(static_cast<int32_t>(operation.type));
    assign(op->mutable_inputs(), operation.inputs);
    assign(op->mutable_outputs(), operation.outputs);
  }
  assign(out->mutable_input_indexes(), subgraph.inputIndexes);
  assign(out->mutable_output_indexes(), subgraph.outputIndexes);
}

hal::Model::Subgraph fromWire(const wire::Subgraph& in) {
  hal::Model::Subgraph subgraph;
  subgraph.operands.reserve(in.operands_size());
  for (const auto& operand : in.operands()) subgraph.operands.push_back(fromWire(operand));
  for (const auto& op : in.operations()) {
    subgraph.operations.push_back({static_cast<hal::OperationType>(op.type()),
                                   toVector(op.inputs()), toVector(op.outputs())});
  }
  subgraph.inputIndexes = toVector(in.input_indexes());
  subgraph.outputIndexes = toVector(in.output_indexes());
  return subgraph;
}

}  // namespace

hal::Result<wire::Memory> encodeInline(const hal::SharedMemory& memory, bool withContents) {
  wire::Memory out;
  auto* data = out.mutable_inline_data();
  data->set_size(memory->size());
  if (withContents) data->set_data(memory->data(), memory->size());
  return out;
}

hal::Result<hal::SharedMemory> resolveInlineOnly(const wire::Memory& memory) {
  switch (memory.kind_case()) {
    case wire::Memory::kInlineData: {
      const auto& inlined = memory.inline_data();
      if (inlined.size() > kMaxInlineMemoryBytes) {
        return makeError(hal::ErrorStatus::INVALID_ARGUMENT)
               << "inline memory of " << inlined.size() << " bytes exceeds the "
               << kMaxInlineMemoryBytes << "-byte limit for memory inside a message";
      }
      if (!inlined.data().empty() && inlined.data().size() != inlined.size()) {
        return makeError(hal::ErrorStatus::INVALID_ARGUMENT)
               << "inline memory carries " << inlined.data().size() << " bytes but declares size "
               << inlined.size();
      }
      NN_ASSIGN_OR_RETURN(hal::SharedMemory result, hal::createHeapMemory(inlined.size()));
      if (!inlined.data().empty()) std::memcpy(result->data(), inlined.data().data(), inlined.size());
      return result;
    }
    case wire::Memory::kRegisteredMemoryId:
      return makeError(hal::ErrorStatus::GENERAL_FAILURE)
             << "registered shared memory is not supported by this server yet";
    case wire::Memory::kBulkTransferId:
      return makeError(hal::ErrorStatus::GENERAL_FAILURE)
             << "bulk-transfer memory is not supported by this server yet";
    case wire::Memory::KIND_NOT_SET:
      break;
  }
  return makeError(hal::ErrorStatus::INVALID_ARGUMENT) << "memory has no kind set";
}

wire::HalError toWire(const hal::Error& error) {
  wire::HalError out;
  out.set_status(static_cast<wire::ErrorStatus>(error.code));
  out.set_message(error.message);
  for (const auto& shape : error.outputShapes) *out.add_output_shapes() = toWire(shape);
  return out;
}

hal::Error fromWire(const wire::HalError& error) {
  hal::Error out;
  out.code = static_cast<hal::ErrorStatus>(error.status());
  out.message = error.message();
  for (const auto& shape : error.output_shapes()) out.outputShapes.push_back(fromWire(shape));
  return out;
}

wire::OutputShape toWire(const hal::OutputShape& shape) {
  wire::OutputShape out;
  assign(out.mutable_dimensions(), shape.dimensions);
  out.set_is_sufficient(shape.isSufficient);
  return out;
}

hal::OutputShape fromWire(const wire::OutputShape& shape) {
  return {toVector(shape.dimensions()), shape.is_sufficient()};
}

wire::Timing toWire(const hal::Timing& timing) {
  wire::Timing out;
  if (timing.timeOnDevice) out.mutable_time_on_device()->set_nanoseconds(timing.timeOnDevice->count());
  if (timing.timeInDriver) out.mutable_time_in_driver()->set_nanoseconds(timing.timeInDriver->count());
  return out;
}

hal::Timing fromWire(const wire::Timing& timing) {
  hal::Timing out;
  if (timing.has_time_on_device()) {
    out.timeOnDevice = hal::Duration(timing.time_on_device().nanoseconds());
  }
  if (timing.has_time_in_driver()) {
    out.timeInDriver = hal::Duration(timing.time_in_driver().nanoseconds());
  }
  return out;
}

wire::ExecutionProfile toWire(const hal::ExecutionProfile& profile) {
  wire::ExecutionProfile out;
  out.set_device_name(profile.deviceName);
  out.set_clock_hz(profile.clockHz);
  out.set_total_cycles(profile.totalCycles);
  out.set_host_wall_nanoseconds(profile.hostWallNanoseconds);
  out.set_host_cpu_cycles(profile.hostCpuCycles);
  for (const auto& op : profile.operations) {
    auto* o = out.add_operations();
    o->set_operation_index(op.operationIndex);
    o->set_type(static_cast<int32_t>(op.type));
    o->set_unit(static_cast<wire::OperationProfile::Unit>(op.unit));
    o->set_start_cycle(op.startCycle);
    o->set_compute_cycles(op.computeCycles);
    o->set_stall_cycles(op.stallCycles);
    o->set_overhead_cycles(op.overheadCycles);
    o->set_total_cycles(op.totalCycles);
    o->set_macs(op.macs);
    o->set_mapping_efficiency(op.mappingEfficiency);
    o->set_compute_utilization(op.computeUtilization);
    o->set_overall_utilization(op.overallUtilization);
    o->set_dram_read_bytes(op.dramReadBytes);
    o->set_dram_write_bytes(op.dramWriteBytes);
    o->set_sram_read_bytes(op.sramReadBytes);
    o->set_sram_write_bytes(op.sramWriteBytes);
    o->set_dram_cycles(op.dramCycles);
  }
  return out;
}

hal::ExecutionProfile fromWire(const wire::ExecutionProfile& profile) {
  hal::ExecutionProfile out;
  out.deviceName = profile.device_name();
  out.clockHz = profile.clock_hz();
  out.totalCycles = profile.total_cycles();
  out.hostWallNanoseconds = profile.host_wall_nanoseconds();
  out.hostCpuCycles = profile.host_cpu_cycles();
  for (const auto& o : profile.operations()) {
    hal::OperationProfile op;
    op.operationIndex = o.operation_index();
    op.type = static_cast<hal::OperationType>(o.type());
    op.unit = static_cast<hal::ProfileUnit>(o.unit());
    op.startCycle = o.start_cycle();
    op.computeCycles = o.compute_cycles();
    op.stallCycles = o.stall_cycles();
    op.overheadCycles = o.overhead_cycles();
    op.totalCycles = o.total_cycles();
    op.macs = o.macs();
    op.mappingEfficiency = o.mapping_efficiency();
    op.computeUtilization = o.compute_utilization();
    op.overallUtilization = o.overall_utilization();
    op.dramReadBytes = o.dram_read_bytes();
    op.dramWriteBytes = o.dram_write_bytes();
    op.sramReadBytes = o.sram_read_bytes();
    op.sramWriteBytes = o.sram_write_bytes();
    op.dramCycles = o.dram_cycles();
    out.operations.push_back(op);
  }
  return out;
}

wire::Priority toWire(hal::Priority priority) {
  switch (priority) {
    case hal::Priority::LOW: return wire::PRIORITY_LOW;
    case hal::Priority::MEDIUM: return wire::PRIORITY_MEDIUM;
    case hal::Priority::HIGH: return wire::PRIORITY_HIGH;
  }
  // Not a priority: sent as it is (never one of the wire's values, which only valid
  // priorities map to), so the server refuses it with INVALID_ARGUMENT naming the value.
  return static_cast<wire::Priority>(priority);
}

hal::Priority fromWire(wire::Priority priority) {
  switch (priority) {
    case wire::PRIORITY_LOW: return hal::Priority::LOW;
    case wire::PRIORITY_HIGH: return hal::Priority::HIGH;
    case wire::PRIORITY_MEDIUM: return hal::Priority::MEDIUM;
    default: return static_cast<hal::Priority>(priority);  // validation rejects it
  }
}

void toWire(const hal::OptionalTimePoint& deadline, wire::Deadline* out, bool* hasDeadline) {
  *hasDeadline = deadline.has_value();
  if (!deadline) return;
  const hal::Duration remaining = hal::timeUntil(*deadline);
  out->set_nanoseconds_from_now(remaining.count() > 0 ? remaining.count() : 0);
}

hal::OptionalTimePoint deadlineFromWire(const wire::Deadline& deadline, bool hasDeadline) {
  if (!hasDeadline) return std::nullopt;
  return hal::deadlineAfter(deadline.nanoseconds_from_now());
}

wire::Capabilities toWire(const hal::Capabilities& capabilities) {
  wire::Capabilities out;
  *out.mutable_relaxed_float32_to_float16_performance_scalar() =
      toWire(capabilities.relaxedFloat32toFloat16PerformanceScalar);
  *out.mutable_relaxed_float32_to_float16_performance_tensor() =
      toWire(capabilities.relaxedFloat32toFloat16PerformanceTensor);
  for (const auto& entry : capabilities.operandPerformance) {
    auto* performance = out.add_operand_performance();
    performance->set_type(static_cast<int32_t>(entry.type));
    *performance->mutable_info() = toWire(entry.info);
  }
  *out.mutable_if_performance() = toWire(capabilities.ifPerformance);
  *out.mutable_while_performance() = toWire(capabilities.whilePerformance);
  return out;
}

hal::Capabilities fromWire(const wire::Capabilities& capabilities) {
  hal::Capabilities out;
  out.relaxedFloat32toFloat16PerformanceScalar =
      fromWire(capabilities.relaxed_float32_to_float16_performance_scalar());
  out.relaxedFloat32toFloat16PerformanceTensor =
      fromWire(capabilities.relaxed_float32_to_float16_performance_tensor());
  for (const auto& entry : capabilities.operand_performance()) {
    out.operandPerformance.push_back({static_cast<hal::OperandType>(entry.type()), fromWire(entry.info())});
  }
  out.ifPerformance = fromWire(capabilities.if_performance());
  out.whilePerformance = fromWire(capabilities.while_performance());
  return out;
}

wire::Extension toWire(const hal::Extension& extension) {
  wire::Extension out;
  out.set_name(extension.name);
  for (const auto& type : extension.operandTypes) {
    auto* info = out.add_operand_types();
    info->set_type(type.type);
    info->set_is_tensor(type.isTensor);
    info->set_byte_size(type.byteSize);
  }
  return out;
}

hal::Extension fromWire(const wire::Extension& extension) {
  hal::Extension out;
  out.name = extension.name();
  for (const auto& type : extension.operand_types()) {
    out.operandTypes.push_back({static_cast<uint16_t>(type.type()), type.is_tensor(), type.byte_size()});
  }
  return out;
}

wire::DeviceInfo deviceInfo(const hal::IDevice& device) {
  wire::DeviceInfo info;
  info.set_name(device.getName());
  info.set_type(static_cast<wire::DeviceType>(device.getType()));
  info.set_version_string(device.getVersionString());
  info.set_feature_level(static_cast<wire::FeatureLevel>(device.getFeatureLevel()));
  *info.mutable_capabilities() = toWire(device.getCapabilities());
  for (const auto& extension : device.getSupportedExtensions()) {
    *info.add_extensions() = toWire(extension);
  }
  const auto [modelFiles, dataFiles] = device.getNumberOfCacheFilesNeeded();
  info.set_num_model_cache_files(modelFiles);
  info.set_num_data_cache_files(dataFiles);
  return info;
}

hal::Result<wire::Model> toWire(const hal::Model& model, const MemoryEncoder& encode) {
  wire::Model out;
  std::string operandValues(model.operandValues.begin(), model.operandValues.end());
  toWire(model.main, &operandValues, out.mutable_main());
  for (const auto& subgraph : model.referenced) toWire(subgraph, &operandValues, out.add_referenced());
  out.set_operand_values(std::move(operandValues));
  for (size_t i = 0; i < model.pools.size(); ++i) {
    if (model.pools[i] == nullptr) {
      return makeError(hal::ErrorStatus::INVALID_ARGUMENT) << "model.pools[" << i << "] is null";
    }
    NN_ASSIGN_OR_RETURN(*out.add_pools(), encode(model.pools[i], /*withContents=*/true));
  }
  out.set_relax_computation_float32_to_float16(model.relaxComputationFloat32toFloat16);
  for (const auto& entry : model.extensionNameToPrefix) {
    auto* e = out.add_extension_name_to_prefix();
    e->set_name(entry.name);
    e->set_prefix(entry.prefix);
  }
  return out;
}

hal::Result<hal::Model> fromWire(const wire::Model& model, const MemoryResolver& resolve) {
  hal::Model out;
  out.main = fromWire(model.main());
  for (const auto& subgraph : model.referenced()) out.referenced.push_back(fromWire(subgraph));
  out.operandValues.assign(model.operand_values().begin(), model.operand_values().end());
  for (int i = 0; i < model.pools_size(); ++i) {
    auto memory = resolve(model.pools(i));
    if (!memory.ok()) return hal::withContext(memory.error(), "model.pools[" + std::to_string(i) + "]");
    out.pools.push_back(std::move(memory).value());
  }
  out.relaxComputationFloat32toFloat16 = model.relax_computation_float32_to_float16();
  for (const auto& entry : model.extension_name_to_prefix()) {
    if (entry.prefix() > 0xffff) {
      return makeError(hal::ErrorStatus::INVALID_ARGUMENT)
             << "extension prefix " << entry.prefix() << " for " << entry.name()
             << " does not fit in 16 bits";
    }
    out.extensionNameToPrefix.push_back({entry.name(), static_cast<uint16_t>(entry.prefix())});
  }
  return out;
}

RequestPoolPlan planRequestPools(const hal::Request& request) {
  RequestPoolPlan plan;
  plan.sendContents.assign(request.pools.size(), false);
  for (const auto& input : request.inputs) {
    if (input.lifetime == hal::Request::Argument::LifeTime::POOL &&
        input.location.poolIndex < plan.sendContents.size()) {
      plan.sendContents[input.location.poolIndex] = true;
    }
  }
  return plan;
}

hal::Result<wire::Request> toWire(const hal::Request& request, const MemoryEncoder& encode) {
  wire::Request out;
  auto convertArguments = [](const std::vector<hal::Request::Argument>& arguments,
                             const char* name,
                             google::protobuf::RepeatedPtrField<wire::RequestArgument>* field)
      -> hal::Status {
    for (size_t i = 0; i < arguments.size(); ++i) {
      const auto& argument = arguments[i];
      if (argument.lifetime == hal::Request::Argument::LifeTime::POINTER) {
        return makeError(hal::ErrorStatus::INVALID_ARGUMENT)
               << "request." << name << "[" << i << "] is a POINTER argument, which cannot cross a "
               << "process boundary";
      }
      auto* arg = field->Add();
      arg->set_lifetime(static_cast<wire::RequestArgument::LifeTime>(argument.lifetime));
      *arg->mutable_location() = toWire(argument.location);
      assign(arg->mutable_dimensions(), argument.dimensions);
    }
    return {};
  };
  NN_RETURN_IF_ERROR(convertArguments(request.inputs, "inputs", out.mutable_inputs()));
  NN_RETURN_IF_ERROR(convertArguments(request.outputs, "outputs", out.mutable_outputs()));
  const RequestPoolPlan plan = planRequestPools(request);
  for (size_t i = 0; i < request.pools.size(); ++i) {
    const auto& pool = request.pools[i];
    auto* wirePool = out.add_pools();
    if (const auto* memory = std::get_if<hal::SharedMemory>(&pool)) {
      if (*memory == nullptr) {
        return makeError(hal::ErrorStatus::INVALID_ARGUMENT) << "request.pools[" << i << "] is null";
      }
      NN_ASSIGN_OR_RETURN(*wirePool->mutable_memory(), encode(*memory, plan.sendContents[i]));
    } else if (const auto* token = std::get_if<hal::Request::MemoryDomainToken>(&pool)) {
      wirePool->set_memory_domain_token(static_cast<uint32_t>(*token));
    } else {
      const auto& buffer = std::get<hal::SharedBuffer>(pool);
      if (buffer == nullptr) {
        return makeError(hal::ErrorStatus::INVALID_ARGUMENT) << "request.pools[" << i << "] is null";
      }
      wirePool->set_memory_domain_token(static_cast<uint32_t>(buffer->getToken()));
    }
  }
  return out;
}

hal::Result<hal::Request> fromWire(const wire::Request& request, const MemoryResolver& resolve) {
  hal::Request out;
  auto convertArguments = [](const auto& field, std::vector<hal::Request::Argument>* arguments) {
    for (const auto& arg : field) {
      hal::Request::Argument argument;
      argument.lifetime = static_cast<hal::Request::Argument::LifeTime>(arg.lifetime());
      argument.location = fromWire(arg.location());
      argument.dimensions = toVector(arg.dimensions());
      arguments->push_back(std::move(argument));
    }
  };
  convertArguments(request.inputs(), &out.inputs);
  convertArguments(request.outputs(), &out.outputs);
  for (int i = 0; i < request.pools_size(); ++i) {
    const auto& pool = request.pools(i);
    switch (pool.kind_case()) {
      case wire::RequestMemoryPool::kMemory: {
        auto memory = resolve(pool.memory());
        if (!memory.ok()) {
          return hal::withContext(memory.error(), "request.pools[" + std::to_string(i) + "]");
        }
        out.pools.emplace_back(std::move(memory).value());
        break;
      }
      case wire::RequestMemoryPool::kMemoryDomainToken:
        out.pools.emplace_back(static_cast<hal::Request::MemoryDomainToken>(pool.memory_domain_token()));
        break;
      case wire::RequestMemoryPool::KIND_NOT_SET:
        return makeError(hal::ErrorStatus::INVALID_ARGUMENT) << "request.pools[" << i << "] is empty";
    }
  }
  return out;
}

bool outputTravelsBack(const wire::Request& request, size_t outputIndex) {
  if (outputIndex >= static_cast<size_t>(request.outputs_size())) return false;
  const auto& argument = request.outputs(outputIndex);
  if (argument.lifetime() != wire::RequestArgument::POOL) return false;
  const uint32_t poolIndex = argument.location().pool_index();
  if (poolIndex >= static_cast<uint32_t>(request.pools_size())) return false;
  const auto& pool = request.pools(poolIndex);
  return pool.kind_case() == wire::RequestMemoryPool::kMemory &&
         pool.memory().kind_case() != wire::Memory::kRegisteredMemoryId;
}

}  // namespace nnremote::wire
