#include "emulator/session_watch_service.h"

#include <atomic>

#include "proto/grpc_status.h"

namespace nnremote::emulator {

// One open stream. gRPC calls OnCancel when the client goes away and OnDone once the stream is
// over; Finish may be called once, from whichever side ends it first.
class SessionWatchService::Watch final : public grpc::ServerWriteReactor<wire::SessionEvent> {
 public:
  Watch(SessionWatchService& owner, uint64_t sessionId) : owner_(owner), sessionId_(sessionId) {}

  void end() {
    if (!finished_.exchange(true)) Finish(grpc::Status::OK);
  }
  void OnCancel() override {
    (void)owner_.sessions_.close(sessionId_);  // a session closed already is fine
    end();
  }
  void OnDone() override {
    owner_.forget(sessionId_, this);
    delete this;
  }

 private:
  SessionWatchService& owner_;
  const uint64_t sessionId_;
  std::atomic<bool> finished_{false};
};

grpc::ServerWriteReactor<wire::SessionEvent>* SessionWatchService::WatchSession(
    grpc::CallbackServerContext*, const wire::CloseSessionRequest* request) {
  const uint64_t id = request->session_id();
  auto* watch = new Watch(*this, id);
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopped_ || !sessions_.find(id).ok()) {
    watch->Finish(stopped_ ? grpc::Status::OK : wire_conv::toGrpcStatus(sessions_.find(id).error()));
    return watch;  // OnDone still comes, and finds nothing to forget
  }
  watches_.emplace(id, watch);
  return watch;
}

void SessionWatchService::sessionClosed(uint64_t sessionId) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [begin, end] = watches_.equal_range(sessionId);
  for (auto it = begin; it != end; ++it) it->second->end();
}

void SessionWatchService::stopAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  stopped_ = true;
  for (auto& [id, watch] : watches_) watch->end();
}

size_t SessionWatchService::watching() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return watches_.size();
}

void SessionWatchService::forget(uint64_t sessionId, Watch* watch) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [begin, end] = watches_.equal_range(sessionId);
  for (auto it = begin; it != end; ++it) {
    if (it->second == watch) {
      watches_.erase(it);
      return;
    }
  }
}

}  // namespace nnremote::emulator
