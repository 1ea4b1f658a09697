// Client sessions and what they own. A session ends when its client closes it or when the
// client's WatchSessions stream breaks; everything it owned is released with it.
#ifndef NNREMOTE_EMULATOR_SESSION_REGISTRY_H_
#define NNREMOTE_EMULATOR_SESSION_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "emulator/server_config.h"
#include "emulator/session_quotas.h"
#include "hal/i_device.h"
#include "hal/i_execution.h"
#include "hal/sync_fence.h"
#include "wire/nnremote.pb.h"

namespace nnremote::emulator {

// A random non-zero 64-bit id from the OS's entropy source: ids are capabilities, so they must
// not be guessable by other clients.
uint64_t newUnguessableId();

// A prepared model as the server keeps it: the device's object plus the model it was prepared
// from, which the server needs to validate requests itself before any device sees them.
struct PreparedModelEntry {
  hal::SharedPreparedModel preparedModel;
  std::shared_ptr<const hal::Model> model;
  std::string deviceName;
};

// Objects a session owns, under random ids that other clients cannot guess.
template <typename T, typename Key = uint64_t>
class IdTable {
 public:
  IdTable(const char* field, const char* noun) : field_(field), noun_(noun) {}

  Key add(T value) {
    std::lock_guard<std::mutex> lock(mutex_);
    Key id;
    do {
      id = static_cast<Key>(newUnguessableId());
    } while (id == 0 || entries_.count(id) != 0);
    entries_.emplace(id, std::move(value));
    return id;
  }
  hal::Result<T> find(Key id) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(id);
    if (it == entries_.end()) return notFound(id);
    return it->second;
  }
  // Removes and returns the entry.
  hal::Result<T> take(Key id) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(id);
    if (it == entries_.end()) return notFound(id);
    T value = std::move(it->second);
    entries_.erase(it);
    return value;
  }
  hal::Status erase(Key id) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.erase(id) == 0) return notFound(id);
    return {};
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }
  // Every entry, copied out so `visit` runs without the lock.
  template <typename Visit>
  void forEach(Visit&& visit) const {
    std::vector<T> values;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const auto& [id, value] : entries_) values.push_back(value);
    }
    for (const T& value : values) visit(value);
  }

 private:
  hal::Error notFound(Key id) const {
    return hal::invalidArgument() << field_ << " " << id << " does not name one of this session's "
                                  << noun_;
  }

  const char* field_;
  const char* noun_;
  mutable std::mutex mutex_;
  std::unordered_map<Key, T> entries_;
};

// A sync fence a session's requests can name: one its client created, which only the client
// signals (SignalFence), or a fenced execution's, which the execution signals.
struct SessionFence {
  hal::SyncFence fence;
  bool clientSignals = false;
};

// A fenced execution running (or done) on the server.
struct FencedExecution {
  hal::SyncFence done = hal::SyncFence::create();  // signaled when finished, with an error if it failed
  std::mutex mutex;
  wire::ExecutionOutcome outcome;  // what GetExecuteFencedInfo answers once `done` signaled
};

// A reusable execution the client created: its request resolved and validated once.
struct ReusableExecution {
  std::mutex mutex;  // one compute at a time
  hal::SharedExecution execution;
  wire::Request wireRequest;  // how its outputs travel back
  hal::Request request;       // its pools; ComputeReusableExecution may rewrite inline inputs
  std::shared_ptr<const hal::Model> model;
};

// An execution StartExecution launched, until AwaitExecution collects it.
struct StartedExecution {
  hal::SyncFence done = hal::SyncFence::create();  // signaled once `outcome` is set
  std::mutex mutex;
  std::optional<hal::Result<hal::ExecutionOutcome>> outcome;
  wire::Request wireRequest;
  hal::Request request;
  std::shared_ptr<const hal::Model> model;
};

// Output bytes waiting for the client to fetch them with DownloadBulk.
struct PendingDownload {
  hal::SharedMemory memory;
  uint64_t offset = 0;
  uint64_t length = 0;
};

// What a session holds on the server at one moment: each table's entries, the executions in
// flight, open bursts and registered bytes. A client that lets go of everything it made brings
// these back to where they were (tests/drivers/proxy:execution_soak_test).
struct SessionHoldings {
  size_t preparedModels = 0, registeredMemories = 0, uploads = 0, downloads = 0, fences = 0, buffers = 0;
  size_t fencedExecutions = 0, reusableExecutions = 0, startedExecutions = 0;
  uint32_t executionsInFlight = 0, openBursts = 0;
  uint64_t heldBytes = 0;  // registered, uploaded or waiting for download (SharedBytes)

  bool operator==(const SessionHoldings& other) const;
  // "1 prepared models, 0 registered memories, ..."
  std::string toString() const;
};

// What every session of a server shares.
struct ServerBudgets {
  std::shared_ptr<const ByteBudget> pools;  // the pool memory the server allocates
  // Clients' shared memory the server maps (registered memories, bursts' shared queues): each
  // costs a mapping, and a registered one a descriptor, of which a process has a fixed number.
  std::shared_ptr<const CountBudget> mappings;
};

