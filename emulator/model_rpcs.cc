#include "emulator/model_rpcs.h"

#include <algorithm>
#include <chrono>

#include "emulator/cache_mirror.h"
#include "emulator/execution_requests.h"
#include "emulator/session_quotas.h"
#include "hal/memory.h"
#include "hal/validation.h"
#include "hal/vlog.h"
#include "wire/conversions.h"

namespace nnremote::emulator {

using hal::ErrorStatus;
using hal::makeError;

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

// What both preparation calls check before a device sees anything (the scaffold has checked the
// prepared_models quota): the cache token and the deadline; then the cache handles, mirrored.
struct CheckedPreparation {
  hal::CacheToken token;
  CacheMirror mirror;
};

template <typename Call>  // PrepareModelRequest or PrepareModelFromCacheRequest
hal::Result<CheckedPreparation> checkPreparation(const Session& session, const Call& request) {
  NN_ASSIGN_OR_RETURN(hal::CacheToken token, cacheTokenFromWire(request.cache_token()));
  NN_RETURN_IF_ERROR(checkWireDuration(request.deadline().nanoseconds_from_now(), "deadline.nanoseconds_from_now"));
  NN_ASSIGN_OR_RETURN(CacheMirror mirror, CacheMirror::create(request.model_cache(), request.data_cache()));
  return CheckedPreparation{token, std::move(mirror)};
}

}  // namespace

void ModelRpcs::addTo(RpcTable& table) {
  // On the pool: they reach a device, which may take its time.
  table.add("GetSupportedOperations", Runs::kOnPool, this, &ModelRpcs::getSupportedOperations);
  table.add("PrepareModel", Runs::kOnPool, this, &ModelRpcs::prepareModel, kHoldsPreparedModel);
  table.add("PrepareModelFromCache", Runs::kOnPool, this, &ModelRpcs::prepareModelFromCache, kHoldsPreparedModel);
  table.add("ReleasePreparedModel", Runs::kOnPool, this, &ModelRpcs::releasePreparedModel);
}

hal::Result<ModelRpcs::ResolvedModel> ModelRpcs::resolveModel(Session& session, const std::string& deviceName,
                                                              const wire::Model& wireModel) const {
  ResolvedModel resolved;
  NN_ASSIGN_OR_RETURN(resolved.device, devices_.find(deviceName, session.identity()));
  NN_RETURN_IF_ERROR(checkServerPoolsCouldFit(session, wireModel));
  NN_ASSIGN_OR_RETURN(resolved.model, wire::fromWire(wireModel, resolverFor(session)));
  NN_RETURN_IF_ERROR(hal::checkNotTruncated(resolved.model.pools, "model pool"));  // by an earlier call
  NN_RETURN_IF_ERROR(hal::validateModel(resolved.model, /*allowPointers=*/false));
  NN_RETURN_IF_ERROR(devices_.checkExtensionsAllowed(resolved.model, session.identity()));
  return resolved;
}

hal::Result<wire::GetSupportedOperationsResponse> ModelRpcs::getSupportedOperations(
    Session& session, const wire::GetSupportedOperationsRequest& request) {
  NN_ASSIGN_OR_RETURN(ResolvedModel resolved, resolveModel(session, request.device_name(), request.model()));
  NN_ASSIGN_OR_RETURN(const std::vector<bool> supported, resolved.device->getSupportedOperations(resolved.model));
  NN_RETURN_IF_ERROR(hal::checkNotTruncated(resolved.model.pools, "model pool"));  // shrunk meanwhile
  // An operation in a form newer than the device's feature level is one it cannot run, whatever
  // the device says.
  const int32_t deviceLevel = static_cast<int32_t>(resolved.device->getFeatureLevel());
  const std::vector<hal::Version> levels = hal::operationFeatureLevels(resolved.model);
  wire::GetSupportedOperationsResponse response;
  for (size_t i = 0; i < supported.size(); ++i) {
    response.add_supported(supported[i] && i < levels.size() && static_cast<int32_t>(levels[i]) <= deviceLevel);
  }
  return response;
}

