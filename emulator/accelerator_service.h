// The Accelerator gRPC service: serves any set of hal::IDevice to remote clients.
//
// Every RPC validates its arguments before a device sees them (models with
// hal::validateModel, requests with hal::validateRequestForModel against the model the server
// kept), so a device implementation never receives malformed input from the wire.
#ifndef NNREMOTE_EMULATOR_ACCELERATOR_SERVICE_H_
#define NNREMOTE_EMULATOR_ACCELERATOR_SERVICE_H_

#include <memory>
#include <string>
#include <vector>

#include "emulator/caller_identity.h"
#include "emulator/descriptor_inbox.h"
#include "emulator/server_config.h"
#include "emulator/session_registry.h"
#include "emulator/session_watch_service.h"
#include "emulator/timer_queue.h"
#include "emulator/quick_executions.h"
#include "emulator/waits_service.h"
#include "emulator/work_pool.h"
#include "hal/i_device.h"
#include "proto/nnremote.grpc.pb.h"
#include "proto/wire_constants.h"

namespace nnremote::emulator {

// The handlers of the Accelerator RPCs, one method each. They are served on gRPC's callback
// API by makeAcceleratorCallbacks (emulator/accelerator_callbacks.h), which answers calls that touch only the
// server's tables at once and runs those that reach a device on a WorkPool thread, so no call
// holds a thread while it waits for its client. What waits is on callback services of its own:
// session liveness (sessionWatch()) and executions, fences and bursts (waits()). Work that
// outlives a call (started and fenced executions) runs on the WorkPool, and waits for fences by
// callback.
class AcceleratorService final {
 public:
  // Every call is identified by `authenticator` (UNAUTHENTICATED when it proves nothing the
  // server accepts); a session and its handles are usable only by the identity that opened it,
  // and an identity sees only the devices `clientAccess` gives it.
  AcceleratorService(std::vector<hal::SharedDevice> devices, SessionLimits sessionLimits,
                     ClientAccess clientAccess, std::unique_ptr<Authenticator> authenticator);

  // Where RegisterMemory finds descriptors named by passed_descriptor (a backend host's side
  // channel). Without one, that field is refused. Set before serving.
  void acceptDescriptorsFrom(std::shared_ptr<DescriptorInbox> inbox) { descriptors_ = std::move(inbox); }

  const SessionRegistry& sessions() const { return sessions_; }
  SessionRegistry& sessions() { return sessions_; }

  grpc::Status OpenSession(grpc::ServerContextBase*, const wire::OpenSessionRequest*,
                           wire::OpenSessionResponse*);
  grpc::Status CloseSession(grpc::ServerContextBase*, const wire::CloseSessionRequest*,
                            wire::Empty*);
  // Session liveness (WatchSessions) is served by sessionWatch(), a callback service that holds
  // no thread per session; register it on the same server.
  SessionWatchService& sessionWatch() { return watch_; }
  const SessionWatchService& sessionWatch() const { return watch_; }
  // Ends every WatchSessions stream, so the server can shut down without waiting for them.
  void stopWatching() { watch_.stopAll(); }
  // AwaitExecution, GetExecuteFencedInfo, WaitFence and Burst: a callback service to register
  // on the same server.
  AcceleratorWaitsService& waits() { return waits_; }
  // Threads lent to calls, executions and bursts right now (for tests and benchmarks).
  const WorkPool& workPool() const { return pool_; }
  WorkPool& workPool() { return pool_; }
  QuickExecutions& quickExecutions() { return quick_; }

  grpc::Status ListDevices(grpc::ServerContextBase*, const wire::ListDevicesRequest*,
                           wire::ListDevicesResponse*);
  grpc::Status GetDeviceInfo(grpc::ServerContextBase*, const wire::GetDeviceInfoRequest*,
                             wire::DeviceInfo*);
  grpc::Status GetSupportedOperations(grpc::ServerContextBase*,
                                      const wire::GetSupportedOperationsRequest*,
                                      wire::GetSupportedOperationsResponse*);

  grpc::Status PrepareModel(grpc::ServerContextBase*, const wire::PrepareModelRequest*,
                            wire::PrepareModelResponse*);
  grpc::Status PrepareModelFromCache(grpc::ServerContextBase*, const wire::PrepareModelFromCacheRequest*,
                                     wire::PrepareModelResponse*);
  grpc::Status ReleasePreparedModel(grpc::ServerContextBase*, const wire::ReleasePreparedModelRequest*,
                                    wire::Empty*);

  grpc::Status Execute(grpc::ServerContextBase*, const wire::ExecuteRequest*,
                       wire::ExecuteResponse*);

