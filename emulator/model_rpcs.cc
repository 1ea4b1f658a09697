#include "emulator/accelerator_service.h"

#include <algorithm>

#include "emulator/cache_mirror.h"
#include "emulator/execution_requests.h"
#include "emulator/session_quotas.h"
#include "hal/validation.h"
#include "proto/conversions.h"
#include "proto/grpc_status.h"
#include "hal/vlog.h"
#include <chrono>

namespace nnremote::emulator {

using hal::ErrorStatus;
using hal::makeError;
using wire_conv::toGrpcStatus;

namespace {

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

// What both preparation calls check before a device sees anything: the cache token, the
// deadline and the session's prepared_models quota; then the cache handles, mirrored.
struct CheckedPreparation {
  hal::CacheToken token;
  CacheMirror mirror;
};

template <typename Call>  // PrepareModelRequest or PrepareModelFromCacheRequest
hal::Result<CheckedPreparation> checkPreparation(const Session& session, const Call& request) {
  NN_ASSIGN_OR_RETURN(hal::CacheToken token, cacheTokenFromWire(request.cache_token()));
  NN_RETURN_IF_ERROR(checkWireDuration(request.deadline().nanoseconds_from_now(), "deadline.nanoseconds_from_now"));
  NN_RETURN_IF_ERROR(checkHolding(session.preparedModels.size(), session.limits().preparedModels, "prepared models",
                                  "session_quotas.prepared_models"));
  NN_ASSIGN_OR_RETURN(CacheMirror mirror, CacheMirror::create(request.model_cache(), request.data_cache()));
  return CheckedPreparation{token, std::move(mirror)};
}

}  // namespace

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
    grpc::ServerContextBase* context, const wire::GetSupportedOperationsRequest* request,
    wire::GetSupportedOperationsResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto resolved = resolveModel(session, request->device_name(), request->model());
  if (!resolved.ok()) return toGrpcStatus(resolved.error());
  auto supported = resolved->device->getSupportedOperations(resolved->model);
  if (!supported.ok()) return toGrpcStatus(supported.error());
  // An operation in a form newer than the device's feature level is one it cannot run, whatever
  // the device says.
  const int32_t deviceLevel = static_cast<int32_t>(resolved->device->getFeatureLevel());
  const std::vector<hal::Version> levels = hal::operationFeatureLevels(resolved->model);
  for (size_t i = 0; i < supported->size(); ++i) {
    response->add_supported((*supported)[i] && i < levels.size() && static_cast<int32_t>(levels[i]) <= deviceLevel);
  }
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::PrepareModel(grpc::ServerContextBase* context,
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
  if (auto fits = hal::validateModelForFeatureLevel(resolved->model, resolved->device->getFeatureLevel(),
                                                    request->device_name());
      !fits.ok()) {
    return toGrpcStatus(fits.error());
  }
  auto checked = checkPreparation(*session, *request);
  if (!checked.ok()) return toGrpcStatus(checked.error());
  const hal::CacheToken& token = checked->token;
  CacheMirror* mirror = &checked->mirror;
  const auto started = std::chrono::steady_clock::now();
  auto prepared = resolved->device->prepareModel(
      resolved->model, static_cast<hal::ExecutionPreference>(preference), priority,
      wire_conv::deadlineFromWire(request->deadline(), request->has_deadline()), mirror->modelCache(),
      mirror->dataCache(), token);
  NN_VLOG(COMPILATION) << "session " << request->session_id() << " prepareModel on " << request->device_name() << ": "
                       << resolved->model.main.operations.size() << " operations, "
                       << (prepared.ok() ? std::string("NO_ERROR") : hal::toString(prepared.error().code)) << " in "
                       << std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count()
                       << " us";
  if (!prepared.ok()) return toGrpcStatus(prepared.error());
  if (auto written = mirror->collectWritten(response); !written.ok()) return toGrpcStatus(written.error());
  PreparedModelEntry entry{std::move(prepared).value(),
                           std::make_shared<const hal::Model>(std::move(resolved->model)),
                           request->device_name()};
  response->set_prepared_model_id(resolved->session->preparedModels.add(std::move(entry)));
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::PrepareModelFromCache(
    grpc::ServerContextBase* context, const wire::PrepareModelFromCacheRequest* request,
    wire::PrepareModelResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto device = findDevice(request->device_name(), session->identity());
  if (!device.ok()) return toGrpcStatus(device.error());
  auto checked = checkPreparation(*session, *request);
  if (!checked.ok()) return toGrpcStatus(checked.error());
  const hal::CacheToken& token = checked->token;
  CacheMirror* mirror = &checked->mirror;
  auto prepared = (*device)->prepareModelFromCache(
      wire_conv::deadlineFromWire(request->deadline(), request->has_deadline()), mirror->modelCache(),
      mirror->dataCache(), token);
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
    grpc::ServerContextBase* context, const wire::ReleasePreparedModelRequest* request, wire::Empty*) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  return toGrpcStatus(session->preparedModels.erase(request->prepared_model_id()));
}
}  // namespace nnremote::emulator
