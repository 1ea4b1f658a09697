// One burst's server side, whichever way its messages come (the gRPC stream or the same-host
// shared queue): the memories it caches by slot, and its executions, each validated against the
// model the server kept before the device sees it.
#ifndef NNREMOTE_EMULATOR_BURST_HANDLER_H_
#define NNREMOTE_EMULATOR_BURST_HANDLER_H_

#include <memory>
#include <mutex>
#include <unordered_map>

#include "emulator/session_registry.h"
#include "hal/i_burst.h"
#include "wire/conversions.h"
#include "wire/nnremote.pb.h"

namespace nnremote::emulator {

// The stream and the queue never overlap in time (a burst runs one exchange at a time), but
// they run on different threads, hence the mutex.
class BurstHandler {
 public:
  BurstHandler(std::shared_ptr<Session> session, PreparedModelEntry entry, hal::SharedBurst burst);

  // Handles a cache, release or execute message; errors in an execution are reported in
  // `response`, other errors returned.
  hal::Status handle(const wire::BurstRequest& message, wire::BurstResponse* response);

 private:
  hal::Status execute(const wire::BurstRequest::Execute& execute, wire::BurstResponse* response);

  std::mutex mutex_;
  std::shared_ptr<Session> session_;
  PreparedModelEntry entry_;
  hal::SharedBurst burst_;
  wire::MemoryResolver resolve_;
  std::unordered_map<uint64_t, hal::SharedMemory> slots_;
  std::unordered_map<uint64_t, hal::IBurst::OptionalCacheHold> holds_;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_BURST_HANDLER_H_
