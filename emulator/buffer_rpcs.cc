#include "emulator/accelerator_service.h"

#include <algorithm>

#include "emulator/execution_requests.h"
#include "emulator/session_quotas.h"
#include "hal/validation.h"
#include "proto/conversions.h"
#include "proto/grpc_status.h"

namespace nnremote::emulator {

using hal::ErrorStatus;
using hal::makeError;
using wire_conv::toGrpcStatus;

grpc::Status AcceleratorService::AllocateBuffer(grpc::ServerContextBase* context, const wire::AllocateBufferRequest* request,
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

grpc::Status AcceleratorService::CopyToBuffer(grpc::ServerContextBase* context, const wire::CopyToBufferRequest* request,
                                              wire::Empty*) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto buffer = session->buffers.find(request->token());
  if (!buffer.ok()) return toGrpcStatus(buffer.error());
  auto source = resolverFor(*session)(request->source());
  if (!source.ok()) return toGrpcStatus(hal::withContext(source.error(), "source"));
  return toGrpcStatus((*buffer)->copyFrom(*source, {request->dimensions().begin(), request->dimensions().end()}));
}

grpc::Status AcceleratorService::CopyFromBuffer(grpc::ServerContextBase* context, const wire::CopyFromBufferRequest* request,
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

grpc::Status AcceleratorService::ReleaseBuffer(grpc::ServerContextBase* context, const wire::ReleaseBufferRequest* request,
                                               wire::Empty*) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  return toGrpcStatus(session->buffers.erase(request->token()));
}
}  // namespace nnremote::emulator
