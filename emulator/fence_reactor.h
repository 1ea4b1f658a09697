// A unary call that answers when a fence leaves ACTIVE, or its deadline passes, without holding
// a thread meanwhile: the scaffold's awaiting RPCs (rpc_scaffold.h, wait_rpcs.h) finish on it.
#ifndef NNREMOTE_EMULATOR_FENCE_REACTOR_H_
#define NNREMOTE_EMULATOR_FENCE_REACTOR_H_

#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include <grpcpp/grpcpp.h>

#include "emulator/fence_waits.h"
#include "emulator/timer_queue.h"
#include "hal/sync_fence.h"

namespace nnremote::emulator {

class FenceReactor final : public grpc::ServerUnaryReactor {
 public:
  // Fills the response for the state the fence ended in (ACTIVE: the deadline passed) and gives
  // the call's status.
  using Complete = std::function<grpc::Status(hal::SyncFence::State)>;
  // A cancelled call finishes CANCELLED and lets go of the fence.
  static grpc::ServerUnaryReactor* start(const hal::SyncFence& fence, hal::OptionalTimePoint deadline,
                                         TimerQueue& timers, Complete complete);

  void OnCancel() override;
  void OnDone() override;

 private:
  explicit FenceReactor(Complete complete) : complete_(std::move(complete)) {}
  void attach(std::shared_ptr<FenceWait> wait);
  void ended(hal::SyncFence::State state);
  // The last thing done with the reactor: gRPC may delete it from here on.
  void finish(const grpc::Status& status);

  Complete complete_;
  std::mutex mutex_;
  std::shared_ptr<FenceWait> wait_;              // set by attach()
  std::optional<hal::SyncFence::State> ended_;  // the wait ended before attach()
  bool cancelled_ = false;                       // cancelled before attach()
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_FENCE_REACTOR_H_
