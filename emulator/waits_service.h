// The AcceleratorWaits service: the calls that wait (AwaitExecution, GetExecuteFencedInfo,
// WaitFence, Burst) on gRPC's callback API. A waiting call is a reactor completed by a fence's
// callback or a timer, and an open burst one that reads its next message, so none of them holds
// a thread while it waits.
#ifndef NNREMOTE_EMULATOR_WAITS_SERVICE_H_
#define NNREMOTE_EMULATOR_WAITS_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include "emulator/caller_identity.h"
#include "emulator/quick_executions.h"
#include "emulator/session_registry.h"
#include "emulator/timer_queue.h"
#include "emulator/work_pool.h"
#include "wire/nnremote.grpc.pb.h"

namespace nnremote::emulator {

class AcceleratorWaitsService final : public wire::AcceleratorWaits::CallbackService {
 public:
  AcceleratorWaitsService(const SessionRegistry& sessions, const Authenticator& authenticator, WorkPool& pool,
                          QuickExecutions& quick, TimerQueue& timers)
      : sessions_(sessions), authenticator_(authenticator), pool_(pool), quick_(quick), timers_(timers) {}

  grpc::ServerUnaryReactor* AwaitExecution(grpc::CallbackServerContext* context,
                                           const wire::AwaitExecutionRequest* request,
                                           wire::ExecuteResponse* response) override;
  grpc::ServerUnaryReactor* GetExecuteFencedInfo(grpc::CallbackServerContext* context,
                                                 const wire::GetExecuteFencedInfoRequest* request,
                                                 wire::GetExecuteFencedInfoResponse* response) override;
  // Waits at most `timeout` (10 s when longer or absent), then answers with the fence's state.
  grpc::ServerUnaryReactor* WaitFence(grpc::CallbackServerContext* context, const wire::WaitFenceRequest* request,
                                      wire::WaitFenceResponse* response) override;
  grpc::ServerBidiReactor<wire::BurstRequest, wire::BurstResponse>* Burst(
      grpc::CallbackServerContext* context) override;

 private:
  const SessionRegistry& sessions_;
  const Authenticator& authenticator_;
  WorkPool& pool_;
  QuickExecutions& quick_;
  TimerQueue& timers_;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_WAITS_SERVICE_H_
