// The constant data a device keeps after saving or verifying a data cache, by SHA-256, so that
// preparing from a cache whose data it still holds reads (and, through the proxy, sends) only the
// small model cache. Like an NPU driver keeping compiled blobs in its own memory; bounded, least
// recently used first out.
#ifndef NNREMOTE_DRIVERS_SIM_CONSTANT_STORE_H_
#define NNREMOTE_DRIVERS_SIM_CONSTANT_STORE_H_

#include <cstdint>
#include <list>
#include <map>
#include <mutex>

#include "hal/compilation_cache.h"
#include "hal/memory.h"

namespace nnremote::sim {

class ConstantStore {
 public:
  explicit ConstantStore(uint64_t capacityBytes) : capacityBytes_(capacityBytes) {}

  // The data with this digest, or null. Only data whose digest this store computed itself is
  // ever inserted, so a hit is trusted.
  hal::SharedMemory find(const hal::Digest& digest, uint64_t length) const;
  void insert(const hal::Digest& digest, uint64_t length, hal::SharedMemory data) const;

 private:
  struct Entry {
    hal::SharedMemory data;
    uint64_t length = 0;
    std::list<hal::Digest>::iterator recency;
  };
  const uint64_t capacityBytes_;
  mutable std::mutex mutex_;
  mutable std::map<hal::Digest, Entry> entries_;
  mutable std::list<hal::Digest> recency_;  // most recent first
  mutable uint64_t heldBytes_ = 0;
};

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_CONSTANT_STORE_H_
