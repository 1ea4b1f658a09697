// A sync fence: a one-shot event that an execution waits on or signals.
#ifndef NNREMOTE_HAL_SYNC_FENCE_H_
#define NNREMOTE_HAL_SYNC_FENCE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "hal/types.h"

namespace nnremote::hal {

class SyncFence {
 public:
  enum class State { ACTIVE, SIGNALED, ERROR };

  // A fence that is already signaled; also what a default-constructed fence is.
  static SyncFence createAsSignaled();
  // A new fence in the ACTIVE state, to be signaled later by its owner.
  static SyncFence create();

  SyncFence();

  // Moves an ACTIVE fence to SIGNALED (or ERROR). Later calls have no effect.
  void signal(bool error = false) const;
  State state() const;
  // Waits until the fence leaves ACTIVE, or until `timeout` passes (then returns ACTIVE).
  State wait(OptionalDuration timeout) const;

  // Waiting without a thread: `callback` runs once with the final state, on the thread that
  // signals the fence, or at once on this thread if it already left ACTIVE. The returned id
  // lets a waiter that gives up take its callback back (0 when it already ran).
  using Callback = std::function<void(State)>;
  uint64_t onSignal(Callback callback) const;
  // Drops a callback that has not started: true if it was still pending (it will not run now),
  // false if it ran or is running.
  bool cancelOnSignal(uint64_t id) const;

  bool operator==(const SyncFence& other) const { return shared_ == other.shared_; }

  // A fence can also stand for one that lives elsewhere (on a server): its owner (a connection)
  // records the remote id, so the fence can be passed back to that owner without a round trip.
  // `onLastRelease`, if set, runs when the last copy of this fence is gone: the remote side can
  // then forget the id.
  void setRemote(const void* owner, uint64_t remoteId, std::function<void()> onLastRelease = {}) const;
  std::optional<uint64_t> remoteId(const void* owner) const;

 private:
  struct Shared;
  explicit SyncFence(std::shared_ptr<Shared> shared);
  std::shared_ptr<Shared> shared_;
};

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_SYNC_FENCE_H_
