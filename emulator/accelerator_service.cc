#include "emulator/accelerator_service.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <thread>

#include "hal/execution_adapters.h"
#include "hal/i_burst.h"
#include "hal/operand_types.h"
#include "hal/validation.h"
#include "proto/conversions.h"
#include "proto/grpc_status.h"
#include "proto/shared_queue.h"
#include "emulator/cache_mirror.h"
#include "emulator/session_quotas.h"

namespace nnremote::emulator {
namespace {

using hal::ErrorStatus;
using hal::makeError;
using wire_conv::toGrpcStatus;

hal::Result<hal::CacheToken> cacheTokenFromWire(const std::string& bytes) {
  hal::CacheToken token{};
  if (bytes.empty()) return token;
  if (bytes.size() != token.size()) {
    return makeError(ErrorStatus::INVALID_ARGUMENT)
           << "cache_token has " << bytes.size() << " bytes; it must have " << token.size()
           << " or none";
  }
  std::copy(bytes.begin(), bytes.end(), token.begin());
  return token;
}

// Outputs up to this size travel inside the ExecuteResponse; larger ones as bulk downloads.
constexpr uint64_t kMaxInlineOutputBytes = uint64_t{4} << 20;
// Bulk chunks are this large.
constexpr size_t kBulkChunkBytes = size_t{1} << 20;
// One bulk upload may not exceed this.
constexpr uint64_t kMaxBulkUploadBytes = uint64_t{16} << 30;

// Resolves the memories a model or request names: inline bytes, the session's registered shared
// memory, or one of its bulk uploads (used up by this call).
wire_conv::MemoryResolver resolverFor(Session& session) {
  return [&session](const wire::Memory& memory) -> hal::Result<hal::SharedMemory> {
    switch (memory.kind_case()) {
      case wire::Memory::kRegisteredMemoryId:
        return session.registeredMemories.find(memory.registered_memory_id());
      case wire::Memory::kBulkTransferId:
        return session.uploads.take(memory.bulk_transfer_id());
      default:
        return wire_conv::resolveInlineOnly(memory);
    }
  };
}

// Replaces the memory-domain tokens of a request with the session's device buffers, so only
// buffers this session allocated can be used.
hal::Status resolveBuffers(Session& session, hal::Request* request) {
  for (size_t i = 0; i < request->pools.size(); ++i) {
    const auto* token = std::get_if<hal::Request::MemoryDomainToken>(&request->pools[i]);
    if (token == nullptr) continue;
    auto buffer = session.buffers.find(static_cast<uint32_t>(*token));
    if (!buffer.ok()) return hal::withContext(buffer.error(), "request.pools[" + std::to_string(i) + "]");
    request->pools[i] = *buffer;
  }
  return {};
}

// Wire durations are unsigned nanoseconds; beyond this they would overflow the host clock's
// time points (about 146 years), so they are malformed.
constexpr uint64_t kLongestWireDuration = uint64_t{1} << 62;

hal::Status checkWireDuration(uint64_t nanoseconds, const char* field) {
  if (nanoseconds <= kLongestWireDuration) return {};
  return makeError(ErrorStatus::INVALID_ARGUMENT) << field << " = " << nanoseconds
                                                  << " ns is longer than the longest duration this server accepts ("
                                                  << kLongestWireDuration << " ns)";
}

// Counts an execution against its session's executions_in_flight while alive.
hal::Result<QuotaSlot> enterExecution(Session& session) {
  return QuotaSlot::take(session.executionsInFlight, session.limits().executionsInFlight,
                         ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT, "executions in flight",
                         "session_quotas.executions_in_flight");
}

// What every execution RPC resolves and checks before a device sees anything.
struct ValidatedExecution {
  std::shared_ptr<Session> session;
  PreparedModelEntry entry;
  hal::Request request;
  hal::MeasureTiming measure = hal::MeasureTiming::NO;
  hal::OptionalDuration loopTimeout;
  std::optional<QuotaSlot> inFlight;  // held until the execution is done
};

// An execution call with a deadline: the deadline is checked too.
template <typename Call>  // ExecuteRequest, ExecuteFencedRequest or CreateReusableExecutionRequest
hal::Result<ValidatedExecution> validateExecution(std::shared_ptr<Session> session, const Call& call) {
  ValidatedExecution v;
  v.session = std::move(session);
  NN_ASSIGN_OR_RETURN(v.entry, v.session->preparedModels.find(call.prepared_model_id()));
  NN_ASSIGN_OR_RETURN(v.request, wire_conv::fromWire(call.request(), resolverFor(*v.session)));
  NN_RETURN_IF_ERROR(resolveBuffers(*v.session, &v.request));
  NN_RETURN_IF_ERROR(hal::validateRequestForModel(v.request, *v.entry.model, /*allowPointers=*/false));
  const int measure = call.measure();
  if (measure != wire::MEASURE_TIMING_NO && measure != wire::MEASURE_TIMING_YES) {
    return makeError(ErrorStatus::INVALID_ARGUMENT) << "measure = " << measure << " is not a valid MeasureTiming";
  }
  v.measure = measure == wire::MEASURE_TIMING_YES ? hal::MeasureTiming::YES : hal::MeasureTiming::NO;
  NN_RETURN_IF_ERROR(checkWireDuration(call.loop_timeout_duration().nanoseconds(), "loop_timeout_duration"));
  if (call.has_loop_timeout_duration()) v.loopTimeout = hal::Duration(call.loop_timeout_duration().nanoseconds());
  NN_ASSIGN_OR_RETURN(QuotaSlot slot, enterExecution(*v.session));
  v.inFlight.emplace(std::move(slot));
  return v;
}

template <typename Call>
hal::Result<ValidatedExecution> validateTimedExecution(std::shared_ptr<Session> session, const Call& call) {
  NN_RETURN_IF_ERROR(checkWireDuration(call.deadline().nanoseconds_from_now(), "deadline.nanoseconds_from_now"));
  return validateExecution(std::move(session), call);
}

// Sends back what an execution wrote to each output whose pool travelled by value: inline when
// small, else as a pending download.
void collectOutputs(Session& session, const wire::Request& wireRequest, const hal::Request& request,
                    const hal::Model& model, const hal::ExecutionOutcome& outcome,
                    wire::ExecuteResponse* response) {
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    std::string* data = response->add_output_data();
    if (!wire_conv::outputTravelsBack(wireRequest, i)) continue;
    const auto& location = request.outputs[i].location;
    const auto& memory = std::get<hal::SharedMemory>(request.pools[location.poolIndex]);
    uint64_t length = location.length;
    const hal::OperandType type = model.main.operands[model.main.outputIndexes[i]].type;
    // Only the bytes the result takes travel back; an extension type's size is the device's to
    // know, so all of its buffer does.
    if (i < outcome.outputShapes.size() && !hal::isExtension(type)) {
      length = std::min<uint64_t>(length, hal::sizeOfData(type, outcome.outputShapes[i].dimensions)
                                              .value_or(location.length));
    }
    if (length > kMaxInlineOutputBytes) {
      (*response->mutable_output_bulk_transfer_ids())[static_cast<uint32_t>(i)] =
          session.downloads.add({memory, location.offset, length});
      continue;
    }
    data->assign(reinterpret_cast<const char*>(memory->data() + location.offset), length);
  }
}

}  // namespace

