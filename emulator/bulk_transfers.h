// UploadBulk and DownloadBulk: contents too large for one message travel in 1 MiB chunks on a
// stream. They are served in steps, a chunk at a time, each step in one callback of the call's
// reactor; the steps are plain functions so they can be tested without a stream.
#ifndef NNREMOTE_EMULATOR_BULK_TRANSFERS_H_
#define NNREMOTE_EMULATOR_BULK_TRANSFERS_H_

#include <cstdint>
#include <memory>

#include "emulator/rpc_scaffold.h"
#include "emulator/session_registry.h"
#include "hal/memory.h"
#include "wire/nnremote.pb.h"

namespace nnremote::emulator {

struct BulkUpload {
  std::shared_ptr<Session> session;
  uint64_t total = 0;
  uint64_t received = 0;
  hal::SharedMemory memory;
};
// The first chunk names the session and the size: checked against the quota, then allocated.
hal::Status beginUpload(std::shared_ptr<Session> session, const wire::BulkChunk& first, BulkUpload* upload);
// Each chunk continues where the last one ended.
hal::Status continueUpload(const wire::BulkChunk& chunk, BulkUpload* upload);
// The client's side ended: the upload is complete, or an error names what is missing.
hal::Result<wire::BulkTransferHandle> endUpload(BulkUpload* upload);

struct BulkDownload {
  uint64_t sessionId = 0;
  PendingDownload output;
  uint64_t sent = 0;
  bool started = false;  // a chunk was sent
};
hal::Status beginDownload(Session& session, const wire::BulkTransferHandle& request, BulkDownload* download);
// The next chunk to send; false once everything was sent.
bool nextDownloadChunk(BulkDownload* download, wire::BulkChunk* chunk);

// The calls' reactors, which own themselves until gRPC is done with them.
grpc::ServerReadReactor<wire::BulkChunk>* serveUpload(grpc::CallbackServerContext* context,
                                                      const RpcServices& services,
                                                      wire::BulkTransferHandle* response);
grpc::ServerWriteReactor<wire::BulkChunk>* serveDownload(grpc::CallbackServerContext* context,
                                                         const RpcServices& services,
                                                         const wire::BulkTransferHandle* request);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_BULK_TRANSFERS_H_