hal::Result<wire::PrepareModelResponse> ModelRpcs::prepareModel(Session& session,
                                                                const wire::PrepareModelRequest& request) {
  NN_ASSIGN_OR_RETURN(ResolvedModel resolved, resolveModel(session, request.device_name(), request.model()));
  const int preference = request.preference();
  if (preference < 0 || preference > 2) {
    return hal::invalidArgument() << "preference = " << preference << " is not a valid ExecutionPreference";
  }
  const hal::Priority priority = wire::fromWire(request.priority());
  if (static_cast<int>(priority) < 0 || static_cast<int>(priority) > 2) {
    return hal::invalidArgument() << "priority = " << request.priority() << " is not a valid Priority";
  }
  NN_RETURN_IF_ERROR(
      hal::validateModelForFeatureLevel(resolved.model, resolved.device->getFeatureLevel(), request.device_name()));
  NN_ASSIGN_OR_RETURN(CheckedPreparation checked, checkPreparation(session, request));
  const auto started = std::chrono::steady_clock::now();
  auto prepared = resolved.device->prepareModel(
      resolved.model, static_cast<hal::ExecutionPreference>(preference), priority,
      wire::deadlineFromWire(request.deadline(), request.has_deadline()), checked.mirror.modelCache(),
      checked.mirror.dataCache(), checked.token);
  NN_VLOG(COMPILATION) << "session " << request.session_id() << " prepareModel on " << request.device_name() << ": "
                       << resolved.model.main.operations.size() << " operations, "
                       << (prepared.ok() ? std::string("NO_ERROR") : hal::toString(prepared.error().code)) << " in "
                       << std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count()
                       << " us";
  if (!prepared.ok()) return prepared.error();
  // Its owner shrank a pool while the device read the constants: what it compiled is void.
  NN_RETURN_IF_ERROR(hal::checkNotTruncated(resolved.model.pools, "model pool"));
  wire::PrepareModelResponse response;
  NN_RETURN_IF_ERROR(checked.mirror.collectWritten(&response));
  PreparedModelEntry entry{std::move(prepared).value(), std::make_shared<const hal::Model>(std::move(resolved.model)),
                           request.device_name()};
  response.set_prepared_model_id(session.preparedModels.add(std::move(entry)));
  return response;
}

hal::Result<wire::PrepareModelResponse> ModelRpcs::prepareModelFromCache(
    Session& session, const wire::PrepareModelFromCacheRequest& request) {
  NN_ASSIGN_OR_RETURN(hal::SharedDevice device, devices_.find(request.device_name(), session.identity()));
  NN_ASSIGN_OR_RETURN(CheckedPreparation checked, checkPreparation(session, request));
  NN_ASSIGN_OR_RETURN(hal::SharedPreparedModel prepared,
                      device->prepareModelFromCache(wire::deadlineFromWire(request.deadline(), request.has_deadline()),
                                                    checked.mirror.modelCache(), checked.mirror.dataCache(),
                                                    checked.token));
  // No client sent this model: the device that loaded it describes it, so requests can be
  // checked here as for any other. The entry keeps the prepared model, which owns the model.
  const hal::Model* model = prepared->getModel();
  if (model == nullptr) {
    return hal::makeError(ErrorStatus::GENERAL_FAILURE)
           << request.device_name() << " prepared from cache but does not describe the model";
  }
  // A cache is no way around the allowlist: the model it held is checked like a sent one.
  NN_RETURN_IF_ERROR(devices_.checkExtensionsAllowed(*model, session.identity()));
  std::shared_ptr<const hal::Model> described(prepared, model);
  PreparedModelEntry entry{std::move(prepared), std::move(described), request.device_name()};
  wire::PrepareModelResponse response;
  response.set_prepared_model_id(session.preparedModels.add(std::move(entry)));
  return response;
}

hal::Result<wire::Empty> ModelRpcs::releasePreparedModel(Session& session,
                                                         const wire::ReleasePreparedModelRequest& request) {
  NN_RETURN_IF_ERROR(session.preparedModels.erase(request.prepared_model_id()));
  return wire::Empty();
}

}  // namespace nnremote::emulator