AcceleratorService::AcceleratorService(std::vector<hal::SharedDevice> devices, SessionLimits sessionLimits,
                                       ClientAccess clientAccess, std::unique_ptr<Authenticator> authenticator)
    : devices_(std::move(devices)),
      sessions_(sessionLimits),
      clientAccess_(std::move(clientAccess)),
      authenticator_(std::move(authenticator)) {}

grpc::Status AcceleratorService::callerSession(const grpc::ServerContextBase& context, uint64_t id,
                                               std::shared_ptr<Session>* session) const {
  std::string identity;
  if (grpc::Status refused = identify(context, &identity); !refused.ok()) return refused;
  auto found = sessions_.find(id, identity);
  if (!found.ok()) return toGrpcStatus(found.error());
  *session = std::move(found).value();
  return grpc::Status::OK;
}

hal::Result<hal::SharedDevice> AcceleratorService::findDevice(const std::string& name,
                                                              const std::string& identity) const {
  for (const auto& device : devices_) {
    if (device->getName() == name && clientAccess_.allows(identity, name)) return device;
  }
  auto error = makeError(ErrorStatus::INVALID_ARGUMENT);
  error << "device_name '" << name << "' is not served here (devices:";
  for (const auto& device : devices_) {
    if (clientAccess_.allows(identity, device->getName())) error << " " << device->getName();
  }
  error << ")";
  return error;
}

grpc::Status AcceleratorService::OpenSession(grpc::ServerContext* context,
                                             const wire::OpenSessionRequest* request,
                                             wire::OpenSessionResponse* response) {
  std::string identity;
  if (grpc::Status refused = identify(*context, &identity); !refused.ok()) return refused;
  if (request->client_version() != kWireVersion) {
    return toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT)
                        << "client_version " << request->client_version()
                        << " is not supported; this server speaks wire version " << kWireVersion);
  }
  const auto session = sessions_.open(identity, request->client_name());
  response->set_session_id(session->id());
  response->set_identity(identity);
  response->set_server_version(kWireVersion);
  response->set_server_name("nnremote npu_emulator");
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::CloseSession(grpc::ServerContext* context,
                                              const wire::CloseSessionRequest* request,
                                              wire::Empty*) {
  std::string identity;
  if (grpc::Status refused = identify(*context, &identity); !refused.ok()) return refused;
  const hal::Status status = sessions_.close(request->session_id(), identity);
  if (status.ok()) watch_.sessionClosed(request->session_id());
  return toGrpcStatus(status);
}

wire::DeviceInfo AcceleratorService::deviceInfoFor(const hal::IDevice& device, const std::string& identity) const {
  wire::DeviceInfo info = wire_conv::deviceInfo(device);
  // Extensions this identity may not use are not there for it at all.
  auto* extensions = info.mutable_extensions();
  for (int i = extensions->size() - 1; i >= 0; --i) {
    if (!clientAccess_.allowsExtension(identity, extensions->Get(i).name())) extensions->DeleteSubrange(i, 1);
  }
  return info;
}

hal::Status AcceleratorService::checkExtensionsAllowed(const hal::Model& model, const std::string& identity) const {
  for (size_t i = 0; i < model.extensionNameToPrefix.size(); ++i) {
    const std::string& name = model.extensionNameToPrefix[i].name;
    if (!clientAccess_.allowsExtension(identity, name)) {
      return makeError(ErrorStatus::INVALID_ARGUMENT)
             << "extensionNameToPrefix[" << i << "] names extension '" << name << "', which '" << identity
             << "' may not use (extension_allowlist in the server config)";
    }
  }
  return {};
}

