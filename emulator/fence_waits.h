// Waiting for sync fences without a thread: the fence's own callback, or a timer when a
// deadline passes first, completes the wait. Serves WaitFence, GetExecuteFencedInfo and fenced
// executions, so a fence that never signals costs the server no thread.
#ifndef NNREMOTE_EMULATOR_FENCE_WAITS_H_
#define NNREMOTE_EMULATOR_FENCE_WAITS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "emulator/timer_queue.h"
#include "hal/result.h"
#include "hal/sync_fence.h"

namespace nnremote::emulator {

// One wait in progress. Whoever gets there first (the fence, the timer, or cancel()) decides
// the outcome; the others do nothing.
class FenceWait {
 public:
  // Calls `done` once: with the fence's final state, or with ACTIVE if `deadline` passes
  // first. `done` runs on the signalling thread, the timer thread, or this one.
  static std::shared_ptr<FenceWait> start(const hal::SyncFence& fence, hal::OptionalTimePoint deadline,
                                          TimerQueue& timers, std::function<void(hal::SyncFence::State)> done);
  // Gives up the wait: true if `done` has not been called and now will not be.
  bool cancel();

 private:
  FenceWait(hal::SyncFence fence, TimerQueue& timers) : fence_(std::move(fence)), timers_(timers) {}
  // True for the first caller only.
  bool claim() { return !claimed_.exchange(true); }

  hal::SyncFence fence_;
  TimerQueue& timers_;
  std::atomic<bool> claimed_{false};
  std::atomic<uint64_t> timerId_{0};
  std::atomic<uint64_t> callbackId_{0};
  std::function<void(hal::SyncFence::State)> done_;
};

// Waits for each fence in turn. `done` gets OK when all signaled, GENERAL_FAILURE naming the
// fence that signaled an error, or MISSED_DEADLINE_TRANSIENT naming the one still active when
// `deadline` passed. Fences are named by the ids given with them.
void awaitAllFences(std::vector<std::pair<uint64_t, hal::SyncFence>> fences, hal::OptionalTimePoint deadline,
                    TimerQueue& timers, std::function<void(hal::Status)> done);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_FENCE_WAITS_H_
