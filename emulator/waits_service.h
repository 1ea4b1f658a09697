// The AcceleratorWaits service on gRPC's callback API: AwaitExecution, GetExecuteFencedInfo and
// WaitFence from wait_rpcs' table, served by the scaffold (rpc_scaffold.h) as calls that hold no
// thread until a fence's callback or a timer completes them; and Burst, a reactor that reads an
// open burst's next message (burst_reactor.h).
#ifndef NNREMOTE_EMULATOR_WAITS_SERVICE_H_
#define NNREMOTE_EMULATOR_WAITS_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include "emulator/rpc_scaffold.h"
#include "wire/nnremote.grpc.pb.h"

namespace nnremote::emulator {

class AcceleratorWaitsService final : public wire::AcceleratorWaits::CallbackService {
 public:
  // `services` must outlive the service.
  explicit AcceleratorWaitsService(const RpcServices& services);

  grpc::ServerBidiReactor<wire::BurstRequest, wire::BurstResponse>* Burst(
      grpc::CallbackServerContext* context) override;

 private:
  const RpcServices& services_;
  RpcTable rpcs_;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_WAITS_SERVICE_H_
