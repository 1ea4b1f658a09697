#include "drivers/proxy/proxy_burst.h"
#include "drivers/proxy/stubs.h"

#include "wire/conversions.h"
#include "wire/grpc_status.h"
#include "drivers/proxy/execution_results.h"
#include "drivers/proxy/pool_transport.h"
#include "hal/vlog.h"

namespace nnremote::proxy {

using hal::ErrorStatus;
using hal::makeError;

ProxyBurst::ProxyBurst(std::shared_ptr<Connection> connection, std::shared_ptr<const ServedModel> preparedModel)
    : connection_(std::move(connection)), preparedModel_(std::move(preparedModel)) {}

hal::Result<hal::SharedBurst> ProxyBurst::open(std::shared_ptr<Connection> connection,
                                               std::shared_ptr<const ServedModel> preparedModel) {
  NN_ASSIGN_OR_RETURN(const auto where, preparedModel->current());
  std::shared_ptr<ProxyBurst> burst(new ProxyBurst(std::move(connection), std::move(preparedModel)));
  std::lock_guard<std::mutex> lock(burst->mutex_);
  NN_RETURN_IF_ERROR(burst->openLocked(where.first, where.second));
  return hal::SharedBurst(burst);
}

hal::Status ProxyBurst::openLocked(SessionRef session, uint64_t preparedModelId) const {
  context_ = std::make_unique<grpc::ClientContext>();
  forgetQueue();
  slots_.clear();
  generation_ = session.generation;
  broken_ = false;
  brokenBeforeRunning_ = false;
  NN_VLOG(BURST) << "opening a burst in session " << session.id << " on prepared model " << preparedModelId;
  stream_ = connection_->waitsStub()->Burst(context_.get());
  wire::BurstRequest request;
  request.mutable_open()->set_session_id(session.id);
  request.mutable_open()->set_prepared_model_id(preparedModelId);
  const bool wantQueue = connection_->sameHost() && connection_->options().useSharedMemoryBursts;
  request.mutable_open()->set_want_shared_queue(wantQueue);
  if (!stream_->Write(request)) return streamBroken();
  if (wantQueue) {
    wire::BurstResponse answer;
    if (!stream_->Read(&answer)) return streamBroken();
    // Without a queue (the server could not make one, or cannot see us as local), the stream
    // serves alone.
    if (answer.has_shared_queue()) {
      auto queue = wire::SharedQueue::open(answer.shared_queue().shm_name(), answer.shared_queue().size());
      if (queue.ok()) {
        queue_ = std::move(queue).value();
        const auto& handOffProcess = connection_->options().queueHandOffProcess;
        queue_->handOffCpu(handOffProcess ? handOffProcess() : 0);
        connection_->addQueue(queue_.get());
      }
    }
  }
  return {};
}

void ProxyBurst::closeLocked() const {
  // A broken stream was already finished by streamBroken(); gRPC allows one Finish per call.
  if (stream_ == nullptr || broken_) return;
  if (queue_ != nullptr) queue_->close();
  stream_->WritesDone();
  (void)stream_->Finish();
  broken_ = true;
}

ProxyBurst::~ProxyBurst() {
  std::lock_guard<std::mutex> lock(mutex_);
  closeLocked();
  forgetQueue();
}

void ProxyBurst::forgetQueue() const {
  if (queue_ == nullptr) return;
  connection_->removeQueue(queue_.get());
  queue_.reset();
}

hal::Error ProxyBurst::streamBroken() const {
  broken_ = true;
  // Finish reports why the server ended the stream (a bad open, or the server is gone).
  const grpc::Status status = stream_->Finish();
  hal::Error error = connection_->callFailed(status, generation_, &brokenBeforeRunning_);
  if (status.ok()) error = makeError(ErrorStatus::DEAD_OBJECT) << "the burst stream ended";
  return error;
}

hal::Error ProxyBurst::cutOff(const hal::OptionalTimePoint& deadline) const {
  broken_ = true;
  context_->TryCancel();  // the server's side of the burst ends too
  (void)stream_->Finish();
  return connection_->executionCutOff(deadline);
}

hal::Result<std::optional<wire::BurstResponse>> ProxyBurst::exchange(const wire::BurstRequest& message,
                                                                     const hal::OptionalTimePoint& deadline) const {
  const bool execution = message.kind_case() == wire::BurstRequest::kExecute;
  const auto limit = execution ? connection_->executionCallLimit(deadline) : std::nullopt;
  const size_t size = message.ByteSizeLong();
  if (queue_ != nullptr && size <= queue_->capacity()) {
    message.SerializeWithCachedSizesToArray(queue_->requestBuffer());
    bool pastLimit = false;
    // The server parks an idle queue; the stream brings it back.
    auto wakeParkedServer = [this] {
      wire::BurstRequest wake;
      wake.set_wake_shared_queue(true);
      return stream_->Write(wake);
    };
    auto length = queue_->call(
        size,
        [&] {
          pastLimit = limit.has_value() && std::chrono::system_clock::now() >= *limit;
          return !pastLimit && connection_->reachable();
        },
        connection_->options().queuePoll, wakeParkedServer, connection_->options().queueSpin);
    if (!length.ok() && pastLimit) return cutOff(deadline);
    if (!length.ok()) {  // the server is gone
      hal::Error lost = connection_->callFailed(
          grpc::Status(grpc::StatusCode::UNAVAILABLE, length.error().message), generation_);
      broken_ = true;
      context_->TryCancel();
      (void)stream_->Finish();
      lost.code = length.error().code;
      return lost;
    }
    // Parsed from a private copy, as the server parses requests: a server whose memory is corrupt
    // (a crashing backend library in its host) could go on writing the shared region.
    responseBytes_.assign(reinterpret_cast<const char*>(queue_->responseBuffer()), *length);
    wire::BurstResponse response;
    if (!response.ParseFromString(responseBytes_)) {
      return makeError(ErrorStatus::GENERAL_FAILURE) << "a shared-queue response does not parse";
    }
    // A response too large for the queue follows on the stream.
    if (!response.response_on_stream()) return std::optional<wire::BurstResponse>(std::move(response));
    if (!stream_->Read(&response)) return streamBroken();
    return std::optional<wire::BurstResponse>(std::move(response));
  }
  if (!stream_->Write(message)) return streamBroken();
  if (!execution) return std::optional<wire::BurstResponse>();
  wire::BurstResponse response;
  if (limit) watchdog_.arm(*limit, [context = context_.get()] { context->TryCancel(); });
  const bool read = stream_->Read(&response);
  if (limit && watchdog_.disarm()) return cutOff(deadline);
  if (!read) return streamBroken();
  return std::optional<wire::BurstResponse>(std::move(response));
}

hal::IBurst::OptionalCacheHold ProxyBurst::cacheMemory(const hal::SharedMemory& memory) const {
  if (memory == nullptr || memory->sharedName().empty()) return memory;
  auto encoded = connection_->pools().encode(memory, /*withContents=*/true);
  if (!encoded.ok() || encoded->kind_case() != wire::Memory::kRegisteredMemoryId) return memory;
  std::lock_guard<std::mutex> lock(mutex_);
  if (broken_) return memory;
  const auto existing = slots_.find(memory.get());
  if (existing == slots_.end() || existing->second.memory.lock() != memory) {
    wire::BurstRequest request;
    request.mutable_cache_memory()->set_slot(nextSlot_);
    *request.mutable_cache_memory()->mutable_memory() = *encoded;
    auto answer = exchange(request);
    // Uncached memory still works: its pool then travels the usual way.
    if (!answer.ok() || (answer->has_value() && (*answer)->outcome().error().status() != wire::NONE)) return memory;
    slots_[memory.get()] = {memory, nextSlot_++};
  }
  // The hold keeps the memory alive and releases the slot when dropped.
  std::weak_ptr<const ProxyBurst> self = shared_from_this();
  const hal::Memory* key = memory.get();
  return std::shared_ptr<const void>(new hal::SharedMemory(memory), [self, key](const void* hold) {
    if (auto burst = self.lock()) burst->releaseSlot(key);
    delete static_cast<const hal::SharedMemory*>(hold);
  });
}

void ProxyBurst::releaseSlot(const hal::Memory* memory) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = slots_.find(memory);
  if (it == slots_.end()) return;
  if (!broken_) {
    wire::BurstRequest request;
    request.set_release_memory_slot(it->second.slot);
    (void)exchange(request);
  }
  slots_.erase(it);
}