  grpc::Status StartExecution(grpc::ServerContextBase*, const wire::ExecuteRequest*,
                              wire::StartExecutionResponse*);
  grpc::Status ExecuteFenced(grpc::ServerContextBase*, const wire::ExecuteFencedRequest*,
                             wire::ExecuteFencedResponse*);
  grpc::Status CreateReusableExecution(grpc::ServerContextBase*,
                                       const wire::CreateReusableExecutionRequest*,
                                       wire::CreateReusableExecutionResponse*);
  grpc::Status ComputeReusableExecution(grpc::ServerContextBase*,
                                        const wire::ComputeReusableExecutionRequest*,
                                        wire::ExecuteResponse*);
  grpc::Status ReleaseReusableExecution(grpc::ServerContextBase*,
                                        const wire::ReleaseReusableExecutionRequest*,
                                        wire::Empty*);
  grpc::Status RegisterMemory(grpc::ServerContextBase*, const wire::RegisterMemoryRequest*,
                              wire::RegisterMemoryResponse*);
  grpc::Status UnregisterMemory(grpc::ServerContextBase*, const wire::UnregisterMemoryRequest*,
                                wire::Empty*);
  // UploadBulk and DownloadBulk stream their chunks, so they are served in steps: a chunk at a
  // time, each step in one callback of the call's reactor.
  struct BulkUpload {
    std::shared_ptr<Session> session;
    uint64_t sessionId = 0;
    uint64_t total = 0;
    uint64_t received = 0;
    hal::SharedMemory memory;
  };
  // The first chunk names the session and the size: checked against the quota, then allocated.
  grpc::Status beginUpload(const grpc::ServerContextBase& context, const wire::BulkChunk& first, BulkUpload* upload);
  // Each chunk continues where the last one ended.
  grpc::Status continueUpload(const wire::BulkChunk& chunk, BulkUpload* upload);
  // The client's side ended: the upload is complete, or an error names what is missing.
  grpc::Status endUpload(BulkUpload* upload, wire::BulkTransferHandle* response);

  struct BulkDownload {
    uint64_t sessionId = 0;
    PendingDownload output;
    uint64_t sent = 0;
    bool started = false;  // a chunk was sent
  };
  grpc::Status beginDownload(const grpc::ServerContextBase& context, const wire::BulkTransferHandle& request,
                             BulkDownload* download);
  // The next chunk to send; false once everything was sent.
  static bool nextDownloadChunk(BulkDownload* download, wire::BulkChunk* chunk);
  grpc::Status AllocateBuffer(grpc::ServerContextBase*, const wire::AllocateBufferRequest*,
                              wire::AllocateBufferResponse*);
  grpc::Status CopyToBuffer(grpc::ServerContextBase*, const wire::CopyToBufferRequest*,
                            wire::Empty*);
  grpc::Status CopyFromBuffer(grpc::ServerContextBase*, const wire::CopyFromBufferRequest*,
                              wire::CopyFromBufferResponse*);
  grpc::Status ReleaseBuffer(grpc::ServerContextBase*, const wire::ReleaseBufferRequest*,
                             wire::Empty*);
  grpc::Status CreateFence(grpc::ServerContextBase*, const wire::CreateFenceRequest*,
                           wire::CreateFenceResponse*);
  grpc::Status SignalFence(grpc::ServerContextBase*, const wire::SignalFenceRequest*,
                           wire::Empty*);
  grpc::Status ReleaseFences(grpc::ServerContextBase*, const wire::ReleaseFencesRequest*, wire::Empty*);

 private:
  // The caller's identity, or UNAUTHENTICATED.
  grpc::Status identify(const grpc::ServerContextBase& context, std::string* identity) const {
    return authenticator_->identify(context, identity);
  }
  // The session `id` of the calling identity: UNAUTHENTICATED when the caller proves no
  // identity, INVALID_ARGUMENT when the session is not open or not the caller's.
  grpc::Status callerSession(const grpc::ServerContextBase& context, uint64_t id,
                             std::shared_ptr<Session>* session) const;
  // The pool RegisterMemory names: by shm_name, or by passed_descriptor from descriptors_.
  hal::Result<hal::SharedMemory> mapRegisteredMemory(const wire::RegisterMemoryRequest& request) const;
  // A device `identity` may see, by name; one it may not is reported as not served.
  hal::Result<hal::SharedDevice> findDevice(const std::string& name, const std::string& identity) const;
  // What GetSupportedOperations and PrepareModel both start from: the session, the device and
  // the model, decoded and validated.
  struct ResolvedModel {
    std::shared_ptr<Session> session;
    hal::SharedDevice device;
    hal::Model model;
  };
  // The device as `identity` sees it: without the extensions it may not use.
  wire::DeviceInfo deviceInfoFor(const hal::IDevice& device, const std::string& identity) const;
  // INVALID_ARGUMENT, naming it, for an extension of `model` that `identity` may not use.
  hal::Status checkExtensionsAllowed(const hal::Model& model, const std::string& identity) const;
  hal::Result<ResolvedModel> resolveModel(std::shared_ptr<Session> session, const std::string& deviceName,
                                          const wire::Model& wireModel) const;

  std::vector<hal::SharedDevice> devices_;
  SessionRegistry sessions_;
  const ClientAccess clientAccess_;
  const std::unique_ptr<Authenticator> authenticator_;
  std::shared_ptr<DescriptorInbox> descriptors_;  // null but in a backend host
  SessionWatchService watch_{sessions_, *authenticator_};
  // Declared last: destroyed first, so work still running ends before what it uses. Timers go
  // before the pool, since their callbacks hand work to it, and the pool before quick_, which
  // its tasks report to.
  QuickExecutions quick_{pool_};
  WorkPool pool_;
  TimerQueue timers_;
  AcceleratorWaitsService waits_{sessions_, *authenticator_, pool_, quick_, timers_};
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_ACCELERATOR_SERVICE_H_
