// Session quotas (server_config.proto's SessionQuotas), checked before anything is allocated.
// Limits that only the client can clear by releasing what it holds fail with
// RESOURCE_EXHAUSTED_PERSISTENT; those that clear by themselves (executions finishing) with
// RESOURCE_EXHAUSTED_TRANSIENT. Every message names the limit and its value.
#ifndef NNREMOTE_EMULATOR_SESSION_QUOTAS_H_
#define NNREMOTE_EMULATOR_SESSION_QUOTAS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "hal/memory.h"
#include "hal/result.h"

namespace nnremote::emulator {

// Fails when a session already holds `held` of something limited to `limit` (one more would
// exceed it).
hal::Status checkHolding(size_t held, uint64_t limit, const char* noun, const char* field);

// The bytes a session holds on the server that only its client can let go of: shared memory it
// registered, bulk uploads not yet used up, and outputs waiting for DownloadBulk
// (session_quotas.registered_memory_mib). Shared, like SharedCount: an execution using an
// upload, or a download under way, may outlive the session.
using SharedBytes = std::shared_ptr<std::atomic<uint64_t>>;
inline SharedBytes makeSharedBytes() { return std::make_shared<std::atomic<uint64_t>>(0); }

// Adds `bytes` to `held` if the total stays within `limit`; `what` ("an upload of 4096 bytes")
// and `field` name them in the error.
hal::Status reserveBytes(std::atomic<uint64_t>& held, uint64_t bytes, uint64_t limit, const std::string& what,
                         const char* field);

// `memory`, holding `bytes` reserved in `held` until the last reference to it is gone, whoever
// holds it then: so an upload used as an execution's pool, or a pool whose output waits for
// DownloadBulk, counts once for as long as the server keeps it.
hal::SharedMemory countedMemory(hal::SharedMemory memory, SharedBytes held, uint64_t bytes);
// Whether `memory` came from countedMemory (a pool from a bulk upload does).
bool isCounted(const hal::SharedMemory& memory);

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
