// Session quotas (server_config.proto's SessionQuotas), checked before anything is allocated.
// Limits that only the client can clear by releasing what it holds fail with
// RESOURCE_EXHAUSTED_PERSISTENT; those that clear by themselves (executions finishing) with
// RESOURCE_EXHAUSTED_TRANSIENT. Every message names the limit and its value.
#ifndef NNREMOTE_EMULATOR_SESSION_QUOTAS_H_
#define NNREMOTE_EMULATOR_SESSION_QUOTAS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hal/memory.h"
#include "hal/result.h"

namespace nnremote::emulator {

// Fails when a session already holds `held` of something limited to `limit` (one more would
// exceed it).
hal::Status checkHolding(size_t held, uint64_t limit, const char* noun, const char* field);

// Bytes of pool memory held, shared like SharedCount: an execution using an upload, or a
// download under way, may outlive the session.
using SharedBytes = std::shared_ptr<std::atomic<uint64_t>>;
inline SharedBytes makeSharedBytes() { return std::make_shared<std::atomic<uint64_t>>(0); }

// Bytes held against a limit, and how an error names the limit.
struct ByteBudget {
  SharedBytes held = makeSharedBytes();
  uint64_t limit = 0;
  const char* holder;  // "this session", "this server's clients together"
  const char* field;   // "session_quotas.registered_memory_mib"
  // Past the limit with bytes others hold (they may let go): the server's budget is TRANSIENT.
  hal::ErrorStatus whenFull = hal::ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT;
};

// A counted quota's count, shared by its holder and the units taken from it: a started or
// fenced execution may end after its client closed the session.
using SharedCount = std::shared_ptr<std::atomic<uint32_t>>;
inline SharedCount makeSharedCount() { return std::make_shared<std::atomic<uint32_t>>(0); }

// Things held against a count limit, and how an error names the limit.
struct CountBudget {
  SharedCount held = makeSharedCount();
  uint32_t limit = 0;
  const char* holder;  // with its verb: "this session has", "this server's clients together have"
  const char* noun;    // "shared memories mapped"
  const char* field;   // "session_quotas.registered_memories"
  hal::ErrorStatus whenFull = hal::ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT;
};

// Reserves `bytes` in each of `budgets` and one unit in each of `counts` (in all or in none),
// then makes the memory with `make`. What comes back holds them until the last reference to it is
// gone, whoever holds it then, so memory counts for exactly as long as the server keeps it (an
// upload used by an execution, a pool whose output waits for DownloadBulk, a registered memory a
// burst still caches). `what` ("an upload") names the bytes in an error, which adds their count;
// built only then, since inline pools pass here on every execution.
hal::Result<hal::SharedMemory> holdMemory(const std::vector<const ByteBudget*>& budgets,
                                          const std::vector<const CountBudget*>& counts, uint64_t bytes,
                                          const char* what,
                                          const std::function<hal::Result<hal::SharedMemory>()>& make);

// Fails with RESOURCE_EXHAUSTED_PERSISTENT when `bytes` are more than one of `budgets` allows at
// all: pools held one by one (a request's) that together could never fit, so that the client is
// not told to retry. `what` names them as a plural ("the request's inline pools together").
hal::Status checkCouldFit(const std::vector<const ByteBudget*>& budgets, uint64_t bytes, const char* what);

// One unit of a counted quota, held while alive (an execution in flight, an open burst).
class QuotaSlot {
 public:
  static hal::Result<QuotaSlot> take(const CountBudget& budget);
  // A quota of the session's own.
  static hal::Result<QuotaSlot> take(const SharedCount& count, uint32_t limit, hal::ErrorStatus code, const char* noun,
                                     const char* field) {
    return take(CountBudget{count, limit, "this session has", noun, field, code});
  }
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