grpc::Status AcceleratorService::ListDevices(grpc::ServerContext* context, const wire::ListDevicesRequest*,
                                             wire::ListDevicesResponse* response) {
  std::string identity;
  if (grpc::Status refused = identify(*context, &identity); !refused.ok()) return refused;
  for (const auto& device : devices_) {
    if (clientAccess_.allows(identity, device->getName())) *response->add_devices() = deviceInfoFor(*device, identity);
  }
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::GetDeviceInfo(grpc::ServerContext* context,
                                               const wire::GetDeviceInfoRequest* request,
                                               wire::DeviceInfo* response) {
  std::string identity;
  if (grpc::Status refused = identify(*context, &identity); !refused.ok()) return refused;
  auto device = findDevice(request->device_name(), identity);
  if (!device.ok()) return toGrpcStatus(device.error());
  *response = deviceInfoFor(**device, identity);
  return grpc::Status::OK;
}

hal::Result<AcceleratorService::ResolvedModel> AcceleratorService::resolveModel(std::shared_ptr<Session> session,
                                                                                const std::string& deviceName,
                                                                                const wire::Model& wireModel) const {
  ResolvedModel resolved;
  resolved.session = std::move(session);
  NN_ASSIGN_OR_RETURN(resolved.device, findDevice(deviceName, resolved.session->identity()));
  NN_ASSIGN_OR_RETURN(resolved.model, wire_conv::fromWire(wireModel, resolverFor(*resolved.session)));
  NN_RETURN_IF_ERROR(hal::validateModel(resolved.model, /*allowPointers=*/false));
  NN_RETURN_IF_ERROR(checkExtensionsAllowed(resolved.model, resolved.session->identity()));
  return resolved;
}

grpc::Status AcceleratorService::GetSupportedOperations(
    grpc::ServerContext* context, const wire::GetSupportedOperationsRequest* request,
    wire::GetSupportedOperationsResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto resolved = resolveModel(session, request->device_name(), request->model());
  if (!resolved.ok()) return toGrpcStatus(resolved.error());
  auto supported = resolved->device->getSupportedOperations(resolved->model);
  if (!supported.ok()) return toGrpcStatus(supported.error());
  for (bool s : *supported) response->add_supported(s);
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::PrepareModel(grpc::ServerContext* context,
                                              const wire::PrepareModelRequest* request,
                                              wire::PrepareModelResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto resolved = resolveModel(session, request->device_name(), request->model());
  if (!resolved.ok()) return toGrpcStatus(resolved.error());
  const int preference = request->preference();
  if (preference < 0 || preference > 2) {
    return toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT)
                        << "preference = " << preference << " is not a valid ExecutionPreference");
  }
  const hal::Priority priority = wire_conv::fromWire(request->priority());
  if (static_cast<int>(priority) < 0 || static_cast<int>(priority) > 2) {
    return toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT)
                        << "priority = " << request->priority() << " is not a valid Priority");
  }
  auto token = cacheTokenFromWire(request->cache_token());
  if (!token.ok()) return toGrpcStatus(token.error());
  if (auto deadline = checkWireDuration(request->deadline().nanoseconds_from_now(), "deadline.nanoseconds_from_now");
      !deadline.ok()) {
    return toGrpcStatus(deadline.error());
  }
  if (auto quota = checkHolding(session->preparedModels.size(), session->limits().preparedModels, "prepared models",
                                "session_quotas.prepared_models");
      !quota.ok()) {
    return toGrpcStatus(quota.error());
  }
  auto mirror = CacheMirror::create(request->model_cache(), request->data_cache());
  if (!mirror.ok()) return toGrpcStatus(mirror.error());
  auto prepared = resolved->device->prepareModel(
      resolved->model, static_cast<hal::ExecutionPreference>(preference), priority,
      wire_conv::deadlineFromWire(request->deadline(), request->has_deadline()), mirror->modelCache(),
      mirror->dataCache(), *token);
  if (!prepared.ok()) return toGrpcStatus(prepared.error());
  if (auto written = mirror->collectWritten(response); !written.ok()) return toGrpcStatus(written.error());
  PreparedModelEntry entry{std::move(prepared).value(),
                           std::make_shared<const hal::Model>(std::move(resolved->model)),
                           request->device_name()};
  response->set_prepared_model_id(resolved->session->preparedModels.add(std::move(entry)));
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::PrepareModelFromCache(
    grpc::ServerContext* context, const wire::PrepareModelFromCacheRequest* request,
    wire::PrepareModelResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto device = findDevice(request->device_name(), session->identity());
  if (!device.ok()) return toGrpcStatus(device.error());
  auto token = cacheTokenFromWire(request->cache_token());
  if (!token.ok()) return toGrpcStatus(token.error());
  if (auto deadline = checkWireDuration(request->deadline().nanoseconds_from_now(), "deadline.nanoseconds_from_now");
      !deadline.ok()) {
    return toGrpcStatus(deadline.error());
  }
  if (auto quota = checkHolding(session->preparedModels.size(), session->limits().preparedModels, "prepared models",
                                "session_quotas.prepared_models");
      !quota.ok()) {
    return toGrpcStatus(quota.error());
  }
  auto mirror = CacheMirror::create(request->model_cache(), request->data_cache());
  if (!mirror.ok()) return toGrpcStatus(mirror.error());
  auto prepared = (*device)->prepareModelFromCache(
      wire_conv::deadlineFromWire(request->deadline(), request->has_deadline()), mirror->modelCache(),
      mirror->dataCache(), *token);
  if (!prepared.ok()) return toGrpcStatus(prepared.error());
  // No client sent this model: the device that loaded it describes it, so requests can be
  // checked here as for any other. The entry keeps the prepared model, which owns the model.
  const hal::Model* model = (*prepared)->getModel();
  if (model == nullptr) {
    return toGrpcStatus(makeError(ErrorStatus::GENERAL_FAILURE)
                        << request->device_name() << " prepared from cache but does not describe the model");
  }
  // A cache is no way around the allowlist: the model it held is checked like a sent one.
  if (auto allowed = checkExtensionsAllowed(*model, session->identity()); !allowed.ok()) {
    return toGrpcStatus(allowed.error());
  }
  std::shared_ptr<const hal::Model> described(*prepared, model);
  PreparedModelEntry entry{std::move(prepared).value(), std::move(described), request->device_name()};
  response->set_prepared_model_id(session->preparedModels.add(std::move(entry)));
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::ReleasePreparedModel(
    grpc::ServerContext* context, const wire::ReleasePreparedModelRequest* request, wire::Empty*) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  return toGrpcStatus(session->preparedModels.erase(request->prepared_model_id()));
}

