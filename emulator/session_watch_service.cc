#include "emulator/session_watch_service.h"

#include <atomic>

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

void SessionWatchService::sessionClosed(uint64_t sessionId) {
  std::vector<std::shared_ptr<Watch>> ending;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [begin, end] = watches_.equal_range(sessionId);
    for (auto it = begin; it != end; ++it) ending.push_back(it->second);
  }
  for (const auto& watch : ending) watch->end();
}

void SessionWatchService::stopAll() {
  std::vector<std::shared_ptr<Watch>> ending;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    for (auto& [id, watch] : watches_) ending.push_back(watch);
  }
  for (const auto& watch : ending) watch->end();
}

size_t SessionWatchService::watching() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return watches_.size();
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
