#include "emulator/buffer_rpcs.h"

#include <algorithm>

#include "emulator/execution_requests.h"
#include "emulator/session_quotas.h"
#include "hal/memory.h"
#include "hal/validation.h"
#include "wire/conversions.h"

namespace nnremote::emulator {

void BufferRpcs::addTo(RpcTable& table) {
  // On the pool: they reach a device.
  table.add("AllocateBuffer", Runs::kOnPool, this, &BufferRpcs::allocateBuffer, kHoldsDeviceBuffer);
  table.add("CopyToBuffer", Runs::kOnPool, this, &BufferRpcs::copyToBuffer);
  table.add("CopyFromBuffer", Runs::kOnPool, this, &BufferRpcs::copyFromBuffer);
  table.add("ReleaseBuffer", Runs::kOnPool, this, &BufferRpcs::releaseBuffer);
}

hal::Result<wire::AllocateBufferResponse> BufferRpcs::allocateBuffer(Session& session,
                                                                     const wire::AllocateBufferRequest& request) {
  NN_ASSIGN_OR_RETURN(hal::SharedDevice device, devices_.find(request.device_name(), session.identity()));
  // Roles name prepared models by id; the device sees them as an indexed list.
  std::vector<hal::SharedPreparedModel> preparedModels;
  std::vector<const hal::Model*> models;
  std::vector<uint64_t> ids;
  auto toRoles = [&](const google::protobuf::RepeatedPtrField<wire::BufferRole>& wireRoles, const char* field)
      -> hal::Result<std::vector<hal::BufferRole>> {
    std::vector<hal::BufferRole> roles;
    for (int i = 0; i < wireRoles.size(); ++i) {
      const wire::BufferRole& role = wireRoles.Get(i);
      auto entry = session.preparedModels.find(role.prepared_model_id());
      if (!entry.ok()) return hal::withContext(entry.error(), std::string(field) + "[" + std::to_string(i) + "]");
      if (entry->deviceName != request.device_name()) {
        return hal::invalidArgument() << field << "[" << i << "] names a model prepared on " << entry->deviceName
                                      << ", not " << request.device_name();
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
  NN_ASSIGN_OR_RETURN(const std::vector<hal::BufferRole> inputRoles, toRoles(request.input_roles(), "input_roles"));
  NN_ASSIGN_OR_RETURN(const std::vector<hal::BufferRole> outputRoles, toRoles(request.output_roles(), "output_roles"));
  const hal::BufferDesc desc{{request.dimensions().begin(), request.dimensions().end()}};
  NN_RETURN_IF_ERROR(hal::validateBufferRoles(desc, models, inputRoles, outputRoles));
  NN_ASSIGN_OR_RETURN(hal::SharedBuffer buffer, device->allocate(desc, preparedModels, inputRoles, outputRoles));
  wire::AllocateBufferResponse response;
  response.set_token(session.buffers.add(std::move(buffer)));
  return response;
}

hal::Result<wire::Empty> BufferRpcs::copyToBuffer(Session& session, const wire::CopyToBufferRequest& request) {
  NN_ASSIGN_OR_RETURN(hal::SharedBuffer buffer, session.buffers.find(request.token()));
  auto source = resolverFor(session)(request.source());
  if (!source.ok()) return hal::withContext(source.error(), "source");
  NN_RETURN_IF_ERROR(hal::checkNotTruncated(*source, "source"));  // shrunk by its owner before
  NN_RETURN_IF_ERROR(buffer->copyFrom(*source, {request.dimensions().begin(), request.dimensions().end()}));
  NN_RETURN_IF_ERROR(hal::checkNotTruncated(*source, "source"));  // or meanwhile
  return wire::Empty();
}

hal::Result<wire::CopyFromBufferResponse> BufferRpcs::copyFromBuffer(Session& session,
                                                                     const wire::CopyFromBufferRequest& request) {
  NN_ASSIGN_OR_RETURN(hal::SharedBuffer buffer, session.buffers.find(request.token()));
  auto destination = resolverFor(session)(request.destination());
  if (!destination.ok()) return hal::withContext(destination.error(), "destination");
  NN_RETURN_IF_ERROR(hal::checkNotTruncated(*destination, "destination"));  // shrunk before
  NN_RETURN_IF_ERROR(buffer->copyTo(*destination));
  NN_RETURN_IF_ERROR(hal::checkNotTruncated(*destination, "destination"));  // shrunk meanwhile
  wire::CopyFromBufferResponse response;
  if (request.destination().kind_case() == wire::Memory::kRegisteredMemoryId) return response;
  const uint64_t size = (*destination)->size();
  if (size > kMaxInlineOutputBytes) {
    response.set_bulk_transfer_id(session.downloads.add({*destination, 0, size}));
  } else {
    response.set_data((*destination)->data(), size);
  }
  return response;
}

hal::Result<wire::Empty> BufferRpcs::releaseBuffer(Session& session, const wire::ReleaseBufferRequest& request) {
  NN_RETURN_IF_ERROR(session.buffers.erase(request.token()));
  return wire::Empty();
}

}  // namespace nnremote::emulator
