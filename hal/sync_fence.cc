#include "hal/sync_fence.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <utility>
#include <vector>

namespace nnremote::hal {

struct SyncFence::Shared {
  ~Shared() {
    if (onLastRelease) onLastRelease();
  }
  mutable std::mutex mutex;
  mutable std::condition_variable changed;
  State state = State::ACTIVE;
  const void* remoteOwner = nullptr;
  uint64_t remoteId = 0;
  std::function<void()> onLastRelease;
  std::vector<std::pair<uint64_t, Callback>> callbacks;  // run, outside the lock, when signaled
  uint64_t nextCallbackId = 1;
};

void SyncFence::setRemote(const void* owner, uint64_t remoteId, std::function<void()> onLastRelease) const {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  shared_->remoteOwner = owner;
  shared_->remoteId = remoteId;
  shared_->onLastRelease = std::move(onLastRelease);
}

std::optional<uint64_t> SyncFence::remoteId(const void* owner) const {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  if (owner == nullptr || shared_->remoteOwner != owner) return std::nullopt;
  return shared_->remoteId;
}

SyncFence::SyncFence(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}

SyncFence::SyncFence() : SyncFence(createAsSignaled()) {}

SyncFence SyncFence::createAsSignaled() {
  auto shared = std::make_shared<Shared>();
  shared->state = State::SIGNALED;
  return SyncFence(std::move(shared));
}

SyncFence SyncFence::create() { return SyncFence(std::make_shared<Shared>()); }

void SyncFence::signal(bool error) const {
  std::vector<std::pair<uint64_t, Callback>> callbacks;
  State state;
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    if (shared_->state != State::ACTIVE) return;
    shared_->state = state = error ? State::ERROR : State::SIGNALED;
    callbacks.swap(shared_->callbacks);
  }
  shared_->changed.notify_all();
  for (auto& [id, callback] : callbacks) callback(state);
}

uint64_t SyncFence::onSignal(Callback callback) const {
  State state;
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    state = shared_->state;
    if (state == State::ACTIVE) {
      const uint64_t id = shared_->nextCallbackId++;
      shared_->callbacks.emplace_back(id, std::move(callback));
      return id;
    }
  }
  callback(state);
  return 0;
}

bool SyncFence::cancelOnSignal(uint64_t id) const {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  auto& callbacks = shared_->callbacks;
  for (auto it = callbacks.begin(); it != callbacks.end(); ++it) {
    if (it->first != id) continue;
    callbacks.erase(it);
    return true;
  }
  return false;
}

SyncFence::State SyncFence::state() const {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  return shared_->state;
}

SyncFence::State SyncFence::wait(OptionalDuration timeout) const {
  std::unique_lock<std::mutex> lock(shared_->mutex);
  auto done = [this] { return shared_->state != State::ACTIVE; };
  if (timeout.has_value()) {
    shared_->changed.wait_for(lock, std::min(*timeout, kLongestDuration), done);
  } else {
    shared_->changed.wait(lock, done);
  }
  return shared_->state;
}

}  // namespace nnremote::hal
