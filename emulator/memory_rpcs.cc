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
// One bulk upload may not exceed this.
constexpr uint64_t kMaxBulkUploadBytes = uint64_t{16} << 30;

}  // namespace

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

}  // namespace nnremote::emulator
