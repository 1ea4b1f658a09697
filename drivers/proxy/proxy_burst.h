// A burst over one long-lived bidirectional stream: executions of one prepared model go out and
// come back as messages on the stream, with no per-call RPC setup. Shared memory the client
// caches is registered once and then named by slot. When the server shares this host, the
// messages go through a shared-memory queue instead (wire::SharedQueue), and the stream only
// carries what does not fit and tells the server when the burst ends.
#ifndef NNREMOTE_DRIVERS_PROXY_PROXY_BURST_H_
#define NNREMOTE_DRIVERS_PROXY_PROXY_BURST_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "hal/i_burst.h"
#include "wire/nnremote.pb.h"
#include "wire/shared_queue.h"
#include "drivers/proxy/call_watchdog.h"
#include "drivers/proxy/connection.h"
#include "drivers/proxy/served_model.h"

namespace nnremote::proxy {

class ProxyBurst final : public hal::IBurst, public std::enable_shared_from_this<ProxyBurst> {
 public:
  // After the connection replaces a lost session, the next execution reopens the burst in the
  // new one (the model prepared again there); memory cached before must be cached again.
  static hal::Result<hal::SharedBurst> open(std::shared_ptr<Connection> connection,
                                            std::shared_ptr<const ServedModel> preparedModel);
  ~ProxyBurst() override;

  // Caches registered shared memory under a slot until the hold is released. Other memory
  // cannot be cached (its bytes travel with each execution); the hold only keeps it alive.
  OptionalCacheHold cacheMemory(const hal::SharedMemory& memory) const override;

  // One execution at a time, as the HAL specifies for bursts.
  hal::Result<hal::ExecutionOutcome> execute(const hal::Request& request, hal::MeasureTiming measure,
                                             const hal::OptionalTimePoint& deadline,
                                             const hal::OptionalDuration& loopTimeoutDuration) const override;

  // Whether messages go through a same-host shared-memory queue.
  bool usesSharedQueue() const { return queue_ != nullptr; }

 private:
  using Stream = grpc::ClientReaderWriter<wire::BurstRequest, wire::BurstResponse>;
  struct Slot {
    std::weak_ptr<const hal::Memory> memory;
    uint64_t slot = 0;
  };

  ProxyBurst(std::shared_ptr<Connection> connection, std::shared_ptr<const ServedModel> preparedModel);
  // Opens the stream (and queue) in `session` for the model's id there.
  hal::Status openLocked(SessionRef session, uint64_t preparedModelId) const;
  // Ends the current stream, if it is still open.
  void closeLocked() const;
  // Drops the queue, and the connection's note of it (Connection::serverDied).
  void forgetQueue() const;
  void releaseSlot(const hal::Memory* memory) const;
  hal::Error streamBroken() const;
  // Sends `message` through the queue if there is one and it fits, else on the stream, and
  // returns its response: every queue message has one; on the stream, executions only. An
  // execution's wait is cut off at Connection::executionCallLimit(deadline), which breaks the
  // burst (a late answer would be out of step).
  hal::Result<std::optional<wire::BurstResponse>> exchange(const wire::BurstRequest& message,
                                                           const hal::OptionalTimePoint& deadline = std::nullopt) const;
  hal::Error cutOff(const hal::OptionalTimePoint& deadline) const;

  std::shared_ptr<Connection> connection_;
  std::shared_ptr<const ServedModel> preparedModel_;
  mutable std::mutex mutex_;  // one message exchange at a time
  mutable std::unique_ptr<grpc::ClientContext> context_;
  mutable std::unique_ptr<Stream> stream_;
  mutable std::unique_ptr<wire::SharedQueue> queue_;
  mutable std::string responseBytes_;  // a queue response, copied out before it is parsed
  mutable uint64_t generation_ = 0;  // the session the stream belongs to
  mutable bool broken_ = false;
  // The stream broke because the server did not know its session: nothing on it ran.
  mutable bool brokenBeforeRunning_ = false;
  mutable uint64_t nextSerial_ = 1;
  mutable uint64_t nextSlot_ = 1;
  mutable std::unordered_map<const hal::Memory*, Slot> slots_;
  mutable CallWatchdog watchdog_;  // for stream reads with a time limit
};

}  // namespace nnremote::proxy

#endif  // NNREMOTE_DRIVERS_PROXY_PROXY_BURST_H_
