#include "proxy_driver/session_watcher.h"

#include <vector>

namespace nnremote::proxy {

std::shared_ptr<SessionWatcher> SessionWatcher::shared(const std::string& key, std::shared_ptr<grpc::Channel> channel) {
  static std::mutex registryMutex;
  static auto* registry = new std::map<std::string, std::weak_ptr<SessionWatcher>>();
  std::lock_guard<std::mutex> lock(registryMutex);
  for (auto it = registry->begin(); it != registry->end();) {  // forget the watchers that are gone
    it = it->second.expired() ? registry->erase(it) : std::next(it);
  }
  if (auto existing = (*registry)[key].lock()) return existing;
  std::shared_ptr<SessionWatcher> watcher(new SessionWatcher(std::move(channel)));
  (*registry)[key] = watcher;
  return watcher;
}

SessionWatcher::SessionWatcher(std::shared_ptr<grpc::Channel> channel)
    : channel_(std::move(channel)), stub_(wire::SessionWatch::NewStub(channel_)), thread_([this] { run(); }) {}

SessionWatcher::~SessionWatcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    if (context_ != nullptr) context_->TryCancel();
  }
  changed_.notify_all();
  thread_.join();
}

bool SessionWatcher::send(const wire::WatchSessionsRequest& request) {
  std::lock_guard<std::mutex> lock(writeMutex_);
  return stream_ != nullptr && stream_->Write(request);
}

void SessionWatcher::watch(uint64_t sessionId, std::function<void()> ended) {
  std::unique_lock<std::mutex> lock(mutex_);
  Watched& entry = watched_[sessionId];
  entry.ended = std::move(ended);
  entry.stream = 0;
  if (!streamOpen_) {
    changed_.notify_all();  // the thread opens a stream for it
    return;
  }
  // Sent on the open stream; if that stream is breaking, its end reports this session too.
  entry.stream = streamNumber_;
  wire::WatchSessionsRequest request;
  request.add_add(sessionId);
  std::lock_guard<std::mutex> write(writeMutex_);
  if (stream_ != nullptr) (void)stream_->Write(request);
}

void SessionWatcher::unwatch(uint64_t sessionId) {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto it = watched_.find(sessionId);
  if (it == watched_.end()) return;
  const bool sent = streamOpen_ && it->second.stream == streamNumber_;
  watched_.erase(it);
  if (!sent) return;
  wire::WatchSessionsRequest request;
  request.add_remove(sessionId);
  std::lock_guard<std::mutex> write(writeMutex_);
  if (stream_ != nullptr) (void)stream_->Write(request);
}

void SessionWatcher::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] {
      if (stopping_) return true;
      for (const auto& [id, entry] : watched_) {
        if (entry.stream == 0) return true;
      }
      return false;
    });
    if (stopping_) return;
    grpc::ClientContext context;
    const uint64_t number = ++streamNumber_;
    auto stream = stub_->WatchSessions(&context);
    wire::WatchSessionsRequest request;
    for (auto& [id, entry] : watched_) {
      if (entry.stream != 0) continue;
      entry.stream = number;
      request.add_add(id);
    }
    context_ = &context;
    {
      std::lock_guard<std::mutex> write(writeMutex_);
      stream_ = stream.get();
      (void)stream_->Write(request);
    }
    streamOpen_ = true;
    lock.unlock();

    wire::SessionEvent event;
    while (stream->Read(&event)) {
      // The server no longer watches this session (it was closed, or is not ours).
      std::lock_guard<std::mutex> relock(mutex_);
      const auto it = watched_.find(event.session_id());
      if (it == watched_.end() || it->second.stream != number) continue;
      std::function<void()> ended = std::move(it->second.ended);
      watched_.erase(it);
      ended();
    }
    lock.lock();
    streamOpen_ = false;
    context_ = nullptr;
    {
      std::lock_guard<std::mutex> write(writeMutex_);
      stream_ = nullptr;
    }
    lock.unlock();
    (void)stream->Finish();
    lock.lock();
    // Everything this stream watched is gone with it.
    for (auto it = watched_.begin(); it != watched_.end();) {
      if (it->second.stream != number) {
        ++it;
        continue;
      }
      std::function<void()> ended = std::move(it->second.ended);
      it = watched_.erase(it);
      ended();
    }
  }
}

}  // namespace nnremote::proxy