namespace {

// An execution's outcome as the client gets it: shapes, timing, profile, and the outputs that
// travel by value.
void describeOutcome(Session& session, const wire::Request& wireRequest, const hal::Request& request,
                     const hal::Model& model, const hal::ExecutionOutcome& outcome, wire::ExecuteResponse* response) {
  for (const auto& shape : outcome.outputShapes) *response->add_output_shapes() = wire_conv::toWire(shape);
  *response->mutable_timing() = wire_conv::toWire(outcome.timing);
  if (outcome.profile) *response->mutable_profile() = wire_conv::toWire(*outcome.profile);
  collectOutputs(session, wireRequest, request, model, outcome, response);
}

grpc::Status respond(Session& session, const wire::Request& wireRequest, const hal::Request& request,
                     const hal::Model& model, const hal::Result<hal::ExecutionOutcome>& outcome,
                     wire::ExecuteResponse* response) {
  if (!outcome.ok()) return toGrpcStatus(outcome.error());
  describeOutcome(session, wireRequest, request, model, *outcome, response);
  return grpc::Status::OK;
}

}  // namespace

grpc::Status AcceleratorService::Execute(grpc::ServerContext* context, const wire::ExecuteRequest* request,
                                         wire::ExecuteResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto v = validateTimedExecution(session, *request);
  if (!v.ok()) return toGrpcStatus(v.error());
  auto outcome = v->entry.preparedModel->execute(
      v->request, v->measure, wire_conv::deadlineFromWire(request->deadline(), request->has_deadline()),
      v->loopTimeout);
  return respond(*v->session, request->request(), v->request, *v->entry.model, outcome, response);
}

grpc::Status AcceleratorService::StartExecution(grpc::ServerContext* context, const wire::ExecuteRequest* request,
                                                wire::StartExecutionResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto v = validateTimedExecution(session, *request);
  if (!v.ok()) return toGrpcStatus(v.error());
  auto started = std::make_shared<StartedExecution>();
  started->wireRequest = request->request();
  started->request = v->request;
  started->model = v->entry.model;
  auto inFlight = std::make_shared<std::optional<QuotaSlot>>(std::move(v->inFlight));
  started->outcome =
      hal::executeAsync(v->entry.preparedModel, v->request, v->measure,
                        wire_conv::deadlineFromWire(request->deadline(), request->has_deadline()), v->loopTimeout,
                        [inFlight](const hal::Result<hal::ExecutionOutcome>&) { inFlight->reset(); });
  response->set_execution_id(v->session->startedExecutions.add(std::move(started)));
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::AwaitExecution(grpc::ServerContext* context, const wire::AwaitExecutionRequest* request,
                                                wire::ExecuteResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto started = session->startedExecutions.take(request->execution_id());
  if (!started.ok()) return toGrpcStatus(started.error());
  const hal::Result<hal::ExecutionOutcome> outcome = (*started)->outcome.get();
  return respond(*session, (*started)->wireRequest, (*started)->request, *(*started)->model, outcome, response);
}

grpc::Status AcceleratorService::CreateReusableExecution(grpc::ServerContext* context,
                                                         const wire::CreateReusableExecutionRequest* request,
                                                         wire::CreateReusableExecutionResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto v = validateExecution(session, *request);
  if (!v.ok()) return toGrpcStatus(v.error());
  auto execution = v->entry.preparedModel->createReusableExecution(v->request, v->measure, v->loopTimeout);
  if (!execution.ok()) return toGrpcStatus(execution.error());
  auto reusable = std::make_shared<ReusableExecution>();
  reusable->execution = *execution;
  reusable->wireRequest = request->request();
  reusable->request = v->request;
  reusable->model = v->entry.model;
  response->set_reusable_execution_id(v->session->reusableExecutions.add(std::move(reusable)));
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::ComputeReusableExecution(grpc::ServerContext* context,
                                                          const wire::ComputeReusableExecutionRequest* request,
                                                          wire::ExecuteResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto reusable = session->reusableExecutions.find(request->reusable_execution_id());
  if (!reusable.ok()) return toGrpcStatus(reusable.error());
  ReusableExecution& r = **reusable;
  if (auto deadline = checkWireDuration(request->deadline().nanoseconds_from_now(), "deadline.nanoseconds_from_now");
      !deadline.ok()) {
    return toGrpcStatus(deadline.error());
  }
  auto inFlight = enterExecution(*session);
  if (!inFlight.ok()) return toGrpcStatus(inFlight.error());
  std::lock_guard<std::mutex> lock(r.mutex);
  // New contents for inline pools, written into the memory the execution reads.
  for (const auto& [pool, bytes] : request->updated_pools()) {
    if (pool >= static_cast<uint32_t>(r.wireRequest.pools_size()) ||
        r.wireRequest.pools(pool).memory().kind_case() != wire::Memory::kInlineData) {
      return toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT)
                          << "updated_pools names request.pools[" << pool << "], which is not an inline pool");
    }
    const auto& memory = std::get<hal::SharedMemory>(r.request.pools[pool]);
    if (bytes.size() != memory->size()) {
      return toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT)
                          << "updated_pools[" << pool << "] has " << bytes.size() << " bytes for a pool of "
                          << memory->size());
    }
    std::memcpy(memory->data(), bytes.data(), bytes.size());
  }
  const auto outcome =
      r.execution->compute(wire_conv::deadlineFromWire(request->deadline(), request->has_deadline()));
  return respond(*session, r.wireRequest, r.request, *r.model, outcome, response);
}

grpc::Status AcceleratorService::ReleaseReusableExecution(grpc::ServerContext* context,
                                                          const wire::ReleaseReusableExecutionRequest* request,
                                                          wire::Empty*) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  return toGrpcStatus(session->reusableExecutions.erase(request->reusable_execution_id()));
}

namespace {

// One burst's server side: its cached memories and executions, whether a message came on the
// stream or through the same-host shared queue. The two never overlap in time (a burst runs
// one exchange at a time), but they run on different threads, hence the mutex.
class BurstHandler {
 public:
  BurstHandler(std::shared_ptr<Session> session, PreparedModelEntry entry, hal::SharedBurst burst)
      : session_(std::move(session)), entry_(std::move(entry)), burst_(std::move(burst)),
        resolve_(resolverFor(*session_)) {}

