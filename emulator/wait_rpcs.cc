#include "emulator/wait_rpcs.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>

#include "emulator/execution_requests.h"

namespace nnremote::emulator {

using State = hal::SyncFence::State;

void addWaitRpcs(RpcTable& table) {
  table.addAwaiting("AwaitExecution", &awaitExecution);
  table.addAwaiting("GetExecuteFencedInfo", &getExecuteFencedInfo);
  table.addAwaiting("WaitFence", &waitFence);
}

hal::Result<AwaitedAnswer<wire::ExecuteResponse>> awaitExecution(Session& session,
                                                                 const wire::AwaitExecutionRequest& request) {
  NN_ASSIGN_OR_RETURN(std::shared_ptr<StartedExecution> started, session.startedExecutions.take(request.execution_id()));
  AwaitedAnswer<wire::ExecuteResponse> awaited;
  awaited.fence = started->done;
  awaited.answer = [session = session.shared_from_this(), started](State) {
    std::lock_guard<std::mutex> lock(started->mutex);
    return respond(*session, started->wireRequest, started->request, *started->model, *started->outcome);
  };
  return awaited;
}

hal::Result<AwaitedAnswer<wire::GetExecuteFencedInfoResponse>> getExecuteFencedInfo(
    Session& session, const wire::GetExecuteFencedInfoRequest& request) {
  NN_ASSIGN_OR_RETURN(std::shared_ptr<FencedExecution> execution, session.fencedExecutions.find(request.execution_id()));
  AwaitedAnswer<wire::GetExecuteFencedInfoResponse> awaited;
  awaited.fence = execution->done;
  awaited.answer = [session = session.shared_from_this(), execution, id = request.execution_id()](State) {
    wire::GetExecuteFencedInfoResponse response;
    std::lock_guard<std::mutex> lock(execution->mutex);
    *response.mutable_outcome() = execution->outcome;  // a copy: a concurrent second call gets it too
    (void)session->fencedExecutions.erase(id);
    return hal::Result<wire::GetExecuteFencedInfoResponse>(std::move(response));
  };
  return awaited;
}

hal::Result<AwaitedAnswer<wire::WaitFenceResponse>> waitFence(Session& session, const wire::WaitFenceRequest& request) {
  NN_ASSIGN_OR_RETURN(SessionFence entry, session.fences.find(request.fence_id()));
  const hal::SyncFence& fence = entry.fence;
  constexpr hal::Duration kMaxWait = std::chrono::seconds(10);
  const hal::Duration timeout =
      request.has_timeout() ? std::min(kMaxWait, hal::Duration(request.timeout().nanoseconds())) : kMaxWait;
  AwaitedAnswer<wire::WaitFenceResponse> awaited;
  awaited.fence = std::move(fence);
  awaited.deadline = hal::Clock::now() + timeout;
  awaited.answer = [](State state) {
    wire::WaitFenceResponse response;
    switch (state) {
      case State::ACTIVE: response.set_state(wire::WaitFenceResponse::ACTIVE); break;
      case State::SIGNALED: response.set_state(wire::WaitFenceResponse::SIGNALED); break;
      case State::ERROR: response.set_state(wire::WaitFenceResponse::ERROR); break;
    }
    return hal::Result<wire::WaitFenceResponse>(std::move(response));
  };
  return awaited;
}

}  // namespace nnremote::emulator
