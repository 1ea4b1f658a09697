// The Accelerator gRPC service: serves any set of hal::IDevice to remote clients.
//
// Every RPC validates its arguments before a device sees them (models with
// hal::validateModel, requests with hal::validateRequestForModel against the model the server
// kept), so a device implementation never receives malformed input from the wire.
#ifndef NNREMOTE_EMULATOR_ACCELERATOR_SERVICE_H_
#define NNREMOTE_EMULATOR_ACCELERATOR_SERVICE_H_

#include <memory>
#include <vector>

#include "emulator/buffer_rpcs.h"
#include "emulator/caller_identity.h"
#include "emulator/descriptor_inbox.h"
#include "emulator/execution_rpcs.h"
#include "emulator/memory_rpcs.h"
#include "emulator/model_rpcs.h"
#include "emulator/quick_executions.h"
#include "emulator/rpc_scaffold.h"
#include "emulator/served_devices.h"
#include "emulator/server_config.h"
#include "emulator/session_registry.h"
#include "emulator/session_rpcs.h"
#include "emulator/session_watch_service.h"
#include "emulator/timer_queue.h"
#include "emulator/waits_service.h"
#include "emulator/work_pool.h"
#include "hal/i_device.h"

namespace nnremote::emulator {

// What serves the Accelerator RPCs: the sessions, the devices as each identity sees them, and
// the RPC families (session_rpcs.h, model_rpcs.h, execution_rpcs.h, memory_rpcs.h,
// buffer_rpcs.h, fence_rpcs.h), whose handlers rpcs() lists for the scaffold (rpc_scaffold.h)
// to serve on gRPC's callback API (accelerator_callbacks.h). No call holds a thread while it
// waits for its client: what waits is on callback services of its own, session liveness
// (sessionWatch()) and executions, fences and bursts (waits()). Work that outlives a call
// (started and fenced executions) runs on the WorkPool, and waits for fences by callback.
class AcceleratorService final {
 public:
  // Every call is identified by `authenticator` (UNAUTHENTICATED when it proves nothing the
  // server accepts); a session and its handles are usable only by the identity that opened it,
  // and an identity sees only the devices `clientAccess` gives it.
  AcceleratorService(std::vector<hal::SharedDevice> devices, SessionLimits sessionLimits,
                     ClientAccess clientAccess, std::unique_ptr<Authenticator> authenticator);

  // Where RegisterMemory finds descriptors named by passed_descriptor (a backend host's side
  // channel). Without one, that field is refused. Set before serving.
  void acceptDescriptorsFrom(std::shared_ptr<DescriptorInbox> inbox) { memory_.acceptDescriptorsFrom(std::move(inbox)); }

  // The unary RPCs' handlers, and what the scaffold serves them with.
  const RpcTable& rpcs() const { return rpcs_; }
  const RpcServices& rpcServices() const { return rpcServices_; }

  const SessionRegistry& sessions() const { return sessions_; }
  SessionRegistry& sessions() { return sessions_; }
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

 private:
  const ServedDevices devices_;
  SessionRegistry sessions_;
  const std::unique_ptr<Authenticator> authenticator_;
  SessionWatchService watch_{sessions_, *authenticator_, pool_};  // pool_ is only used once serving
  // The RPC families hold references to what follows, and are destroyed after it.
  SessionRpcs session_{sessions_, watch_, devices_};
  ModelRpcs models_{devices_};
  ExecutionRpcs executions_{pool_, timers_};
  MemoryRpcs memory_;
  BufferRpcs buffers_{devices_};
  RpcTable rpcs_;
  const RpcServices rpcServices_{*authenticator_, sessions_, pool_, quick_, timers_};
  // Declared last: destroyed first, so work still running ends before what it uses. Timers go
  // before the pool, since their callbacks hand work to it, and the pool before quick_, which
  // its tasks report to.
  QuickExecutions quick_{pool_};
  WorkPool pool_;
  TimerQueue timers_;
  AcceleratorWaitsService waits_{rpcServices_};
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_ACCELERATOR_SERVICE_H_
