// The Accelerator RPCs of executions: Execute, StartExecution, ExecuteFenced and the reusable
// executions. Every one validates its request on the one path every executor shares
// (validateExecution, execution_requests.h). StartExecution and ExecuteFenced answer at once and
// run the execution on the pool; AwaitExecution and the fence waits are wait_rpcs.h's.
#ifndef NNREMOTE_EMULATOR_EXECUTION_RPCS_H_
#define NNREMOTE_EMULATOR_EXECUTION_RPCS_H_

#include "emulator/rpc_scaffold.h"
#include "emulator/timer_queue.h"
#include "emulator/work_pool.h"
#include "wire/nnremote.pb.h"

namespace nnremote::emulator {

class ExecutionRpcs {
 public:
  ExecutionRpcs(WorkPool& pool, TimerQueue& timers) : pool_(pool), timers_(timers) {}

  void addTo(RpcTable& table);

  hal::Result<wire::ExecuteResponse> execute(Session& session, const wire::ExecuteRequest& request);
  hal::Result<wire::StartExecutionResponse> startExecution(Session& session, const wire::ExecuteRequest& request);
  hal::Result<wire::ExecuteFencedResponse> executeFenced(Session& session, const wire::ExecuteFencedRequest& request);
  hal::Result<wire::CreateReusableExecutionResponse> createReusableExecution(
      Session& session, const wire::CreateReusableExecutionRequest& request);
  hal::Result<wire::ExecuteResponse> computeReusableExecution(Session& session,
                                                              const wire::ComputeReusableExecutionRequest& request);
  hal::Result<wire::Empty> releaseReusableExecution(Session& session,
                                                    const wire::ReleaseReusableExecutionRequest& request);

 private:
  WorkPool& pool_;
  TimerQueue& timers_;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_EXECUTION_RPCS_H_
