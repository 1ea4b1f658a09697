#include "emulator/session_watch_service.h"

#include <atomic>
#include <deque>
#include <unordered_set>

#include "emulator/grpc_handoff.h"
#include "wire/grpc_status.h"

namespace nnremote::emulator {

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
      for (const uint64_t id : watched) owner_.forgetMulti(id, this);
      // Not on this gRPC thread: ending a session's prepared models may be a blocking call.
      owner_.pool_.submit([&sessions = owner_.sessions_, watched = std::move(watched)] {
        for (const uint64_t id : watched) sessions.drop(id);
      });
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
  std::vector<std::shared_ptr<MultiWatch>> watching;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [begin, end] = multiWatches_.equal_range(sessionId);
    for (auto it = begin; it != end; ++it) watching.push_back(it->second);
  }
  for (const auto& watch : watching) watch->sessionClosed(sessionId);
}

void SessionWatchService::stopAll() {
  std::vector<std::shared_ptr<MultiWatch>> ending;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    for (auto& [id, watch] : multiWatches_) ending.push_back(watch);
  }
  for (const auto& watch : ending) watch->end();
}

size_t SessionWatchService::watching() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return multiWatches_.size();
}

}  // namespace nnremote::emulator