  // Handles a cache, release or execute message; errors in an execution are reported in
  // `response`, other errors returned.
  hal::Status handle(const wire::BurstRequest& message, wire::BurstResponse* response) {
    std::lock_guard<std::mutex> lock(mutex_);
    switch (message.kind_case()) {
      case wire::BurstRequest::kCacheMemory: {
        auto memory = resolve_(message.cache_memory().memory());
        if (!memory.ok()) return hal::withContext(memory.error(), "cache_memory");
        holds_[message.cache_memory().slot()] = burst_->cacheMemory(*memory);
        slots_[message.cache_memory().slot()] = std::move(memory).value();
        return {};
      }
      case wire::BurstRequest::kReleaseMemorySlot:
        slots_.erase(message.release_memory_slot());
        holds_.erase(message.release_memory_slot());
        return {};
      case wire::BurstRequest::kExecute:
        response->set_serial(message.execute().serial());
        // An execution's failure is reported in band; the burst goes on.
        if (hal::Status status = execute(message.execute(), response); !status.ok()) {
          *response->mutable_error() = wire_conv::toWire(status.error());
        }
        return {};
      default:
        return makeError(ErrorStatus::INVALID_ARGUMENT) << "a burst was opened twice";
    }
  }

 private:
  hal::Status execute(const wire::BurstRequest::Execute& execute, wire::BurstResponse* response) {
    // Cached pools are taken from their slots; the request's own entries for them are ignored
    // (a copy of the request is patched only when there are any).
    const wire::Request* wireRequest = &execute.request();
    wire::Request patched;
    if (!execute.pool_slots().empty()) {
      patched = execute.request();
      wireRequest = &patched;
    }
    for (const auto& [pool, slot] : execute.pool_slots()) {
      if (pool >= static_cast<uint32_t>(patched.pools_size()) || slots_.count(slot) == 0) {
        return makeError(ErrorStatus::INVALID_ARGUMENT)
               << "pool_slots maps request.pools[" << pool << "] to slot " << slot
               << ", which is not a cached memory of this burst or not a pool";
      }
      patched.mutable_pools(pool)->mutable_memory()->mutable_inline_data()->set_size(0);
    }
    NN_ASSIGN_OR_RETURN(hal::Request request, wire_conv::fromWire(*wireRequest, resolve_));
    NN_RETURN_IF_ERROR(resolveBuffers(*session_, &request));
    for (const auto& [pool, slot] : execute.pool_slots()) request.pools[pool] = slots_[slot];
    NN_RETURN_IF_ERROR(hal::validateRequestForModel(request, *entry_.model, /*allowPointers=*/false));
    NN_ASSIGN_OR_RETURN(const QuotaSlot inFlight, enterExecution(*session_));
    const bool timed = execute.measure() == wire::MEASURE_TIMING_YES;
    hal::OptionalDuration loopTimeout;
    NN_RETURN_IF_ERROR(checkWireDuration(execute.deadline().nanoseconds_from_now(), "deadline.nanoseconds_from_now"));
    NN_RETURN_IF_ERROR(checkWireDuration(execute.loop_timeout_duration().nanoseconds(), "loop_timeout_duration"));
    if (execute.has_loop_timeout_duration()) loopTimeout = hal::Duration(execute.loop_timeout_duration().nanoseconds());
    NN_ASSIGN_OR_RETURN(hal::ExecutionOutcome outcome,
                        burst_->execute(request, timed ? hal::MeasureTiming::YES : hal::MeasureTiming::NO,
                                        wire_conv::deadlineFromWire(execute.deadline(), execute.has_deadline()),
                                        loopTimeout));
    wire::ExecuteResponse described;
    describeOutcome(*session_, *wireRequest, request, *entry_.model, outcome, &described);
    *response->mutable_output_shapes() = std::move(*described.mutable_output_shapes());
    *response->mutable_timing() = std::move(*described.mutable_timing());
    if (described.has_profile()) *response->mutable_profile() = std::move(*described.mutable_profile());
    *response->mutable_output_data() = std::move(*described.mutable_output_data());
    *response->mutable_output_bulk_transfer_ids() = std::move(*described.mutable_output_bulk_transfer_ids());
    return {};
  }

  std::mutex mutex_;
  std::shared_ptr<Session> session_;
  PreparedModelEntry entry_;
  hal::SharedBurst burst_;
  wire_conv::MemoryResolver resolve_;
  std::unordered_map<uint64_t, hal::SharedMemory> slots_;
  std::unordered_map<uint64_t, hal::IBurst::OptionalCacheHold> holds_;
};

// Serves a burst's shared queue on its own thread until the client closes the queue or the
// burst's stream ends. Every message gets a response there, errors included; one too large for
// the queue goes on the stream (`writeToStream`), announced through the queue.
class SharedQueueServer {
 public:
  using StreamWriter = std::function<bool(const wire::BurstResponse&)>;
  SharedQueueServer(std::unique_ptr<wire::SharedQueue> queue, BurstHandler* handler, StreamWriter writeToStream)
      : queue_(std::move(queue)), handler_(handler), writeToStream_(std::move(writeToStream)),
        thread_([this] { serve(); }) {}
  ~SharedQueueServer() {
    stop_.store(true);
    queue_->wakeServer();
    thread_.join();
    queue_->shutDown();
  }

 private:
  void serve() {
    wire::BurstRequest message;
    wire::BurstResponse response;
    size_t size = 0;
    std::string bytes;
    while (queue_->awaitRequest(&size, stop_)) {
      response.Clear();
      // Parsed from a private copy: the client could go on writing the shared region.
      bytes.assign(reinterpret_cast<const char*>(queue_->receivedRequest()), size);
      if (!message.ParseFromString(bytes)) {
        const hal::Error error = makeError(ErrorStatus::INVALID_ARGUMENT) << "a shared-queue message does not parse";
        *response.mutable_error() = wire_conv::toWire(error);
      } else if (hal::Status status = handler_->handle(message, &response); !status.ok()) {
        *response.mutable_error() = wire_conv::toWire(status.error());
      }
      if (response.ByteSizeLong() > queue_->capacity()) {
        (void)writeToStream_(response);  // if the client is gone, the stream loop ends the burst
        response.Clear();
        response.set_response_on_stream(true);
        (void)response.ByteSizeLong();
      }
      response.SerializeWithCachedSizesToArray(queue_->responseBufferForWriting());
      queue_->respond(response.ByteSizeLong());
    }
  }

