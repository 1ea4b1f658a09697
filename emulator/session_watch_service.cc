#include "emulator/session_watch_service.h"

#include <atomic>
#include <deque>
#include <unordered_set>

#include "emulator/grpc_handoff.h"
#include "proto/grpc_status.h"

namespace nnremote::emulator {

// One open stream. gRPC calls OnCancel when the client goes away and OnDone once the stream is
// over (only after Finish); Finish is called once, by whichever side ends the stream first. The
// watch keeps itself alive until OnDone; the service's map holds it too, so the service can end
// it outside its lock even while gRPC is finishing it.
class SessionWatchService::Watch final : public grpc::ServerWriteReactor<wire::SessionEvent> {
 public:
  Watch(SessionWatchService& owner, uint64_t sessionId) : owner_(owner), sessionId_(sessionId) {}

  void keepAliveUntilDone(std::shared_ptr<Watch> self) { self_ = std::move(self); }
  void end(const grpc::Status& status = grpc::Status::OK) {
    if (finished_.exchange(true)) return;
    handOffToGrpc(this);  // OnDone, on a gRPC thread, follows Finish
    Finish(status);
  }
  void OnCancel() override {
    takeBackFromGrpc(this);
    owner_.sessions_.drop(sessionId_);  // a session closed already is fine
    end();
    handOffToGrpc(this);  // OnDone comes after this returns
  }
  void OnDone() override {
    takeBackFromGrpc(this);
    owner_.forget(sessionId_, this);
    self_.reset();  // may delete this
  }

 private:
  SessionWatchService& owner_;
  const uint64_t sessionId_;
  std::atomic<bool> finished_{false};
  std::shared_ptr<Watch> self_;
};

grpc::ServerWriteReactor<wire::SessionEvent>* SessionWatchService::WatchSession(
    grpc::CallbackServerContext* context, const wire::CloseSessionRequest* request) {
  takeBackFromGrpc(this);  // see EmulatorServer::start
  const uint64_t id = request->session_id();
  auto watch = std::make_shared<Watch>(*this, id);
  watch->keepAliveUntilDone(watch);
  std::string identity;
  grpc::Status refusal = authenticator_.identify(*context, &identity);
  if (refusal.ok()) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto session = sessions_.find(id, identity); !session.ok()) {
      refusal = wire_conv::toGrpcStatus(session.error());
    } else if (!stopped_) {
      watches_.emplace(id, watch);
      handOffToGrpc(watch.get());
      return watch.get();
    }
  }
  watch->end(refusal);  // OnDone still comes, and finds nothing to forget
  return watch.get();
}


