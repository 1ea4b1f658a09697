// Session quotas (server_config.proto's SessionQuotas), checked before anything is allocated.
// Limits that only the client can clear by releasing what it holds fail with
// RESOURCE_EXHAUSTED_PERSISTENT; those that clear by themselves (executions finishing) with
// RESOURCE_EXHAUSTED_TRANSIENT. Every message names the limit and its value.
#ifndef NNREMOTE_EMULATOR_SESSION_QUOTAS_H_
#define NNREMOTE_EMULATOR_SESSION_QUOTAS_H_

#include <atomic>
#include <cstdint>

#include "hal/result.h"

namespace nnremote::emulator {

// Fails when a session already holds `held` of something limited to `limit` (one more would
// exceed it).
hal::Status checkHolding(size_t held, uint64_t limit, const char* noun, const char* field);

// Adds `bytes` to `counter` if the total stays within `limit`.
hal::Status reserveBytes(std::atomic<uint64_t>& counter, uint64_t bytes, uint64_t limit, const char* field);

// One unit of a counted quota, held while alive (an execution in flight, an open burst).
class QuotaSlot {
 public:
  static hal::Result<QuotaSlot> take(std::atomic<uint32_t>& counter, uint32_t limit, hal::ErrorStatus code,
                                     const char* noun, const char* field);
  QuotaSlot(QuotaSlot&& other) noexcept : counter_(other.counter_) { other.counter_ = nullptr; }
  QuotaSlot& operator=(QuotaSlot&&) = delete;
  ~QuotaSlot() {
    if (counter_ != nullptr) counter_->fetch_sub(1);
  }

 private:
  explicit QuotaSlot(std::atomic<uint32_t>* counter) : counter_(counter) {}
  std::atomic<uint32_t>* counter_;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_SESSION_QUOTAS_H_
