#include "emulator/burst_reactor.h"

#include <atomic>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>

#include "emulator/burst_handler.h"
#include "emulator/caller_session.h"
#include "emulator/grpc_handoff.h"
#include "emulator/session_quotas.h"
#include "wire/conversions.h"
#include "wire/grpc_status.h"
#include "wire/shared_queue.h"
#include "hal/vlog.h"

namespace nnremote::emulator {
namespace {

using hal::ErrorStatus;
using hal::makeError;
using wire::toGrpcStatus;

// A shared queue idle this long is parked: the pool thread serving it goes back to the pool.
// Long enough that a client executing in a loop never sees it parked.
constexpr std::chrono::milliseconds kParkQueueAfterIdle(50);

class BurstReactor final : public grpc::ServerBidiReactor<wire::BurstRequest, wire::BurstResponse> {
 public:
  BurstReactor(grpc::CallbackServerContext* context, const SessionRegistry& sessions,
               const Authenticator& authenticator, WorkPool& pool, QuickExecutions& quick)
      : context_(context), sessions_(sessions), authenticator_(authenticator), pool_(pool), quick_(quick) {
    handOffToGrpc(this);
    StartRead(&incoming_);
  }

  void OnReadDone(bool ok) override {
    takeBackFromGrpc(this);
    if (!ok) {  // the client closed its side, went away, or the call was cancelled
      std::unique_lock<std::mutex> lock(mutex_);
      readEnded_ = true;
      finishIfIdle(lock);
      return;
    }
    if (handler_ == nullptr) {
      open();
      return;
    }
    switch (incoming_.kind_case()) {
      case wire::BurstRequest::kExecute:
        quick_.run(quickKey_, handleIncoming(/*answered=*/true));
        return;
      case wire::BurstRequest::kWakeSharedQueue: {
        std::unique_lock<std::mutex> lock(mutex_);
        if (queue_ == nullptr) {
          endWith(toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT)
                               << "wake_shared_queue on a burst without a shared queue"),
                  lock);
          return;
        }
        serveQueueLocked();
        readNextLocked(lock);
        return;
      }
      default:
        // Cache and release messages get no response on the stream. They run on the pool: a
        // release may end what the backend holds (see OnDone).
        pool_.submit(handleIncoming(/*answered=*/false));
        return;
    }
  }

  void OnWriteDone(bool ok) override {
    takeBackFromGrpc(this);
    std::unique_lock<std::mutex> lock(mutex_);
    writes_.pop_front();
    if (!ok) writes_.clear();  // the client is gone; its reads end the burst
    if (!writes_.empty()) {
      handOffToGrpc(this);
      StartWrite(&writes_.front());
      return;
    }
    writing_ = false;
    finishIfIdle(lock);
  }

  void OnDone() override {
    takeBackFromGrpc(this);
    {
      // A pool task may still be leaving a critical section it finished the call from.
      std::lock_guard<std::mutex> lock(mutex_);
    }
    if (queue_ != nullptr) queue_->shutDown();
    NN_VLOG(BURST) << "burst closed";
    // The burst may hold its prepared model's last reference, and ending that is a blocking call
    // when the backend is a server of its own (an isolated backend host, a chained server). On a
    // gRPC thread such a call can hold up the work of every call of this process until its
    // deadline (seen: 30 s stalls, the executor thread waiting on the call it was needed for).
    // So the reactor ends on the pool, which is destroyed only after every task has run.
    pool_.submit([this] { delete this; });
  }