  std::unique_ptr<wire::SharedQueue> queue_;
  BurstHandler* handler_;
  StreamWriter writeToStream_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace

grpc::Status AcceleratorService::Burst(
    grpc::ServerContext* context, grpc::ServerReaderWriter<wire::BurstResponse, wire::BurstRequest>* stream) {
  wire::BurstRequest message;
  if (!stream->Read(&message) || message.kind_case() != wire::BurstRequest::kOpen) {
    return toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT)
                        << "a burst must begin with an open message");
  }
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, message.open().session_id(), &session); !refused.ok()) return refused;
  auto entry = session->preparedModels.find(message.open().prepared_model_id());
  if (!entry.ok()) return toGrpcStatus(entry.error());
  auto open = QuotaSlot::take(session->openBursts, session->limits().bursts,
                              ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT, "open bursts", "session_quotas.bursts");
  if (!open.ok()) return toGrpcStatus(open.error());
  auto burst = entry->preparedModel->configureExecutionBurst();
  if (!burst.ok()) return toGrpcStatus(burst.error());
  BurstHandler handler(session, *entry, *burst);

  // A client on this host can have a shared queue; one on another host asking for it (its
  // peer address is not a unix socket) gets none.
  std::unique_ptr<SharedQueueServer> queueServer;
  if (message.open().want_shared_queue()) {
    wire::BurstResponse answer;
    if (authenticator_->isUnixPeer(*context)) {
      if (auto queue = wire::SharedQueue::create(); queue.ok()) {
        answer.mutable_shared_queue()->set_shm_name((*queue)->name());
        answer.mutable_shared_queue()->set_size((*queue)->size());
        queueServer = std::make_unique<SharedQueueServer>(
            std::move(queue).value(), &handler,
            [stream](const wire::BurstResponse& response) { return stream->Write(response); });
      }
    }
    if (!stream->Write(answer)) return grpc::Status::OK;
  }

  while (stream->Read(&message)) {
    wire::BurstResponse response;
    if (hal::Status status = handler.handle(message, &response); !status.ok()) return toGrpcStatus(status.error());
    if (message.kind_case() != wire::BurstRequest::kExecute) continue;
    if (!stream->Write(response)) break;  // the client went away
  }
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::RegisterMemory(grpc::ServerContext* context,
                                                const wire::RegisterMemoryRequest* request,
                                                wire::RegisterMemoryResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  Session& s = *session;
  if (auto quota = reserveBytes(s.registeredBytes, request->size(), s.limits().registeredMemoryBytes,
                                "session_quotas.registered_memory_mib");
      !quota.ok()) {
    return toGrpcStatus(quota.error());
  }
  auto memory = hal::mapSharedMemory(request->shm_name(), request->size());
  if (!memory.ok()) {
    s.registeredBytes -= request->size();
    return toGrpcStatus(hal::withContext(memory.error(), "shm_name"));
  }
  response->set_memory_id(s.registeredMemories.add(std::move(memory).value()));
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::UnregisterMemory(grpc::ServerContext* context,
                                                  const wire::UnregisterMemoryRequest* request,
                                                  wire::Empty*) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto memory = session->registeredMemories.take(request->memory_id());
  if (!memory.ok()) return toGrpcStatus(memory.error());
  session->registeredBytes -= (*memory)->size();
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::UploadBulk(grpc::ServerContext* context,
                                            grpc::ServerReader<wire::BulkChunk>* reader,
                                            wire::BulkTransferHandle* response) {
  wire::BulkChunk chunk;
  if (!reader->Read(&chunk)) {
    return toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT) << "UploadBulk received no chunk");
  }
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, chunk.session_id(), &session); !refused.ok()) return refused;
  const uint64_t total = chunk.total_size();
  if (total > kMaxBulkUploadBytes) {
    return toGrpcStatus(makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
                        << "total_size " << total << " exceeds the " << kMaxBulkUploadBytes
                        << "-byte limit of one bulk transfer");
  }
  // An upload is used by one call; it must fit beside what the session has registered.
  const SessionLimits& limits = session->limits();
  if (const uint64_t held = session->registeredBytes.load();
      total > limits.registeredMemoryBytes || held > limits.registeredMemoryBytes - total) {
    return toGrpcStatus(makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
                        << "an upload of " << total << " bytes does not fit beside the " << held
                        << " bytes this session has registered (session_quotas.registered_memory_mib = "
                        << (limits.registeredMemoryBytes >> 20) << ")");
  }
  auto memory = hal::createHeapMemory(total);
  if (!memory.ok()) return toGrpcStatus(memory.error());
  uint64_t received = 0;
  do {
    if (chunk.offset() != received || chunk.data().size() > total - received) {
      return toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT)
                          << "bulk chunk at offset " << chunk.offset() << " with "
                          << chunk.data().size() << " bytes does not continue the " << received
                          << " bytes received of " << total);
    }
    std::memcpy((*memory)->data() + received, chunk.data().data(), chunk.data().size());
    received += chunk.data().size();
  } while (reader->Read(&chunk));
  if (received != total) {
    return toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT)
                        << "the upload ended after " << received << " of " << total << " bytes");
  }
  response->set_session_id(chunk.session_id());
  response->set_bulk_transfer_id(session->uploads.add(std::move(memory).value()));
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::DownloadBulk(grpc::ServerContext* context,
                                              const wire::BulkTransferHandle* request,
                                              grpc::ServerWriter<wire::BulkChunk>* writer) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto download = session->downloads.take(request->bulk_transfer_id());
  if (!download.ok()) return toGrpcStatus(download.error());
  wire::BulkChunk chunk;
  chunk.set_session_id(request->session_id());
  chunk.set_total_size(download->length);
  uint64_t sent = 0;
  do {
    const uint64_t size = std::min<uint64_t>(kBulkChunkBytes, download->length - sent);
    chunk.set_offset(sent);
    chunk.set_data(download->memory->data() + download->offset + sent, size);
    if (!writer->Write(chunk)) break;  // the client went away
    sent += size;
  } while (sent < download->length);
  return grpc::Status::OK;
}


