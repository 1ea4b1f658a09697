#include "emulator/session_registry.h"

#include <sstream>

#include <random>

namespace nnremote::emulator {

using hal::ErrorStatus;
using hal::makeError;

uint64_t newUnguessableId() {
  static std::mutex mutex;
  static std::random_device device;
  std::lock_guard<std::mutex> lock(mutex);
  uint64_t id = 0;
  while (id == 0) id = (uint64_t{device()} << 32) | device();
  return id;
}

SessionRegistry::SessionRegistry(SessionLimits limits)
    : limits_(limits),
      server_{std::make_shared<ByteBudget>(ByteBudget{makeSharedBytes(), limits.serverPoolMemoryBytes,
                                                      "this server's clients together", "pool_memory_mib",
                                                      ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT}),
              std::make_shared<CountBudget>(CountBudget{
                  makeSharedCount(), limits.sharedMemoryMappings, "this server's clients together have",
                  "shared memories mapped", "shared_memory_mappings", ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT})} {}

hal::Result<std::shared_ptr<Session>> SessionRegistry::open(const std::string& identity,
                                                            const std::string& clientName) {
  auto session = std::make_shared<Session>(newUnguessableId(), identity, clientName, limits_, server_);
  std::lock_guard<std::mutex> lock(mutex_);
  size_t& open = sessionsOf_[identity];
  if (open >= limits_.sessionsPerIdentity) {
    return makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
           << "identity '" << identity << "' has " << open
           << " open sessions, its limit (sessions_per_identity = " << limits_.sessionsPerIdentity
           << "); close one first";
  }
  ++open;
  sessions_.emplace(session->id(), session);
  return session;
}

hal::Result<std::shared_ptr<Session>> SessionRegistry::find(uint64_t id, const std::string& identity) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second->identity() != identity) {
    return makeError(ErrorStatus::INVALID_ARGUMENT)
           << "session_id " << id << " is not an open session of yours (call OpenSession first)";
  }
  return it->second;
}

hal::Status SessionRegistry::close(uint64_t id, const std::string& identity) {
  NN_RETURN_IF_ERROR(find(id, identity).status());
  drop(id);
  return {};
}

void SessionRegistry::drop(uint64_t id) {
  std::shared_ptr<Session> session;  // released outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = sessions_.find(id);
  if (it == sessions_.end()) return;
  session = std::move(it->second);
  sessions_.erase(it);
  if (const auto of = sessionsOf_.find(session->identity()); of != sessionsOf_.end() && --of->second == 0) {
    sessionsOf_.erase(of);
  }
}

bool SessionHoldings::operator==(const SessionHoldings& o) const {
  return preparedModels == o.preparedModels && registeredMemories == o.registeredMemories && uploads == o.uploads &&
         downloads == o.downloads && fences == o.fences && buffers == o.buffers &&
         fencedExecutions == o.fencedExecutions && reusableExecutions == o.reusableExecutions &&
         startedExecutions == o.startedExecutions && executionsInFlight == o.executionsInFlight &&
         openBursts == o.openBursts && heldBytes == o.heldBytes;
}

std::string SessionHoldings::toString() const {
  std::ostringstream out;
  out << preparedModels << " prepared models, " << registeredMemories << " registered memories, " << uploads
      << " uploads, " << downloads << " pending downloads, " << fences << " fences, " << buffers << " device buffers, "
      << fencedExecutions << " fenced executions, " << reusableExecutions << " reusable executions, "
      << startedExecutions << " started executions, " << executionsInFlight << " executions in flight, " << openBursts
      << " open bursts, " << heldBytes << " held bytes";
  return out.str();
}

std::vector<const ByteBudget*> Session::budgetsFor(PoolOrigin origin) const {
  std::vector<const ByteBudget*> budgets{&poolBytes};
  if (origin == PoolOrigin::kServerAllocated) budgets.push_back(server_.pools.get());
  return budgets;
}

hal::Result<hal::SharedMemory> Session::holdMemory(uint64_t bytes, PoolOrigin origin, const char* what,
                                                   const std::function<hal::Result<hal::SharedMemory>()>& make) const {
  // The client's own memory costs no bytes of the server's, but a mapping and a descriptor.
  std::vector<const CountBudget*> mappings;
  if (origin == PoolOrigin::kClientShared) mappings = {&mappedMemories, server_.mappings.get()};
  return emulator::holdMemory(budgetsFor(origin), mappings, bytes, what, make);
}

hal::Status Session::checkPoolsCouldFit(uint64_t bytes, PoolOrigin origin, const char* what) const {
  // Every execution passes here, most with no server-allocated pools (shared memory, a burst's
  // cached pools): those need no budget list built.
  if (bytes == 0) return {};
  return emulator::checkCouldFit(budgetsFor(origin), bytes, what);
}

hal::Result<QuotaSlot> Session::takeServerMapping() const { return QuotaSlot::take(*server_.mappings); }

void Session::releaseFence(uint64_t id) {
  auto released = fences.take(id);
  if (released.ok() && released->clientSignals && released->fence.state() == hal::SyncFence::State::ACTIVE) {
    released->fence.signal(/*error=*/true);
  }
}

SessionHoldings Session::holdings() const {
  SessionHoldings h;
  h.preparedModels = preparedModels.size();
  h.registeredMemories = registeredMemories.size();
  h.uploads = uploads.size();
  h.downloads = downloads.size();
  h.fences = fences.size();
  h.buffers = buffers.size();
  h.fencedExecutions = fencedExecutions.size();
  h.reusableExecutions = reusableExecutions.size();
  h.startedExecutions = startedExecutions.size();
  h.executionsInFlight = executionsInFlight->load();
  h.openBursts = openBursts->load();
  h.heldBytes = poolBytes.held->load();
  return h;
}

hal::Result<SessionHoldings> SessionRegistry::holdings(uint64_t id) const {
  std::shared_ptr<Session> session;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = sessions_.find(id);
    if (it == sessions_.end()) return makeError(ErrorStatus::INVALID_ARGUMENT) << "no session " << id;
    session = it->second;
  }
  return session->holdings();
}

size_t SessionRegistry::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return sessions_.size();
}

}  // namespace nnremote::emulator
