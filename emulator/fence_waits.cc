#include "emulator/fence_waits.h"

namespace nnremote::emulator {

using hal::ErrorStatus;
using hal::makeError;
using State = hal::SyncFence::State;

std::shared_ptr<FenceWait> FenceWait::start(const hal::SyncFence& fence, hal::OptionalTimePoint deadline,
                                            TimerQueue& timers, std::function<void(State)> done) {
  std::shared_ptr<FenceWait> wait(new FenceWait(fence, timers));
  wait->done_ = std::move(done);
  // The callbacks hold the wait; it lives until the last of them is gone.
  if (deadline) {
    wait->timerId_ = timers.schedule(*deadline, [wait] {
      if (!wait->claim()) return;
      wait->fence_.cancelOnSignal(wait->callbackId_.load());
      wait->done_(State::ACTIVE);
    });
  }
  const uint64_t callback = fence.onSignal([wait](State state) {
    if (!wait->claim()) return;
    if (const uint64_t timer = wait->timerId_.load(); timer != 0) wait->timers_.cancel(timer);
    wait->done_(state);
  });
  wait->callbackId_ = callback;
  // The timer may have won already; then the fence must not keep the wait (and itself) alive.
  if (wait->claimed_.load() && callback != 0) fence.cancelOnSignal(callback);
  return wait;
}

bool FenceWait::cancel() {
  if (!claim()) return false;
  if (const uint64_t timer = timerId_.load(); timer != 0) timers_.cancel(timer);
  fence_.cancelOnSignal(callbackId_.load());
  return true;
}

namespace {

struct AllFences {
  std::vector<std::pair<uint64_t, hal::SyncFence>> fences;
  hal::OptionalTimePoint deadline;
  TimerQueue* timers;
  std::function<void(hal::Status)> done;
};

void awaitFrom(std::shared_ptr<AllFences> all, size_t next) {
  // Fences that already signaled are passed in a loop, not by recursion: a request may name
  // the same fence many times.
  while (next < all->fences.size() && all->fences[next].second.state() == State::SIGNALED) ++next;
  if (next == all->fences.size()) {
    all->done({});
    return;
  }
  const uint64_t id = all->fences[next].first;
  FenceWait::start(all->fences[next].second, all->deadline, *all->timers, [all, next, id](State state) {
    switch (state) {
      case State::SIGNALED:
        awaitFrom(all, next + 1);
        return;
      case State::ERROR:
        all->done(makeError(ErrorStatus::GENERAL_FAILURE) << "fence " << id << " signaled an error");
        return;
      case State::ACTIVE:
        all->done(makeError(ErrorStatus::MISSED_DEADLINE_TRANSIENT)
                  << "fence " << id << " did not signal before the deadline");
        return;
    }
  });
}

}  // namespace

void awaitAllFences(std::vector<std::pair<uint64_t, hal::SyncFence>> fences, hal::OptionalTimePoint deadline,
                    TimerQueue& timers, std::function<void(hal::Status)> done) {
  auto all = std::make_shared<AllFences>(AllFences{std::move(fences), deadline, &timers, std::move(done)});
  awaitFrom(std::move(all), 0);
}

}  // namespace nnremote::emulator
