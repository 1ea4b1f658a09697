#include "drivers/proxy/proxy_device.h"
#include "drivers/proxy/stubs.h"

#include "hal/validation.h"

#include "wire/conversions.h"
#include "wire/grpc_status.h"
#include "drivers/proxy/proxy_buffer.h"
#include "drivers/proxy/proxy_prepared_model.h"
#include "drivers/proxy/pool_transport.h"
#include "hal/vlog.h"
#include <chrono>

namespace nnremote::proxy {

using hal::ErrorStatus;
using hal::makeError;

hal::Result<std::vector<std::shared_ptr<ProxyDevice>>> ProxyDevice::discover(
    std::shared_ptr<Connection> connection) {
  wire::ListDevicesRequest request;
  wire::ListDevicesResponse response;
  auto context = connection->controlContext();
  const grpc::Status status = connection->stub()->ListDevices(context.get(), request, &response);
  if (!status.ok()) return wire::fromGrpcStatus(status);
  std::vector<std::shared_ptr<ProxyDevice>> devices;
  for (const auto& info : response.devices()) {
    // A pool target offers the one device it picked.
    if (!connection->pooledDevice().empty() && info.name() != connection->pooledDevice()) continue;
    // As Android's runtime refuses such a driver: a compilation would open that many files.
    if (info.num_model_cache_files() > hal::kMaxNumberOfCacheFiles ||
        info.num_data_cache_files() > hal::kMaxNumberOfCacheFiles) {
      return makeError(ErrorStatus::GENERAL_FAILURE)
             << "the server's device " << info.name() << " needs " << info.num_model_cache_files() << " model and "
             << info.num_data_cache_files() << " data cache files; a device needs at most "
             << hal::kMaxNumberOfCacheFiles << " of each";
    }
    devices.push_back(std::make_shared<ProxyDevice>(connection, info));
  }
  return devices;
}

ProxyDevice::ProxyDevice(std::shared_ptr<Connection> connection, const wire::DeviceInfo& info)
    : connection_(std::move(connection)),
      name_(info.name()),
      versionString_(info.version_string()),
      featureLevel_(static_cast<hal::Version>(info.feature_level())),
      type_(static_cast<hal::DeviceType>(info.type())),
      capabilities_(wire::fromWire(info.capabilities())),
      cacheFilesNeeded_(info.num_model_cache_files(), info.num_data_cache_files()) {
  for (const auto& extension : info.extensions()) extensions_.push_back(wire::fromWire(extension));
  if (info.has_backend_host()) backendHost_ = std::make_shared<wire::BackendHostHealth>(info.backend_host());
}

namespace {

// A model's pools go as the connection's pool transport sends them (drivers/proxy/pool_transport.h).
wire::MemoryEncoder poolEncoder(const std::shared_ptr<Connection>& connection) {
  return [connection](const hal::SharedMemory& memory, bool withContents) {
    return connection->pools().encode(memory, withContents);
  };
}

}  // namespace

hal::Result<std::vector<bool>> ProxyDevice::getSupportedOperations(const hal::Model& model) const {
  // An invalid model is refused here, with the server's message, before it costs a round trip.
  if (connection_->options().validateOnClient) NN_RETURN_IF_ERROR(hal::validateModel(model));
  return connection_->inSessionRetryingOnce<std::vector<bool>>(
      [&](SessionRef session, bool* neverRan) -> hal::Result<std::vector<bool>> {
        wire::GetSupportedOperationsRequest request;
        request.set_session_id(session.id);
        request.set_device_name(name_);
        NN_ASSIGN_OR_RETURN(*request.mutable_model(), wire::toWire(model, poolEncoder(connection_)));
        wire::GetSupportedOperationsResponse response;
        auto context = connection_->controlContext();
        const grpc::Status status = connection_->stub()->GetSupportedOperations(context.get(), request, &response);
        if (!status.ok()) return connection_->callFailed(status, session.generation, neverRan);
        return std::vector<bool>(response.supported().begin(), response.supported().end());
      });
}

hal::Result<hal::SharedPreparedModel> ProxyDevice::prepareModel(
    const hal::Model& model, hal::ExecutionPreference preference, hal::Priority priority,
    const hal::OptionalTimePoint& deadline, const std::vector<hal::CacheFile>& modelCache,
    const std::vector<hal::CacheFile>& dataCache, const hal::CacheToken& token) const {
  if (connection_->options().validateOnClient) {
    NN_RETURN_IF_ERROR(hal::validateModel(model));
    NN_RETURN_IF_ERROR(hal::validateModelForFeatureLevel(model, featureLevel_, name_));
  }
  const auto started = std::chrono::steady_clock::now();
  auto prepared = ProxyPreparedModel::prepare(connection_, {name_, model, preference, priority}, deadline, modelCache,
                                              dataCache, token);
  NN_VLOG(COMPILATION) << "prepareModel on " << name_ << ": " << model.main.operations.size() << " operations, "
                       << (prepared.ok() ? std::string("NO_ERROR") : hal::toString(prepared.error().code)) << " in "
                       << std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count()
                       << " us round trip";
  if (!prepared.ok()) return prepared.error();
  return hal::SharedPreparedModel(std::move(prepared).value());
}

hal::Result<hal::SharedPreparedModel> ProxyDevice::prepareModelFromCache(
    const hal::OptionalTimePoint& deadline, const std::vector<hal::CacheFile>& modelCache,
    const std::vector<hal::CacheFile>& dataCache, const hal::CacheToken& token) const {
  NN_ASSIGN_OR_RETURN(auto prepared, ProxyPreparedModel::prepareFromCache(connection_, name_, deadline, modelCache,
                                                                          dataCache, token));
  return hal::SharedPreparedModel(std::move(prepared));
}

hal::Result<hal::SharedBuffer> ProxyDevice::allocate(const hal::BufferDesc& desc,
                                                     const std::vector<hal::SharedPreparedModel>& preparedModels,
                                                     const std::vector<hal::BufferRole>& inputRoles,
                                                     const std::vector<hal::BufferRole>& outputRoles) const {
  // Made again in a new session if the server had forgotten this one (nothing was allocated).
  return connection_->inSessionRetryingOnce<hal::SharedBuffer>(
      [&](SessionRef session, bool* neverRan) -> hal::Result<hal::SharedBuffer> {
        wire::AllocateBufferRequest request;
        request.set_session_id(session.id);
        request.set_device_name(name_);
        for (uint32_t d : desc.dimensions) request.add_dimensions(d);
        auto addRoles = [&](const std::vector<hal::BufferRole>& roles, const char* field,
                            google::protobuf::RepeatedPtrField<wire::BufferRole>* out) -> hal::Status {
          for (size_t i = 0; i < roles.size(); ++i) {
            const hal::BufferRole& role = roles[i];
            const auto* prepared = role.modelIndex < preparedModels.size()
                                       ? dynamic_cast<const ProxyPreparedModel*>(preparedModels[role.modelIndex].get())
                                       : nullptr;
            if (prepared == nullptr || prepared->connection() != connection_.get()) {
              return makeError(ErrorStatus::INVALID_ARGUMENT)
                     << field << "[" << i << "].modelIndex = " << role.modelIndex
                     << " does not name a model prepared through this connection";
            }
            NN_ASSIGN_OR_RETURN(const auto where, prepared->current());
            if (where.first.generation != session.generation) {
              return makeError(ErrorStatus::DEAD_OBJECT) << "the session was replaced while allocating; try again";
            }
            auto* wireRole = out->Add();
            wireRole->set_prepared_model_id(where.second);
            wireRole->set_io_index(role.ioIndex);
            wireRole->set_probability(role.probability);
          }
          return {};
        };
        NN_RETURN_IF_ERROR(addRoles(inputRoles, "inputRoles", request.mutable_input_roles()));
        NN_RETURN_IF_ERROR(addRoles(outputRoles, "outputRoles", request.mutable_output_roles()));
        wire::AllocateBufferResponse response;
        auto context = connection_->controlContext();
        const grpc::Status status = connection_->stub()->AllocateBuffer(context.get(), request, &response);
        if (!status.ok()) return connection_->callFailed(status, session.generation, neverRan);
        return hal::SharedBuffer(std::make_shared<ProxyBuffer>(connection_, session, response.token()));
      });
}

}  // namespace nnremote::proxy
