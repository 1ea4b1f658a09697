#include "emulator/waits_service.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "emulator/burst_reactor.h"
#include "emulator/caller_session.h"
#include "emulator/execution_requests.h"
#include "emulator/fence_waits.h"
#include "emulator/grpc_handoff.h"
#include "wire/conversions.h"
#include "wire/grpc_status.h"

namespace nnremote::emulator {
namespace {

using State = hal::SyncFence::State;
using wire::toGrpcStatus;

// A unary call that answers when a fence leaves ACTIVE (or its deadline passes): `complete`
// fills the response and gives the status. A cancelled call finishes CANCELLED and lets go of
// the fence.
class FenceReactor final : public grpc::ServerUnaryReactor {
 public:
  using Complete = std::function<grpc::Status(State)>;
  static grpc::ServerUnaryReactor* start(const hal::SyncFence& fence, hal::OptionalTimePoint deadline,
                                         TimerQueue& timers, Complete complete) {
    auto* reactor = new FenceReactor(std::move(complete));
    handOffToGrpc(reactor);  // gRPC calls OnCancel on its own threads
    // The wait may end at once, on this thread, or on another before attach(): the reactor is
    // finished only once attached, since gRPC may delete it as soon as it is finished.
    reactor->attach(FenceWait::start(fence, deadline, timers, [reactor](State state) { reactor->ended(state); }));
    return reactor;
  }

  void OnCancel() override {
    takeBackFromGrpc(this);
    std::shared_ptr<FenceWait> wait;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (wait_ == nullptr) {
        cancelled_ = true;  // attach() gives the wait up
        return;
      }
      wait = wait_;
    }
    if (wait->cancel()) finish(grpc::Status::CANCELLED);
  }

  void OnDone() override {
    takeBackFromGrpc(this);
    delete this;
  }

 private:
  explicit FenceReactor(Complete complete) : complete_(std::move(complete)) {}

  void attach(std::shared_ptr<FenceWait> wait) {
    std::optional<State> ended;
    bool cancelled;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      wait_ = wait;
      ended = ended_;
      cancelled = cancelled_;
    }
    if (ended) return finish(complete_(*ended));
    if (cancelled && wait->cancel()) finish(grpc::Status::CANCELLED);
  }

  void ended(State state) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (wait_ == nullptr) {
        ended_ = state;  // attach() finishes
        return;
      }
    }
    finish(complete_(state));
  }

  // The last thing done with the reactor: gRPC may delete it from here on.
  void finish(const grpc::Status& status) {
    handOffToGrpc(this);
    Finish(status);
  }

  Complete complete_;
  std::mutex mutex_;
  std::shared_ptr<FenceWait> wait_;  // set by attach()
  std::optional<State> ended_;       // the wait ended before attach()
  bool cancelled_ = false;           // cancelled before attach()
};

grpc::ServerUnaryReactor* finishNow(grpc::CallbackServerContext* context, const grpc::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

}  // namespace

grpc::ServerUnaryReactor* AcceleratorWaitsService::AwaitExecution(grpc::CallbackServerContext* context,
                                                                  const wire::AwaitExecutionRequest* request,
                                                                  wire::ExecuteResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(authenticator_, sessions_, *context, request->session_id(), &session);
      !refused.ok()) {
    return finishNow(context, refused);
  }
  auto taken = session->startedExecutions.take(request->execution_id());
  if (!taken.ok()) return finishNow(context, toGrpcStatus(taken.error()));
  std::shared_ptr<StartedExecution> started = std::move(taken).value();
  return FenceReactor::start(started->done, std::nullopt, timers_, [session, started, response](State) {
    std::lock_guard<std::mutex> lock(started->mutex);
    auto answered = respond(*session, started->wireRequest, started->request, *started->model, *started->outcome);
    if (!answered.ok()) return toGrpcStatus(answered.error());
    *response = std::move(answered).value();
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* AcceleratorWaitsService::GetExecuteFencedInfo(
    grpc::CallbackServerContext* context, const wire::GetExecuteFencedInfoRequest* request,
    wire::GetExecuteFencedInfoResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(authenticator_, sessions_, *context, request->session_id(), &session);
      !refused.ok()) {
    return finishNow(context, refused);
  }
  auto found = session->fencedExecutions.find(request->execution_id());
  if (!found.ok()) return finishNow(context, toGrpcStatus(found.error()));
  std::shared_ptr<FencedExecution> execution = std::move(found).value();
  const uint64_t id = request->execution_id();
  return FenceReactor::start(execution->done, std::nullopt, timers_, [session, execution, id, response](State) {
    std::lock_guard<std::mutex> lock(execution->mutex);
    *response->mutable_outcome() = execution->outcome;  // a copy: a concurrent second call gets it too
    (void)session->fencedExecutions.erase(id);
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* AcceleratorWaitsService::WaitFence(grpc::CallbackServerContext* context,
                                                             const wire::WaitFenceRequest* request,
                                                             wire::WaitFenceResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(authenticator_, sessions_, *context, request->session_id(), &session);
      !refused.ok()) {
    return finishNow(context, refused);
  }
  auto fence = session->fences.find(request->fence_id());
  if (!fence.ok()) return finishNow(context, toGrpcStatus(fence.error()));
  constexpr hal::Duration kMaxWait = std::chrono::seconds(10);
  const hal::Duration timeout =
      request->has_timeout() ? std::min(kMaxWait, hal::Duration(request->timeout().nanoseconds())) : kMaxWait;
  return FenceReactor::start(*fence, hal::Clock::now() + timeout, timers_, [response](State state) {
    switch (state) {
      case State::ACTIVE: response->set_state(wire::WaitFenceResponse::ACTIVE); break;
      case State::SIGNALED: response->set_state(wire::WaitFenceResponse::SIGNALED); break;
      case State::ERROR: response->set_state(wire::WaitFenceResponse::ERROR); break;
    }
    return grpc::Status::OK;
  });
}

grpc::ServerBidiReactor<wire::BurstRequest, wire::BurstResponse>* AcceleratorWaitsService::Burst(
    grpc::CallbackServerContext* context) {
  return startBurst(context, sessions_, authenticator_, pool_, quick_);
}

}  // namespace nnremote::emulator