 private:
  void open() {
    const wire::BurstRequest::Open open = incoming_.open();
    auto refuse = [this](grpc::Status status) {
      std::unique_lock<std::mutex> lock(mutex_);
      endWith(std::move(status), lock);
    };
    if (incoming_.kind_case() != wire::BurstRequest::kOpen) {
      return refuse(toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT) << "a burst must begin with an open message"));
    }
    std::shared_ptr<Session> session;
    if (auto refused = callerSession(authenticator_, sessions_, *context_, open.session_id(), &session);
        !refused.ok()) {
      return refuse(refused);
    }
    auto entry = session->preparedModels.find(open.prepared_model_id());
    if (!entry.ok()) return refuse(toGrpcStatus(entry.error()));
    auto slot = QuotaSlot::take(session->openBursts, session->limits().bursts,
                                ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT, "open bursts", "session_quotas.bursts");
    if (!slot.ok()) return refuse(toGrpcStatus(slot.error()));
    auto burst = entry->preparedModel->configureExecutionBurst();
    if (!burst.ok()) return refuse(toGrpcStatus(burst.error()));
    openSlot_.emplace(std::move(slot).value());
    quickKey_ = {session->id(), open.prepared_model_id()};
    handler_ = std::make_unique<BurstHandler>(session, *entry, *burst);
    NN_VLOG(BURST) << "session " << session->id() << " burst opened on prepared model " << open.prepared_model_id()
                   << (open.want_shared_queue() ? ", asking for a shared queue" : "");

    std::unique_lock<std::mutex> lock(mutex_);
    // A client on this host can have a shared queue; one on another host asking for it (its
    // peer address is not a unix socket) gets none.
    if (open.want_shared_queue()) {
      wire::BurstResponse answer;
      if (authenticator_.isUnixPeer(*context_)) offerSharedQueue(*session, &answer);
      writeLocked(std::move(answer));
    }
    readNextLocked(lock);
  }

  // Makes the burst a shared queue unless the server already maps all the clients' shared memory
  // it may (then the burst runs over its stream). The queue starts parked: no thread serves it
  // until the client's first request.
  void offerSharedQueue(const Session& session, wire::BurstResponse* answer) {
    auto mapping = session.takeServerMapping();
    if (!mapping.ok()) {
      NN_VLOG(BURST) << "session " << session.id() << " burst without a shared queue: " << mapping.error().message;
      return;
    }
    auto queue = wire::SharedQueue::create(wire::SharedQueue::kDefaultCapacity, /*startParked=*/true);
    if (!queue.ok()) {
      NN_VLOG(BURST) << "session " << session.id() << " burst without a shared queue: " << queue.error().message;
      return;
    }
    queueSlot_.emplace(std::move(mapping).value());
    queue_ = std::move(queue).value();
    answer->mutable_shared_queue()->set_shm_name(queue_->name());
    answer->mutable_shared_queue()->set_size(queue_->size());
  }

  // Serves the shared queue on a pool thread until it parks or the burst ends.
  void serveQueueLocked() {
    if (queueServing_) {
      wakeAgain_ = true;  // it is just parking: it goes on instead
      return;
    }
    queueServing_ = true;
    pool_.submit([this] {
      wire::BurstRequest message;
      wire::BurstResponse response;
      std::string bytes;
      size_t size = 0;
      while (true) {
        const auto awaited = queue_->awaitRequestOrPark(&size, stopQueue_, kParkQueueAfterIdle);
        if (awaited != wire::SharedQueue::Awaited::REQUEST) {
          std::unique_lock<std::mutex> lock(mutex_);
          if (awaited == wire::SharedQueue::Awaited::PARKED && wakeAgain_ && !stopQueue_.load()) {
            wakeAgain_ = false;
            continue;
          }
          queueServing_ = false;
          finishIfIdle(lock);
          return;
        }
        if (queue_->truncated()) {  // the client shrank the queue's memory under the server
          std::unique_lock<std::mutex> lock(mutex_);
          queueServing_ = false;
          endWith(toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT)
                               << "the burst's shared queue was shrunk by its client; the burst ends"),
                  lock);
          return;
        }
        response.Clear();
        // Parsed from a private copy: the client could go on writing the shared region.
        bytes.assign(reinterpret_cast<const char*>(queue_->receivedRequest()), size);
        if (!message.ParseFromString(bytes)) {
          *response.mutable_outcome()->mutable_error() =
              wire::toWire(makeError(ErrorStatus::INVALID_ARGUMENT) << "a shared-queue message does not parse");
        } else if (hal::Status status = handler_->handle(message, &response); !status.ok()) {
          *response.mutable_outcome()->mutable_error() = wire::toWire(status.error());
        }
        if (response.ByteSizeLong() > queue_->capacity()) {
          {
            std::lock_guard<std::mutex> lock(mutex_);
            writeLocked(response);  // announced through the queue, sent on the stream
          }
          response.Clear();
          response.set_response_on_stream(true);
          (void)response.ByteSizeLong();
        }
        response.SerializeWithCachedSizesToArray(queue_->responseBufferForWriting());
        queue_->respond(response.ByteSizeLong());
      }
    });
  }

  // The handling of incoming_, for a thread other than this gRPC one to run; it then answers
  // (if `answered`) and reads the next message. No read is outstanding until then, so messages
  // are handled in order, on incoming_ itself, whose allocations the next message reuses.
  std::function<void()> handleIncoming(bool answered) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      executing_ = true;
    }
    return [this, answered] {
      wire::BurstResponse response;
      const hal::Status status = handler_->handle(incoming_, &response);
      std::unique_lock<std::mutex> lock(mutex_);
      executing_ = false;
      if (!status.ok()) {
        endWith(toGrpcStatus(status.error()), lock);
        return;
      }
      if (answered) writeLocked(std::move(response));
      readNextLocked(lock);
    };
  }

  void writeLocked(wire::BurstResponse response) {
    if (finished_) return;
    writes_.push_back(std::move(response));
    if (writing_) return;
    writing_ = true;
    handOffToGrpc(this);
    StartWrite(&writes_.front());
  }

  void readNextLocked(std::unique_lock<std::mutex>& lock) {
    if (finished_ || ending_) {
      finishIfIdle(lock);
      return;
    }
    handOffToGrpc(this);
    StartRead(&incoming_);
  }

  // Ends the burst with `status` as soon as nothing is in progress.
  void endWith(grpc::Status status, std::unique_lock<std::mutex>& lock) {
    if (!ending_) finishStatus_ = std::move(status);
    ending_ = true;
    finishIfIdle(lock);
  }

  // Finishes the call once it is ending (the client's side ended, or an error) and no execution,
  // queue service or write is in progress. Unlocks `lock`.
  void finishIfIdle(std::unique_lock<std::mutex>& lock) {
    if (finished_ || !(readEnded_ || ending_)) return;
    if (queue_ != nullptr && queueServing_) {
      stopQueue_.store(true);
      queue_->wakeServer();
      return;  // the queue's thread finishes the call when it stops
    }
    // Pending responses go out first (a failed write clears them).
    if (executing_ || writing_) return;
    finished_ = true;
    const grpc::Status status = finishStatus_;
    handOffToGrpc(this);
    lock.unlock();
    Finish(status);
  }

  grpc::CallbackServerContext* const context_;
  const SessionRegistry& sessions_;
  const Authenticator& authenticator_;
  WorkPool& pool_;
  QuickExecutions& quick_;

  wire::BurstRequest incoming_;              // the one outstanding read
  std::unique_ptr<BurstHandler> handler_;    // set by the open message
  std::optional<QuotaSlot> openSlot_;        // counts the burst in session_quotas.bursts
  QuickExecutions::Key quickKey_;            // where its executions run
  std::optional<QuotaSlot> queueSlot_;       // counts the queue in shared_memory_mappings
  std::unique_ptr<wire::SharedQueue> queue_;  // set at open, for a same-host client
  std::atomic<bool> stopQueue_{false};

  std::mutex mutex_;
  std::deque<wire::BurstResponse> writes_;  // the front one is being written
  bool writing_ = false;
  bool executing_ = false;     // a stream message is being handled (an execution, maybe inline)
  bool queueServing_ = false;  // the shared queue is served on the pool
  bool wakeAgain_ = false;     // woken while it was parking
  bool readEnded_ = false;
  bool ending_ = false;        // an error ends the burst
  bool finished_ = false;
  grpc::Status finishStatus_;
};

}  // namespace

grpc::ServerBidiReactor<wire::BurstRequest, wire::BurstResponse>* startBurst(grpc::CallbackServerContext* context,
                                                                             const SessionRegistry& sessions,
                                                                             const Authenticator& authenticator,
                                                                             WorkPool& pool,
                                                                             QuickExecutions& quick) {
  return new BurstReactor(context, sessions, authenticator, pool, quick);
}

}  // namespace nnremote::emulator