grpc::Status AcceleratorService::CreateFence(grpc::ServerContext* context, const wire::CreateFenceRequest* request,
                                             wire::CreateFenceResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  if (auto quota = checkHolding(session->fences.size(), session->limits().fences, "fences",
                                "session_quotas.fences");
      !quota.ok()) {
    return toGrpcStatus(quota.error());
  }
  response->set_fence_id(session->fences.add(hal::SyncFence::create()));
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::SignalFence(grpc::ServerContext* context, const wire::SignalFenceRequest* request,
                                             wire::Empty*) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto fence = session->fences.find(request->fence_id());
  if (!fence.ok()) return toGrpcStatus(fence.error());
  fence->signal(request->error());
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::WaitFence(grpc::ServerContext* context, const wire::WaitFenceRequest* request,
                                           wire::WaitFenceResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto fence = session->fences.find(request->fence_id());
  if (!fence.ok()) return toGrpcStatus(fence.error());
  constexpr hal::Duration kMaxWait = std::chrono::seconds(10);
  const hal::Duration timeout =
      request->has_timeout() ? std::min(kMaxWait, hal::Duration(request->timeout().nanoseconds())) : kMaxWait;
  switch (fence->wait(timeout)) {
    case hal::SyncFence::State::ACTIVE: response->set_state(wire::WaitFenceResponse::ACTIVE); break;
    case hal::SyncFence::State::SIGNALED: response->set_state(wire::WaitFenceResponse::SIGNALED); break;
    case hal::SyncFence::State::ERROR: response->set_state(wire::WaitFenceResponse::ERROR); break;
  }
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::ExecuteFenced(grpc::ServerContext* context, const wire::ExecuteFencedRequest* request,
                                               wire::ExecuteFencedResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto v = validateTimedExecution(session, *request);
  if (!v.ok()) return toGrpcStatus(v.error());
  std::vector<std::pair<uint64_t, hal::SyncFence>> waitFor;
  for (int i = 0; i < request->wait_for_fence_ids_size(); ++i) {
    auto fence = session->fences.find(request->wait_for_fence_ids(i));
    if (!fence.ok()) {
      return toGrpcStatus(hal::withContext(fence.error(), "wait_for_fence_ids[" + std::to_string(i) + "]"));
    }
    waitFor.emplace_back(request->wait_for_fence_ids(i), *fence);
  }
  const hal::OptionalTimePoint deadline =
      wire_conv::deadlineFromWire(request->deadline(), request->has_deadline());
  hal::OptionalDuration afterFence;
  if (auto after = checkWireDuration(request->timeout_duration_after_fence().nanoseconds(),
                                     "timeout_duration_after_fence");
      !after.ok()) {
    return toGrpcStatus(after.error());
  }
  if (request->has_timeout_duration_after_fence()) {
    afterFence = hal::Duration(request->timeout_duration_after_fence().nanoseconds());
  }

  if (auto quota = checkHolding(session->fences.size(), session->limits().fences, "fences", "session_quotas.fences");
      !quota.ok()) {
    return toGrpcStatus(quota.error());
  }
  auto execution = std::make_shared<FencedExecution>();
  response->set_sync_fence_id(session->fences.add(execution->done));
  response->set_execution_id(session->fencedExecutions.add(execution));
  // The execution waits on its fences in a thread of its own, so the call returns at once and
  // chains of fenced executions proceed on the server without the client.
  std::thread([session, entry = v->entry, halRequest = std::move(v->request), wireRequest = request->request(),
               waitFor = std::move(waitFor), execution, deadline, loopTimeout = v->loopTimeout, afterFence,
               measure = v->measure, inFlight = std::move(v->inFlight)]() {
    const auto called = hal::Clock::now();
    auto run = [&]() -> hal::Status {
      for (const auto& [id, fence] : waitFor) {
        hal::OptionalDuration remaining;
        if (deadline) remaining = std::chrono::duration_cast<hal::Duration>(*deadline - hal::Clock::now());
        const auto state = fence.wait(remaining);
        if (state == hal::SyncFence::State::ACTIVE) {
          return makeError(ErrorStatus::MISSED_DEADLINE_TRANSIENT)
                 << "fence " << id << " did not signal before the deadline";
        }
        if (state == hal::SyncFence::State::ERROR) {
          return makeError(ErrorStatus::GENERAL_FAILURE) << "fence " << id << " signaled an error";
        }
      }
      const auto launched = hal::Clock::now();
      hal::OptionalTimePoint executionDeadline = deadline;
      if (afterFence && (!executionDeadline || launched + *afterFence < *executionDeadline)) {
        executionDeadline = launched + *afterFence;
      }
      NN_ASSIGN_OR_RETURN(hal::ExecutionOutcome outcome,
                          entry.preparedModel->execute(halRequest, measure, executionDeadline, loopTimeout));
      std::lock_guard<std::mutex> lock(execution->mutex);
      collectOutputs(*session, wireRequest, halRequest, *entry.model, outcome, &execution->outputs);
      execution->launched = outcome.timing;
      execution->fenced = outcome.timing;
      if (execution->fenced.timeInDriver) {
        *execution->fenced.timeInDriver += std::chrono::duration_cast<hal::Duration>(launched - called);
      }
      execution->profile = outcome.profile;
      return {};
    };
    hal::Status status = run();
    {
      std::lock_guard<std::mutex> lock(execution->mutex);
      execution->status = status;
    }
    execution->done.signal(/*error=*/!status.ok());
  }).detach();
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::GetExecuteFencedInfo(grpc::ServerContext* context,
                                                      const wire::GetExecuteFencedInfoRequest* request,
                                                      wire::GetExecuteFencedInfoResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto execution = session->fencedExecutions.find(request->execution_id());
  if (!execution.ok()) return toGrpcStatus(execution.error());
  // Wait for the execution, in slices so a cancelled call does not hold a server thread.
  while ((*execution)->done.wait(std::chrono::milliseconds(200)) == hal::SyncFence::State::ACTIVE) {
    if (context->IsCancelled()) return grpc::Status::CANCELLED;
  }
  std::lock_guard<std::mutex> lock((*execution)->mutex);
  const FencedExecution& done = **execution;
  if (!done.status.ok()) {
    response->set_status(static_cast<wire::ErrorStatus>(done.status.code()));
    *response->mutable_error() = wire_conv::toWire(done.status.error());
  }
  *response->mutable_timing_launched() = wire_conv::toWire(done.launched);
  *response->mutable_timing_fenced() = wire_conv::toWire(done.fenced);
  if (done.profile) *response->mutable_profile() = wire_conv::toWire(*done.profile);
  *response->mutable_output_data() = done.outputs.output_data();
  *response->mutable_output_bulk_transfer_ids() = done.outputs.output_bulk_transfer_ids();
  (void)session->fencedExecutions.erase(request->execution_id());
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::AllocateBuffer(grpc::ServerContext* context, const wire::AllocateBufferRequest* request,
                                                wire::AllocateBufferResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto device = findDevice(request->device_name(), session->identity());
  if (!device.ok()) return toGrpcStatus(device.error());
  // Roles name prepared models by id; the device sees them as an indexed list.
  std::vector<hal::SharedPreparedModel> preparedModels;
  std::vector<const hal::Model*> models;
  std::vector<uint64_t> ids;
  auto toRoles = [&](const google::protobuf::RepeatedPtrField<wire::BufferRole>& wireRoles, const char* field)
      -> hal::Result<std::vector<hal::BufferRole>> {
    std::vector<hal::BufferRole> roles;
    for (int i = 0; i < wireRoles.size(); ++i) {
      const wire::BufferRole& role = wireRoles.Get(i);
      auto entry = session->preparedModels.find(role.prepared_model_id());
      if (!entry.ok()) return hal::withContext(entry.error(), std::string(field) + "[" + std::to_string(i) + "]");
      if (entry->deviceName != request->device_name()) {
        return makeError(ErrorStatus::INVALID_ARGUMENT)
               << field << "[" << i << "] names a model prepared on " << entry->deviceName << ", not "
               << request->device_name();
      }
      const auto at = std::find(ids.begin(), ids.end(), role.prepared_model_id());
      const uint32_t index = static_cast<uint32_t>(at - ids.begin());
      if (at == ids.end()) {
        ids.push_back(role.prepared_model_id());
        preparedModels.push_back(entry->preparedModel);
        models.push_back(entry->model.get());
      }
      roles.push_back({index, role.io_index(), role.probability()});
    }
    return roles;
  };
  auto inputRoles = toRoles(request->input_roles(), "input_roles");
  if (!inputRoles.ok()) return toGrpcStatus(inputRoles.error());
  auto outputRoles = toRoles(request->output_roles(), "output_roles");
  if (!outputRoles.ok()) return toGrpcStatus(outputRoles.error());
  const hal::BufferDesc desc{{request->dimensions().begin(), request->dimensions().end()}};
  if (auto valid = hal::validateBufferRoles(desc, models, *inputRoles, *outputRoles); !valid.ok()) {
    return toGrpcStatus(valid.error());
  }
  if (auto quota = checkHolding(session->buffers.size(), session->limits().deviceBuffers, "device buffers",
                                "session_quotas.device_buffers");
      !quota.ok()) {
    return toGrpcStatus(quota.error());
  }
  auto buffer = (*device)->allocate(desc, preparedModels, *inputRoles, *outputRoles);
  if (!buffer.ok()) return toGrpcStatus(buffer.error());
  response->set_token(session->buffers.add(std::move(buffer).value()));
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::CopyToBuffer(grpc::ServerContext* context, const wire::CopyToBufferRequest* request,
                                              wire::Empty*) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto buffer = session->buffers.find(request->token());
  if (!buffer.ok()) return toGrpcStatus(buffer.error());
  auto source = resolverFor(*session)(request->source());
  if (!source.ok()) return toGrpcStatus(hal::withContext(source.error(), "source"));
  return toGrpcStatus((*buffer)->copyFrom(*source, {request->dimensions().begin(), request->dimensions().end()}));
}

grpc::Status AcceleratorService::CopyFromBuffer(grpc::ServerContext* context, const wire::CopyFromBufferRequest* request,
                                                wire::CopyFromBufferResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto buffer = session->buffers.find(request->token());
  if (!buffer.ok()) return toGrpcStatus(buffer.error());
  auto destination = resolverFor(*session)(request->destination());
  if (!destination.ok()) return toGrpcStatus(hal::withContext(destination.error(), "destination"));
  if (auto copied = (*buffer)->copyTo(*destination); !copied.ok()) return toGrpcStatus(copied);
  if (request->destination().kind_case() == wire::Memory::kRegisteredMemoryId) return grpc::Status::OK;
  const uint64_t size = (*destination)->size();
  if (size > kMaxInlineOutputBytes) {
    response->set_bulk_transfer_id(session->downloads.add({*destination, 0, size}));
  } else {
    response->set_data((*destination)->data(), size);
  }
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::ReleaseBuffer(grpc::ServerContext* context, const wire::ReleaseBufferRequest* request,
                                               wire::Empty*) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  return toGrpcStatus(session->buffers.erase(request->token()));
}

}  // namespace nnremote::emulator
