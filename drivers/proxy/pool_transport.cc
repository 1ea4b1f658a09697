#include "drivers/proxy/pool_transport.h"
#include "drivers/proxy/stubs.h"

#include <cstring>

#include "wire/conversions.h"
#include "wire/grpc_status.h"

namespace nnremote::proxy {

constexpr size_t kChunkBytes = size_t{1} << 20;

PoolTransport::PoolTransport(SessionChannel& connection, bool useSharedMemory, uint64_t bulkThresholdBytes)
    : connection_(connection), useSharedMemory_(useSharedMemory), bulkThresholdBytes_(bulkThresholdBytes) {}

PoolTransport::~PoolTransport() = default;  // the session's end releases registrations

hal::Result<wire::Memory> PoolTransport::encode(const hal::SharedMemory& memory, bool withContents) {
  if (useSharedMemory_ && (!memory->sharedName().empty() || passesDescriptor(*memory))) {
    auto id = registerShared(memory);
    if (id.ok()) {
      wire::Memory out;
      out.set_registered_memory_id(*id);
      return out;
    }
    // A lost server fails the call (the resilient path retries it, and registers again). A
    // server at a limit of its mappings gets this pool by value, and may have room for the next;
    // one that cannot map the pool at all (on another host) gets this and later pools by value.
    const hal::ErrorStatus code = id.error().code;
    if (code == hal::ErrorStatus::DEAD_OBJECT) return id.error();
    if (code != hal::ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT &&
        code != hal::ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT) {
      useSharedMemory_ = false;
    }
  }
  if (withContents && memory->size() > bulkThresholdBytes_) {
    NN_ASSIGN_OR_RETURN(const uint64_t id, upload(*memory));
    wire::Memory out;
    out.set_bulk_transfer_id(id);
    return out;
  }
  return wire::encodeInline(memory, withContents);
}

hal::Result<uint64_t> PoolTransport::registerShared(const hal::SharedMemory& memory) {
  const SessionRef session = connection_.currentSession();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    releaseExpiredLocked();
    const auto it = registrations_.find(memory.get());
    if (it != registrations_.end() && it->second.memory.lock() == memory &&
        it->second.generation == session.generation) {
      return it->second.id;
    }
  }
  wire::RegisterMemoryRequest request;
  request.set_session_id(session.id);
  request.set_size(memory->size());
  if (passesDescriptor(*memory)) {
    NN_ASSIGN_OR_RETURN(const uint64_t token, connection_.descriptorPasser()(memory->descriptor()));
    request.set_passed_descriptor(token);
  } else {
    request.set_shm_name(memory->sharedName());
  }
  wire::RegisterMemoryResponse response;
  auto context = connection_.controlContext();
  const grpc::Status status = connection_.stub()->RegisterMemory(context.get(), request, &response);
  if (!status.ok()) return connection_.callFailed(status, session.generation);
  std::lock_guard<std::mutex> lock(mutex_);
  registrations_[memory.get()] = {memory, response.memory_id(), session.generation};
  return response.memory_id();
}

bool PoolTransport::passesDescriptor(const hal::Memory& memory) const {
  return connection_.descriptorPasser() != nullptr && memory.descriptor() >= 0;
}

void PoolTransport::releaseExpired() {
  std::lock_guard<std::mutex> lock(mutex_);
  releaseExpiredLocked();
}

void PoolTransport::releaseExpiredLocked() {
  const uint64_t generation = connection_.currentSession().generation;
  for (auto it = registrations_.begin(); it != registrations_.end();) {
    if (it->second.generation != generation) {  // its session is gone, and the registration with it
      it = registrations_.erase(it);
      continue;
    }
    if (!it->second.memory.expired()) {
      ++it;
      continue;
    }
    wire::UnregisterMemoryRequest request;
    request.set_session_id(connection_.currentSession().id);
    request.set_memory_id(it->second.id);
    wire::Empty empty;
    auto context = connection_.controlContext();
    (void)connection_.stub()->UnregisterMemory(context.get(), request, &empty);
    it = registrations_.erase(it);
  }
}

size_t PoolTransport::registeredCount() const {
  const uint64_t generation = connection_.currentSession().generation;
  std::lock_guard<std::mutex> lock(mutex_);
  size_t count = 0;
  for (const auto& [memory, registration] : registrations_) count += registration.generation == generation;
  return count;
}

hal::Result<uint64_t> PoolTransport::upload(const hal::Memory& memory) {
  grpc::ClientContext context;
  wire::BulkTransferHandle handle;
  auto writer = connection_.stub()->UploadBulk(&context, &handle);
  const SessionRef session = connection_.currentSession();
  wire::BulkChunk chunk;
  chunk.set_session_id(session.id);
  chunk.set_total_size(memory.size());
  uint64_t sent = 0;
  do {
    const uint64_t size = std::min<uint64_t>(kChunkBytes, memory.size() - sent);
    chunk.set_offset(sent);
    chunk.set_data(memory.data() + sent, size);
    if (!writer->Write(chunk)) break;  // the server ended the call; Finish says why
    sent += size;
  } while (sent < memory.size());
  writer->WritesDone();
  const grpc::Status status = writer->Finish();
  if (!status.ok()) return connection_.callFailed(status, session.generation);
  return handle.bulk_transfer_id();
}

hal::Status PoolTransport::download(uint64_t bulkTransferId, uint8_t* destination, uint64_t capacity) {
  grpc::ClientContext context;
  wire::BulkTransferHandle handle;
  handle.set_session_id(connection_.currentSession().id);
  handle.set_bulk_transfer_id(bulkTransferId);
  auto reader = connection_.stub()->DownloadBulk(&context, handle);
  wire::BulkChunk chunk;
  uint64_t received = 0;
  while (reader->Read(&chunk)) {
    if (chunk.offset() != received || chunk.data().size() > capacity - received) {
      context.TryCancel();
      (void)reader->Finish();
      return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
             << "bulk download " << bulkTransferId << " sent " << chunk.data().size()
             << " bytes at offset " << chunk.offset() << " into room for " << capacity;
    }
    std::memcpy(destination + received, chunk.data().data(), chunk.data().size());
    received += chunk.data().size();
  }
  const grpc::Status status = reader->Finish();
  if (!status.ok()) return wire::fromGrpcStatus(status);
  return {};
}

}  // namespace nnremote::proxy