// Shared: a call holds its session while it runs, and a fenced execution holds it weakly until it
// launches.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(uint64_t id, std::string identity, std::string clientName, SessionLimits limits, ServerBudgets server)
      : poolBytes{makeSharedBytes(), limits.registeredMemoryBytes, "this session",
                  "session_quotas.registered_memory_mib"},
        mappedMemories{makeSharedCount(), limits.registeredMemories, "this session has", "registered memories mapped",
                       "session_quotas.registered_memories"},
        id_(id),
        identity_(std::move(identity)),
        clientName_(std::move(clientName)),
        limits_(limits),
        server_(std::move(server)) {}
  // Fences of an ended session can never be signaled by its client: they end in error, so
  // whatever waits on them (fenced executions, WaitFence) finishes and lets go.
  ~Session() {
    fences.forEach([](const SessionFence& entry) { entry.fence.signal(/*error=*/true); });
  }

  uint64_t id() const { return id_; }
  // Who opened the session; only calls from this identity may name it (caller_identity.h).
  const std::string& identity() const { return identity_; }
  const std::string& clientName() const { return clientName_; }
  const SessionLimits& limits() const { return limits_; }

  // What the session quotas count besides the tables' sizes.
  const ByteBudget poolBytes;  // every pool the session has on the server
  // Its registered memories still mapped: unregistered ones count until nothing uses them.
  const CountBudget mappedMemories;
  const SharedCount executionsInFlight = makeSharedCount();
  const SharedCount openBursts = makeSharedCount();

  IdTable<PreparedModelEntry> preparedModels{"prepared_model_id", "prepared models"};
  // Shared memory the client registered, mapped until unregistered or the session ends.
  IdTable<hal::SharedMemory> registeredMemories{"registered_memory_id", "registered memories"};
  // Bulk uploads, each used by the one model or request that names it (counted in heldBytes).
  IdTable<hal::SharedMemory> uploads{"bulk_transfer_id", "uploads"};
  IdTable<PendingDownload> downloads{"bulk_transfer_id", "pending downloads"};
  IdTable<SessionFence> fences{"fence_id", "fences"};
  // Forgets fence `id` (an unknown id is ignored). A fence only the client could signal, still
  // unsignaled, never will be now: it ends in error, as at the session's end, so that what
  // waits on it (a fenced execution, which would otherwise be kept forever) finishes.
  void releaseFence(uint64_t id);
  // Device buffers, by the 32-bit memory-domain token requests name them with.
  IdTable<hal::SharedBuffer, uint32_t> buffers{"memory_domain_token", "device buffers"};
  IdTable<std::shared_ptr<FencedExecution>> fencedExecutions{"execution_id", "fenced executions"};
  IdTable<std::shared_ptr<ReusableExecution>> reusableExecutions{"reusable_execution_id", "reusable executions"};
  IdTable<std::shared_ptr<StartedExecution>> startedExecutions{"execution_id", "started executions"};

  SessionHoldings holdings() const;

  // Where a pool's memory comes from: the client's own shared memory, mapped (it counts in the
  // session's quota only), or memory the server allocates (inline, uploaded: it counts in the
  // pool memory all sessions share as well).
  enum class PoolOrigin { kClientShared, kServerAllocated };
  // Memory for one of this session's pools, made by `make` once its bytes are reserved and
  // counted until the server lets go of it (holdMemory in session_quotas.h).
  hal::Result<hal::SharedMemory> holdMemory(uint64_t bytes, PoolOrigin origin, const char* what,
                                            const std::function<hal::Result<hal::SharedMemory>()>& make) const;
  // Fails when pools of `bytes` together could never be held (checkCouldFit in session_quotas.h).
  hal::Status checkPoolsCouldFit(uint64_t bytes, PoolOrigin origin, const char* what) const;
  // One of the server's mappings of clients' shared memory (a burst's shared queue), if any is left.
  hal::Result<QuotaSlot> takeServerMapping() const;

 private:
  std::vector<const ByteBudget*> budgetsFor(PoolOrigin origin) const;

  const uint64_t id_;
  const std::string identity_;
  const std::string clientName_;
  const SessionLimits limits_;
  const ServerBudgets server_;
};

class SessionRegistry {
 public:
  explicit SessionRegistry(SessionLimits limits = {});
  // Opens a session for `identity` with this registry's limits, unless the identity already
  // has its limit of open sessions (RESOURCE_EXHAUSTED_PERSISTENT).
  hal::Result<std::shared_ptr<Session>> open(const std::string& identity, const std::string& clientName);
  // The session `id` if `identity` opened it. Another identity's session is reported exactly
  // like one that does not exist, so ids cannot be probed.
  hal::Result<std::shared_ptr<Session>> find(uint64_t id, const std::string& identity) const;
  // Ends the session; a later find() fails. Closing an unknown session, or another identity's,
  // is an error.
  hal::Status close(uint64_t id, const std::string& identity);
  // Ends the session whoever owns it: its client is gone.
  void drop(uint64_t id);
  size_t size() const;
  // What the session `id` holds, whoever owns it (for operators and tests, never for clients).
  hal::Result<SessionHoldings> holdings(uint64_t id) const;

 private:
  const SessionLimits limits_;
  const ServerBudgets server_;
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, std::shared_ptr<Session>> sessions_;
  std::unordered_map<std::string, size_t> sessionsOf_;  // open sessions by identity
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_SESSION_REGISTRY_H_
