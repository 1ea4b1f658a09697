#include "emulator/fence_reactor.h"

#include "emulator/grpc_handoff.h"

namespace nnremote::emulator {

grpc::ServerUnaryReactor* FenceReactor::start(const hal::SyncFence& fence, hal::OptionalTimePoint deadline,
                                              TimerQueue& timers, Complete complete) {
  auto* reactor = new FenceReactor(std::move(complete));
  handOffToGrpc(reactor);  // gRPC calls OnCancel on its own threads
  // The wait may end at once, on this thread, or on another before attach(): the reactor is
  // finished only once attached, since gRPC may delete it as soon as it is finished.
  reactor->attach(FenceWait::start(fence, deadline, timers, [reactor](hal::SyncFence::State state) { reactor->ended(state); }));
  return reactor;
}

void FenceReactor::OnCancel() {
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

void FenceReactor::OnDone() {
  takeBackFromGrpc(this);
  delete this;
}

void FenceReactor::attach(std::shared_ptr<FenceWait> wait) {
  std::optional<hal::SyncFence::State> ended;
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

void FenceReactor::ended(hal::SyncFence::State state) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (wait_ == nullptr) {
      ended_ = state;  // attach() finishes
      return;
    }
  }
  finish(complete_(state));
}

void FenceReactor::finish(const grpc::Status& status) {
  handOffToGrpc(this);
  Finish(status);
}

}  // namespace nnremote::emulator