// One WatchSessions stream: the sessions it watches, and the events (a session no longer
// watched) waiting to be written. Like Watch, it keeps itself alive until OnDone, and the
// service's map holds it once per session it watches.
class SessionWatchService::MultiWatch final
    : public grpc::ServerBidiReactor<wire::WatchSessionsRequest, wire::SessionEvent> {
 public:
  MultiWatch(SessionWatchService& owner, std::string identity) : owner_(owner), identity_(std::move(identity)) {}

  void start(std::shared_ptr<MultiWatch> self) {
    self_ = std::move(self);
    handOffToGrpc(this);
    StartRead(&incoming_);
  }

  void OnReadDone(bool ok) override {
    takeBackFromGrpc(this);
    if (!ok) {  // cancelled, or the client stopped: its sessions end with it
      std::unordered_set<uint64_t> watched;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        watched.swap(watched_);
      }
      for (const uint64_t id : watched) {
        owner_.forgetMulti(id, this);
        owner_.sessions_.drop(id);
      }
      end();
      return;
    }
    for (const uint64_t id : incoming_.add()) {
      bool accepted = false;
      {
        std::lock_guard<std::mutex> serviceLock(owner_.mutex_);
        if (!owner_.stopped_ && owner_.sessions_.find(id, identity_).ok()) {
          owner_.multiWatches_.emplace(id, self_);
          accepted = true;
        }
      }
      if (accepted) {
        std::lock_guard<std::mutex> lock(mutex_);
        watched_.insert(id);
      } else {
        notWatched(id);  // closed meanwhile, or not the caller's: said alike
      }
    }
    for (const uint64_t id : incoming_.remove()) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (watched_.erase(id) == 0) continue;
      }
      owner_.forgetMulti(id, this);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_) return;
    handOffToGrpc(this);
    StartRead(&incoming_);
  }

  void OnWriteDone(bool ok) override {
    takeBackFromGrpc(this);
    std::lock_guard<std::mutex> lock(mutex_);
    events_.pop_front();
    if (!ok) events_.clear();
    if (events_.empty() || finished_) return;
    handOffToGrpc(this);
    StartWrite(&events_.front());
  }

  // The session is no longer watched here (closed by its owner).
  void sessionClosed(uint64_t id) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (watched_.erase(id) == 0) return;
    }
    owner_.forgetMulti(id, this);
    notWatched(id);
  }

  void end(const grpc::Status& status = grpc::Status::OK) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (finished_) return;
      finished_ = true;
    }
    handOffToGrpc(this);  // OnDone, on a gRPC thread, follows Finish
    Finish(status);
  }

  void OnDone() override {
    takeBackFromGrpc(this);
    std::unordered_set<uint64_t> watched;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      watched.swap(watched_);
    }
    for (const uint64_t id : watched) owner_.forgetMulti(id, this);
    self_.reset();  // may delete this
  }

 private:
  void notWatched(uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_) return;
    events_.emplace_back().set_session_id(id);
    if (events_.size() > 1) return;  // a write is in progress; OnWriteDone sends it
    handOffToGrpc(this);
    StartWrite(&events_.front());
  }

  SessionWatchService& owner_;
  const std::string identity_;
  wire::WatchSessionsRequest incoming_;
  std::mutex mutex_;
  std::unordered_set<uint64_t> watched_;
  std::deque<wire::SessionEvent> events_;  // the front one is being written
  bool finished_ = false;
  std::shared_ptr<MultiWatch> self_;
};

grpc::ServerBidiReactor<wire::WatchSessionsRequest, wire::SessionEvent>* SessionWatchService::WatchSessions(
    grpc::CallbackServerContext* context) {
  takeBackFromGrpc(this);  // see EmulatorServer::start
  std::string identity;
  const grpc::Status refusal = authenticator_.identify(*context, &identity);
  auto watch = std::make_shared<MultiWatch>(*this, identity);
  watch->start(watch);
  if (!refusal.ok()) watch->end(refusal);
  return watch.get();
}

void SessionWatchService::forgetMulti(uint64_t sessionId, MultiWatch* watch) {
  std::shared_ptr<MultiWatch> released;  // destroyed outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  auto [begin, end] = multiWatches_.equal_range(sessionId);
  for (auto it = begin; it != end; ++it) {
    if (it->second.get() == watch) {
      released = std::move(it->second);
      multiWatches_.erase(it);
      return;
    }
  }
}

void SessionWatchService::sessionClosed(uint64_t sessionId) {
  std::vector<std::shared_ptr<Watch>> ending;
  std::vector<std::shared_ptr<MultiWatch>> multi;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [begin, end] = watches_.equal_range(sessionId);
    for (auto it = begin; it != end; ++it) ending.push_back(it->second);
    auto [multiBegin, multiEnd] = multiWatches_.equal_range(sessionId);
    for (auto it = multiBegin; it != multiEnd; ++it) multi.push_back(it->second);
  }
  for (const auto& watch : ending) watch->end();
  for (const auto& watch : multi) watch->sessionClosed(sessionId);
}

void SessionWatchService::stopAll() {
  std::vector<std::shared_ptr<Watch>> ending;
  std::vector<std::shared_ptr<MultiWatch>> multi;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    for (auto& [id, watch] : watches_) ending.push_back(watch);
    for (auto& [id, watch] : multiWatches_) multi.push_back(watch);
  }
  for (const auto& watch : ending) watch->end();
  for (const auto& watch : multi) watch->end();
}

size_t SessionWatchService::watching() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return watches_.size() + multiWatches_.size();
}

void SessionWatchService::forget(uint64_t sessionId, Watch* watch) {
  std::shared_ptr<Watch> released;  // destroyed outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  auto [begin, end] = watches_.equal_range(sessionId);
  for (auto it = begin; it != end; ++it) {
    if (it->second.get() == watch) {
      released = std::move(it->second);
      watches_.erase(it);
      return;
    }
  }
}

}  // namespace nnremote::emulator
