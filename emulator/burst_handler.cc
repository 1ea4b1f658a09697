#include "emulator/burst_handler.h"

#include "emulator/execution_requests.h"
#include "emulator/session_quotas.h"
#include "hal/validation.h"
#include "hal/vlog.h"

namespace nnremote::emulator {

using hal::ErrorStatus;
using hal::makeError;

BurstHandler::BurstHandler(std::shared_ptr<Session> session, PreparedModelEntry entry, hal::SharedBurst burst)
    : session_(std::move(session)), entry_(std::move(entry)), burst_(std::move(burst)),
      resolve_(resolverFor(*session_)) {}

hal::Status BurstHandler::handle(const wire::BurstRequest& message, wire::BurstResponse* response) {
  std::lock_guard<std::mutex> lock(mutex_);
  switch (message.kind_case()) {
    case wire::BurstRequest::kCacheMemory: {
      auto memory = resolve_(message.cache_memory().memory());
      if (!memory.ok()) return hal::withContext(memory.error(), "cache_memory");
      NN_VLOG(BURST) << "session " << session_->id() << " burst caches slot " << message.cache_memory().slot();
      holds_[message.cache_memory().slot()] = burst_->cacheMemory(*memory);
      slots_[message.cache_memory().slot()] = std::move(memory).value();
      return {};
    }
    case wire::BurstRequest::kReleaseMemorySlot:
      slots_.erase(message.release_memory_slot());
      holds_.erase(message.release_memory_slot());
      return {};
    case wire::BurstRequest::kExecute:
      response->set_serial(message.execute().serial());
      // An execution's failure is reported in band; the burst goes on.
      if (hal::Status status = execute(message.execute(), response); !status.ok()) {
        *response->mutable_outcome()->mutable_error() = wire::toWire(status.error());
      }
      NN_VLOG(BURST) << "session " << session_->id() << " burst execution " << message.execute().serial() << ": "
                     << hal::toString(static_cast<ErrorStatus>(response->outcome().error().status()));
      return {};
    case wire::BurstRequest::kOpen:
      return makeError(ErrorStatus::INVALID_ARGUMENT) << "a burst was opened twice";
    case wire::BurstRequest::kWakeSharedQueue:
      return makeError(ErrorStatus::INVALID_ARGUMENT) << "wake_shared_queue belongs on the burst's stream";
    default:
      return makeError(ErrorStatus::INVALID_ARGUMENT) << "a burst message names no kind";
  }
}

hal::Status BurstHandler::execute(const wire::BurstRequest::Execute& execute, wire::BurstResponse* response) {
  std::map<uint32_t, hal::SharedMemory> cached;
  for (const auto& [pool, slot] : execute.pool_slots()) {
    const auto it = slots_.find(slot);
    if (it == slots_.end()) {
      return makeError(ErrorStatus::INVALID_ARGUMENT)
             << "pool_slots maps request.pools[" << pool << "] to slot " << slot
             << ", which is not a cached memory of this burst";
    }
    cached.emplace(pool, it->second);
  }
  ExecutionCall call;
  call.request = &execute.request();
  call.measure = execute.measure();
  if (execute.has_deadline()) call.deadline = &execute.deadline();
  if (execute.has_loop_timeout_duration()) call.loopTimeout = &execute.loop_timeout_duration();
  call.cachedPools = &cached;
  NN_ASSIGN_OR_RETURN(ValidatedExecution v, validateExecution(*session_, entry_, call));
  const auto outcome = burst_->execute(v.request, v.measure, v.deadline, v.loopTimeout);
  (void)describeOutcome(*session_, v.wireRequest(execute.request()), v.request, *entry_.model, outcome,
                        response->mutable_outcome());  // the response carries any error
  return {};
}

}  // namespace nnremote::emulator
