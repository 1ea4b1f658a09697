#include "emulator/accelerator_service.h"

#include <algorithm>
#include <cstring>

#include "emulator/execution_requests.h"
#include "emulator/session_quotas.h"
#include "proto/conversions.h"
#include "proto/grpc_status.h"

namespace nnremote::emulator {

using hal::ErrorStatus;
using hal::makeError;
using wire_conv::toGrpcStatus;

namespace {

// Bulk chunks are this large.
constexpr size_t kBulkChunkBytes = size_t{1} << 20;
// How long RegisterMemory waits for a passed descriptor that has not arrived on its side channel
// yet: the parent sends it just before the call, so only a stalled channel takes this long.
constexpr std::chrono::milliseconds kDescriptorWait{5000};
// One bulk upload may not exceed this.
constexpr uint64_t kMaxBulkUploadBytes = uint64_t{16} << 30;

}  // namespace

hal::Result<hal::SharedMemory> AcceleratorService::mapRegisteredMemory(const wire::RegisterMemoryRequest& request) const {
  if (request.passed_descriptor() == 0) {
    auto memory = hal::mapSharedMemory(request.shm_name(), request.size());
    if (!memory.ok()) return hal::withContext(memory.error(), "shm_name");
    return memory;
  }
  if (!request.shm_name().empty()) {
    return makeError(ErrorStatus::INVALID_ARGUMENT) << "RegisterMemory names shm_name and passed_descriptor; one is enough";
  }
  if (descriptors_ == nullptr) {
    return makeError(ErrorStatus::INVALID_ARGUMENT)
           << "passed_descriptor: this server takes no descriptors (only a backend host does); register by shm_name";
  }
  NN_ASSIGN_OR_RETURN(const int descriptor, descriptors_->take(request.passed_descriptor(), kDescriptorWait));
  auto memory = hal::mapSharedDescriptor(descriptor, request.size());
  if (!memory.ok()) return hal::withContext(memory.error(), "passed_descriptor");
  return memory;
}

grpc::Status AcceleratorService::RegisterMemory(grpc::ServerContextBase* context,
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
  auto memory = mapRegisteredMemory(*request);
  if (!memory.ok()) {
    s.registeredBytes -= request->size();
    return toGrpcStatus(memory.error());
  }
  response->set_memory_id(s.registeredMemories.add(std::move(memory).value()));
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::UnregisterMemory(grpc::ServerContextBase* context,
                                                  const wire::UnregisterMemoryRequest* request,
                                                  wire::Empty*) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto memory = session->registeredMemories.take(request->memory_id());
  if (!memory.ok()) return toGrpcStatus(memory.error());
  session->registeredBytes -= (*memory)->size();
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::beginUpload(const grpc::ServerContextBase& context, const wire::BulkChunk& first,
                                             BulkUpload* upload) {
  if (auto refused = callerSession(context, first.session_id(), &upload->session); !refused.ok()) return refused;
  const Session& session = *upload->session;
  const uint64_t total = first.total_size();
  if (total > kMaxBulkUploadBytes) {
    return toGrpcStatus(makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
                        << "total_size " << total << " exceeds the " << kMaxBulkUploadBytes
                        << "-byte limit of one bulk transfer");
  }
  // An upload is used by one call; it must fit beside what the session has registered.
  const SessionLimits& limits = session.limits();
  if (const uint64_t held = session.registeredBytes.load();
      total > limits.registeredMemoryBytes || held > limits.registeredMemoryBytes - total) {
    return toGrpcStatus(makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
                        << "an upload of " << total << " bytes does not fit beside the " << held
                        << " bytes this session has registered (session_quotas.registered_memory_mib = "
                        << (limits.registeredMemoryBytes >> 20) << ")");
  }
  auto memory = hal::createHeapMemory(total);
  if (!memory.ok()) return toGrpcStatus(memory.error());
  upload->memory = std::move(memory).value();
  upload->sessionId = first.session_id();
  upload->total = total;
  return continueUpload(first, upload);
}

grpc::Status AcceleratorService::continueUpload(const wire::BulkChunk& chunk, BulkUpload* upload) {
  if (chunk.offset() != upload->received || chunk.data().size() > upload->total - upload->received) {
    return toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT)
                        << "bulk chunk at offset " << chunk.offset() << " with " << chunk.data().size()
                        << " bytes does not continue the " << upload->received << " bytes received of "
                        << upload->total);
  }
  std::memcpy(upload->memory->data() + upload->received, chunk.data().data(), chunk.data().size());
  upload->received += chunk.data().size();
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::endUpload(BulkUpload* upload, wire::BulkTransferHandle* response) {
  if (upload->received != upload->total) {
    return toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT)
                        << "the upload ended after " << upload->received << " of " << upload->total << " bytes");
  }
  response->set_session_id(upload->sessionId);
  response->set_bulk_transfer_id(upload->session->uploads.add(std::move(upload->memory)));
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::beginDownload(const grpc::ServerContextBase& context,
                                               const wire::BulkTransferHandle& request, BulkDownload* download) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(context, request.session_id(), &session); !refused.ok()) return refused;
  auto output = session->downloads.take(request.bulk_transfer_id());
  if (!output.ok()) return toGrpcStatus(output.error());
  download->sessionId = request.session_id();
  download->output = std::move(output).value();
  return grpc::Status::OK;
}

bool AcceleratorService::nextDownloadChunk(BulkDownload* download, wire::BulkChunk* chunk) {
  const PendingDownload& output = download->output;
  // An empty output still sends one chunk, which tells its size.
  if (download->started && download->sent >= output.length) return false;
  download->started = true;
  const uint64_t size = std::min<uint64_t>(kBulkChunkBytes, output.length - download->sent);
  chunk->set_session_id(download->sessionId);
  chunk->set_total_size(output.length);
  chunk->set_offset(download->sent);
  chunk->set_data(output.memory->data() + output.offset + download->sent, size);
  download->sent += size;
  return true;
}

}  // namespace nnremote::emulator
