#include "emulator/bulk_transfers.h"

#include <algorithm>
#include <cstring>

namespace nnremote::emulator {
namespace {

using hal::ErrorStatus;
using hal::makeError;

// Bulk chunks are this large.
constexpr size_t kBulkChunkBytes = size_t{1} << 20;
// One bulk upload may not exceed this.
constexpr uint64_t kMaxBulkUploadBytes = uint64_t{16} << 30;

// UploadBulk: the first chunk opens the upload, each later one continues it, and the end of the
// client's side completes it. An error ends the call at once; what was received is dropped.
class UploadReactor final : public grpc::ServerReadReactor<wire::BulkChunk> {
 public:
  UploadReactor(grpc::CallbackServerContext* context, const RpcServices& services, wire::BulkTransferHandle* response)
      : context_(context), services_(services), response_(response) {
    handOffToGrpc(this);
    StartRead(&chunk_);
  }

  void OnReadDone(bool ok) override {
    takeBackFromGrpc(this);
    if (!ok) {  // the client's side ended (or the call was cancelled)
      if (!started_) return finish(wire::toGrpcStatus(hal::invalidArgument() << "UploadBulk received no chunk"));
      auto handle = endUpload(&upload_);
      if (!handle.ok()) return finish(wire::toGrpcStatus(handle.error()));
      *response_ = std::move(handle).value();
      return finish(grpc::Status::OK);
    }
    grpc::Status status;
    if (started_) {
      status = wire::toGrpcStatus(continueUpload(chunk_, &upload_));
    } else {
      std::shared_ptr<Session> session;
      status = callerSession(services_.authenticator, services_.sessions, *context_, chunk_.session_id(), &session);
      if (status.ok()) status = wire::toGrpcStatus(beginUpload(std::move(session), chunk_, &upload_));
    }
    started_ = true;
    if (!status.ok()) return finish(status);
    handOffToGrpc(this);
    StartRead(&chunk_);
  }

  void OnDone() override {
    takeBackFromGrpc(this);
    delete this;
  }

 private:
  void finish(const grpc::Status& status) {
    upload_.memory.reset();  // an upload that failed holds nothing
    handOffToGrpc(this);
    Finish(status);
  }

  grpc::CallbackServerContext* const context_;
  const RpcServices& services_;
  wire::BulkTransferHandle* const response_;
  wire::BulkChunk chunk_;
  BulkUpload upload_;
  bool started_ = false;
};

// DownloadBulk: one chunk in flight at a time; a client that goes away ends the call.
class DownloadReactor final : public grpc::ServerWriteReactor<wire::BulkChunk> {
 public:
  DownloadReactor(grpc::CallbackServerContext* context, const RpcServices& services,
                  const wire::BulkTransferHandle* request) {
    std::shared_ptr<Session> session;
    grpc::Status status =
        callerSession(services.authenticator, services.sessions, *context, request->session_id(), &session);
    if (status.ok()) status = wire::toGrpcStatus(beginDownload(*session, *request, &download_));
    if (!status.ok()) {
      handOffToGrpc(this);
      Finish(status);
      return;
    }
    writeNext();
  }

  void OnWriteDone(bool ok) override {
    takeBackFromGrpc(this);
    if (!ok) {  // the client went away
      handOffToGrpc(this);
      Finish(grpc::Status::OK);
      return;
    }
    writeNext();
  }

  void OnDone() override {
    takeBackFromGrpc(this);
    delete this;
  }

 private:
  void writeNext() {
    const bool more = nextDownloadChunk(&download_, &chunk_);
    if (!more) download_.output = {};  // its bytes leave the session's quota before the client hears
    handOffToGrpc(this);
    if (!more) {
      Finish(grpc::Status::OK);
      return;
    }
    StartWrite(&chunk_);
  }

  BulkDownload download_;
  wire::BulkChunk chunk_;
};

}  // namespace

hal::Status beginUpload(std::shared_ptr<Session> session, const wire::BulkChunk& first, BulkUpload* upload) {
  const uint64_t total = first.total_size();
  if (total > kMaxBulkUploadBytes) {
    return makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
           << "total_size " << total << " exceeds the " << kMaxBulkUploadBytes << "-byte limit of one bulk transfer";
  }
  // Counted from its first chunk until the call that uses it lets go of it, so neither uploads
  // under way nor uploads nobody uses can outgrow the session's quota or the server's memory.
  NN_ASSIGN_OR_RETURN(upload->memory, session->holdMemory(total, Session::PoolOrigin::kServerAllocated, "an upload",
                                                          [total] { return hal::createHeapMemory(total); }));
  upload->session = std::move(session);
  upload->total = total;
  return continueUpload(first, upload);
}

hal::Status continueUpload(const wire::BulkChunk& chunk, BulkUpload* upload) {
  if (chunk.offset() != upload->received || chunk.data().size() > upload->total - upload->received) {
    return hal::invalidArgument() << "bulk chunk at offset " << chunk.offset() << " with " << chunk.data().size()
                                  << " bytes does not continue the " << upload->received << " bytes received of "
                                  << upload->total;
  }
  std::memcpy(upload->memory->data() + upload->received, chunk.data().data(), chunk.data().size());
  upload->received += chunk.data().size();
  return {};
}

hal::Result<wire::BulkTransferHandle> endUpload(BulkUpload* upload) {
  if (upload->received != upload->total) {
    return hal::invalidArgument() << "the upload ended after " << upload->received << " of " << upload->total
                                  << " bytes";
  }
  wire::BulkTransferHandle handle;
  handle.set_session_id(upload->session->id());
  handle.set_bulk_transfer_id(upload->session->uploads.add(std::move(upload->memory)));
  return handle;
}

hal::Status beginDownload(Session& session, const wire::BulkTransferHandle& request, BulkDownload* download) {
  NN_ASSIGN_OR_RETURN(download->output, session.downloads.take(request.bulk_transfer_id()));
  download->sessionId = request.session_id();
  return {};
}

bool nextDownloadChunk(BulkDownload* download, wire::BulkChunk* chunk) {
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

grpc::ServerReadReactor<wire::BulkChunk>* serveUpload(grpc::CallbackServerContext* context,
                                                      const RpcServices& services,
                                                      wire::BulkTransferHandle* response) {
  return new UploadReactor(context, services, response);
}

grpc::ServerWriteReactor<wire::BulkChunk>* serveDownload(grpc::CallbackServerContext* context,
                                                         const RpcServices& services,
                                                         const wire::BulkTransferHandle* request) {
  return new DownloadReactor(context, services, request);
}

}  // namespace nnremote::emulator
