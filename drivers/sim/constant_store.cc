#include "drivers/sim/constant_store.h"

namespace nnremote::sim {

hal::SharedMemory ConstantStore::find(const hal::Digest& digest, uint64_t length) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(digest);
  if (it == entries_.end() || it->second.length != length) return nullptr;
  recency_.splice(recency_.begin(), recency_, it->second.recency);
  return it->second.data;
}

void ConstantStore::insert(const hal::Digest& digest, uint64_t length, hal::SharedMemory data) const {
  if (length > capacityBytes_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.count(digest) != 0) return;
  while (heldBytes_ + length > capacityBytes_ && !recency_.empty()) {
    auto oldest = entries_.find(recency_.back());
    heldBytes_ -= oldest->second.length;
    entries_.erase(oldest);
    recency_.pop_back();
  }
  recency_.push_front(digest);
  entries_.emplace(digest, Entry{std::move(data), length, recency_.begin()});
  heldBytes_ += length;
}

}  // namespace nnremote::sim
