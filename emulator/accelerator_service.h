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
#include "emulator/server_config.h"
#include "emulator/session_registry.h"
#include "emulator/session_watch_service.h"
#include "emulator/timer_queue.h"
#include "emulator/waits_service.h"
#include "emulator/work_pool.h"
#include "hal/i_device.h"
#include "proto/nnremote.grpc.pb.h"

namespace nnremote::emulator {

// The wire version this server speaks; clients with a different major version are refused.
constexpr uint32_t kWireVersion = 1;

// Every method here is synchronous and short: in gRPC 1.51 a service with any callback method
// sends its synchronous methods through extra thread hops, about 20 us per call on a unix
// socket. What waits is on callback services of its own, so it holds no thread: session
// liveness (sessionWatch()) and executions, fences and bursts (waits()). Work that outlives a
// call (started and fenced executions) runs on a WorkPool, and waits for fences by callback.
class AcceleratorService final : public wire::Accelerator::Service {
 public:
  // Every call is identified by `authenticator` (UNAUTHENTICATED when it proves nothing the
  // server accepts); a session and its handles are usable only by the identity that opened it,
  // and an identity sees only the devices `clientAccess` gives it.
  AcceleratorService(std::vector<hal::SharedDevice> devices, SessionLimits sessionLimits,
                     ClientAccess clientAccess, std::unique_ptr<Authenticator> authenticator);

  const SessionRegistry& sessions() const { return sessions_; }

  grpc::Status OpenSession(grpc::ServerContext*, const wire::OpenSessionRequest*,
                           wire::OpenSessionResponse*) override;
  grpc::Status CloseSession(grpc::ServerContext*, const wire::CloseSessionRequest*,
                            wire::Empty*) override;
  // Session liveness (WatchSession) is served by sessionWatch(), a callback service that holds
  // no thread per session; register it on the same server.
  SessionWatchService& sessionWatch() { return watch_; }
  const SessionWatchService& sessionWatch() const { return watch_; }
  // Ends every WatchSession stream, so the server can shut down without waiting for them.
  void stopWatching() { watch_.stopAll(); }
  // AwaitExecution, GetExecuteFencedInfo, WaitFence and Burst: a callback service to register
  // on the same server.
  AcceleratorWaitsService& waits() { return waits_; }
  // Threads lent to executions and bursts right now (for tests and benchmarks).
  const WorkPool& workPool() const { return pool_; }

  grpc::Status ListDevices(grpc::ServerContext*, const wire::ListDevicesRequest*,
                           wire::ListDevicesResponse*) override;
  grpc::Status GetDeviceInfo(grpc::ServerContext*, const wire::GetDeviceInfoRequest*,
                             wire::DeviceInfo*) override;
  grpc::Status GetSupportedOperations(grpc::ServerContext*,
                                      const wire::GetSupportedOperationsRequest*,
                                      wire::GetSupportedOperationsResponse*) override;

  grpc::Status PrepareModel(grpc::ServerContext*, const wire::PrepareModelRequest*,
                            wire::PrepareModelResponse*) override;
  grpc::Status PrepareModelFromCache(grpc::ServerContext*, const wire::PrepareModelFromCacheRequest*,
                                     wire::PrepareModelResponse*) override;
  grpc::Status ReleasePreparedModel(grpc::ServerContext*, const wire::ReleasePreparedModelRequest*,
                                    wire::Empty*) override;

  grpc::Status Execute(grpc::ServerContext*, const wire::ExecuteRequest*,
                       wire::ExecuteResponse*) override;

  grpc::Status StartExecution(grpc::ServerContext*, const wire::ExecuteRequest*,
                              wire::StartExecutionResponse*) override;
  grpc::Status ExecuteFenced(grpc::ServerContext*, const wire::ExecuteFencedRequest*,
                             wire::ExecuteFencedResponse*) override;
  grpc::Status CreateReusableExecution(grpc::ServerContext*,
                                       const wire::CreateReusableExecutionRequest*,
                                       wire::CreateReusableExecutionResponse*) override;
  grpc::Status ComputeReusableExecution(grpc::ServerContext*,
                                        const wire::ComputeReusableExecutionRequest*,
                                        wire::ExecuteResponse*) override;
  grpc::Status ReleaseReusableExecution(grpc::ServerContext*,
                                        const wire::ReleaseReusableExecutionRequest*,
                                        wire::Empty*) override;
  grpc::Status RegisterMemory(grpc::ServerContext*, const wire::RegisterMemoryRequest*,
                              wire::RegisterMemoryResponse*) override;
  grpc::Status UnregisterMemory(grpc::ServerContext*, const wire::UnregisterMemoryRequest*,
                                wire::Empty*) override;
  grpc::Status UploadBulk(grpc::ServerContext*, grpc::ServerReader<wire::BulkChunk>*,
                          wire::BulkTransferHandle*) override;
  grpc::Status DownloadBulk(grpc::ServerContext*, const wire::BulkTransferHandle*,
                            grpc::ServerWriter<wire::BulkChunk>*) override;
  grpc::Status AllocateBuffer(grpc::ServerContext*, const wire::AllocateBufferRequest*,
                              wire::AllocateBufferResponse*) override;
  grpc::Status CopyToBuffer(grpc::ServerContext*, const wire::CopyToBufferRequest*,
                            wire::Empty*) override;
  grpc::Status CopyFromBuffer(grpc::ServerContext*, const wire::CopyFromBufferRequest*,
                              wire::CopyFromBufferResponse*) override;
  grpc::Status ReleaseBuffer(grpc::ServerContext*, const wire::ReleaseBufferRequest*,
                             wire::Empty*) override;
  grpc::Status CreateFence(grpc::ServerContext*, const wire::CreateFenceRequest*,
                           wire::CreateFenceResponse*) override;
  grpc::Status SignalFence(grpc::ServerContext*, const wire::SignalFenceRequest*,
                           wire::Empty*) override;

 private:
  // The caller's identity, or UNAUTHENTICATED.
  grpc::Status identify(const grpc::ServerContextBase& context, std::string* identity) const {
    return authenticator_->identify(context, identity);
  }
  // The session `id` of the calling identity: UNAUTHENTICATED when the caller proves no
  // identity, INVALID_ARGUMENT when the session is not open or not the caller's.
  grpc::Status callerSession(const grpc::ServerContextBase& context, uint64_t id,
                             std::shared_ptr<Session>* session) const;
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
  SessionWatchService watch_{sessions_, *authenticator_};
  // Declared last: destroyed first, so work still running ends before what it uses. Timers go
  // before the pool, since their callbacks hand work to it.
  WorkPool pool_;
  TimerQueue timers_;
  AcceleratorWaitsService waits_{sessions_, *authenticator_, pool_, timers_};
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_ACCELERATOR_SERVICE_H_