hal::Result<hal::ExecutionOutcome> ProxyBurst::execute(const hal::Request& request,
                                                       hal::MeasureTiming measure,
                                                       const hal::OptionalTimePoint& deadline,
                                                       const hal::OptionalDuration& loopTimeoutDuration) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto attempt = [&]() -> hal::Result<hal::ExecutionOutcome> {
    NN_ASSIGN_OR_RETURN(const auto where, preparedModel_->current());
    if (where.first.generation != generation_) {  // the session was replaced: reopen in the new one
      closeLocked();
      NN_RETURN_IF_ERROR(openLocked(where.first, where.second));
    }
    if (broken_) return makeError(ErrorStatus::DEAD_OBJECT) << "the burst stream is closed";
    NN_VLOG(BURST) << "burst execution in session " << where.first.id << (queue_ != nullptr ? " (shared queue)" : "");
    wire::BurstRequest message;
    auto* execute = message.mutable_execute();
    const uint64_t serial = nextSerial_++;
    execute->set_serial(serial);
    // Cached pools go by slot; the others the usual way.
    PoolTransport& pools = connection_->pools();
    auto encode = [&](const hal::SharedMemory& memory, bool withContents) -> hal::Result<wire::Memory> {
      const auto it = slots_.find(memory.get());
      if (it != slots_.end() && it->second.memory.lock() == memory) {
        return wire::encodeInline(memory, /*withContents=*/false);  // replaced by the slot
      }
      return pools.encode(memory, withContents);
    };
    auto encoded = wire::toWire(request, encode);
    if (!encoded.ok()) {
      // Registering a pool found the session gone: the execution was never sent.
      brokenBeforeRunning_ = connection_->lostSince(where.first.generation);
      return encoded.error();
    }
    *execute->mutable_request() = std::move(encoded).value();
    for (size_t i = 0; i < request.pools.size(); ++i) {
      const auto* memory = std::get_if<hal::SharedMemory>(&request.pools[i]);
      if (memory == nullptr) continue;
      const auto it = slots_.find(memory->get());
      if (it != slots_.end() && it->second.memory.lock() == *memory) {
        (*execute->mutable_pool_slots())[static_cast<uint32_t>(i)] = it->second.slot;
      }
    }
    setExecutionArguments(execute, measure, deadline, loopTimeoutDuration);
    NN_ASSIGN_OR_RETURN(std::optional<wire::BurstResponse> answer, exchange(message, deadline));
    const wire::BurstResponse& response = *answer;
    if (response.serial() != serial) {
      return makeError(ErrorStatus::GENERAL_FAILURE)
             << "burst response " << response.serial() << " answers no outstanding execution (" << serial << ")";
    }
    return outcomeFromWire(response.outcome(), request, pools);
  };
  hal::Result<hal::ExecutionOutcome> outcome = attempt();
  // A burst opened in a session the server had forgotten (it restarted while this client was
  // idle) ran nothing: it is opened again in a new session and the execution made once more.
  if (!outcome.ok() && brokenBeforeRunning_ && connection_->options().reconnect) outcome = attempt();
  return outcome;
}

}  // namespace nnremote::proxy
