#include "hal/sync_fence.h"

#include <condition_variable>
#include <mutex>

namespace nnremote::hal {

struct SyncFence::Shared {
  mutable std::mutex mutex;
  mutable std::condition_variable changed;
  State state = State::ACTIVE;
  const void* remoteOwner = nullptr;
  uint64_t remoteId = 0;
};

void SyncFence::setRemote(const void* owner, uint64_t remoteId) const {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  shared_->remoteOwner = owner;
  shared_->remoteId = remoteId;
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
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    if (shared_->state != State::ACTIVE) return;
    shared_->state = error ? State::ERROR : State::SIGNALED;
  }
  shared_->changed.notify_all();
}

SyncFence::State SyncFence::state() const {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  return shared_->state;
}

SyncFence::State SyncFence::wait(OptionalDuration timeout) const {
  std::unique_lock<std::mutex> lock(shared_->mutex);
  auto done = [this] { return shared_->state != State::ACTIVE; };
  if (timeout.has_value()) {
    shared_->changed.wait_for(lock, *timeout, done);
  } else {
    shared_->changed.wait(lock, done);
  }
  return shared_->state;
}

}  // namespace nnremote::hal
