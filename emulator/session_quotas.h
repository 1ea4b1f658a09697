// Session quotas (server_config.proto's SessionQuotas), checked before anything is allocated.
// Limits that only the client can clear by releasing what it holds fail with
// RESOURCE_EXHAUSTED_PERSISTENT; those that clear by themselves (executions finishing) with
// RESOURCE_EXHAUSTED_TRANSIENT. Every message names the limit and its value.
#ifndef NNREMOTE_EMULATOR_SESSION_QUOTAS_H_
#define NNREMOTE_EMULATOR_SESSION_QUOTAS_H_

#include <atomic>
#include <cstdint>
#include <memory>

#include "hal/result.h"

namespace nnremote::emulator {

// Fails when a session already holds `held` of something limited to `limit` (one more would
// exceed it).
hal::Status checkHolding(size_t held, uint64_t limit, const char* noun, const char* field);

// Adds `bytes` to `counter` if the total stays within `limit`.
hal::Status reserveBytes(std::atomic<uint64_t>& counter, uint64_t bytes, uint64_t limit, const char* field);

// A counted quota's count, shared by its session and the slots taken from it: a started or
// fenced execution may end after its client closed the session.
using SharedCount = std::shared_ptr<std::atomic<uint32_t>>;
inline SharedCount makeSharedCount() { return std::make_shared<std::atomic<uint32_t>>(0); }

// One unit of a counted quota, held while alive (an execution in flight, an open burst).
class QuotaSlot {
 public:
  static hal::Result<QuotaSlot> take(const SharedCount& count, uint32_t limit, hal::ErrorStatus code, const char* noun,
                                     const char* field);
  QuotaSlot(QuotaSlot&& other) noexcept = default;
  QuotaSlot& operator=(QuotaSlot&&) = delete;
  ~QuotaSlot() {
    if (count_ != nullptr) count_->fetch_sub(1);
  }

 private:
  explicit QuotaSlot(SharedCount count) : count_(std::move(count)) {}
  SharedCount count_;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_SESSION_QUOTAS_H_
