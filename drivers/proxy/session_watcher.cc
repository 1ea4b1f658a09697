#include "drivers/proxy/session_watcher.h"
#include "drivers/proxy/stubs.h"

#include <algorithm>

namespace nnremote::proxy {

struct SessionWatcher::Stream {
  struct Tag {
    Stream* stream;
    Operation operation;
  };

  explicit Stream(uint64_t number) : number(number) {}
  void* tag(Operation operation) { return &tags[static_cast<int>(operation)]; }

  const uint64_t number;
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientAsyncReaderWriter<wire::WatchSessionsRequest, wire::SessionEvent>> calls;
  wire::SessionEvent event;            // the read outstanding
  wire::WatchSessionsRequest request;  // the write outstanding
  grpc::Status status;
  Tag tags[4] = {{this, Operation::kStart}, {this, Operation::kRead}, {this, Operation::kWrite}, {this, Operation::kFinish}};
  bool started = false;
  bool writing = false;
  bool readsEnded = false;  // the stream broke or the server ended it
  bool finishing = false;
};

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
    : channel_(std::move(channel)), stub_(std::make_unique<SessionWatchStub>(channel_)), thread_([this] { run(); }) {}

SessionWatcher::~SessionWatcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void SessionWatcher::watch(uint64_t sessionId, std::function<void()> ended) {
  std::lock_guard<std::mutex> lock(mutex_);
  Watched& entry = watched_[sessionId];
  entry.ended = std::move(ended);
  entry.stream = 0;  // a stream that is breaking cannot take it: the next one will
  if (stream_ != nullptr && !stream_->readsEnded) {
    // Written on the open stream; if that stream breaks first, its end reports this session too.
    entry.stream = stream_->number;
    pendingAdds_.push_back(sessionId);
  }
  wake_ = true;
  changed_.notify_all();
}

void SessionWatcher::unwatch(uint64_t sessionId) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = watched_.find(sessionId);
  if (it == watched_.end()) return;
  const bool onOpenStream = stream_ != nullptr && it->second.stream == stream_->number;
  watched_.erase(it);
  if (!onOpenStream) return;
  const auto unsent = std::find(pendingAdds_.begin(), pendingAdds_.end(), sessionId);
  if (unsent != pendingAdds_.end()) {
    pendingAdds_.erase(unsent);
  } else {
    pendingRemoves_.push_back(sessionId);
  }
  wake_ = true;
  changed_.notify_all();
}

void SessionWatcher::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    // With nothing on the queue there is nothing to poll for: sleep until told.
    auto told = [&] { return stopping_ || wake_; };
    if (outstanding_ == 0) {
      changed_.wait(lock, told);
    } else {
      changed_.wait_for(lock, kPollInterval, told);
    }
    wake_ = false;
    if (stopping_) break;
    openStreamLocked();
    writeChangesLocked();
    if (outstanding_ > 0) {
      lock.unlock();
      collectCompletions(/*wait=*/false);
      lock.lock();
    }
  }
  // Ending the stream ends the server's watch of its sessions; none are left by now, since
  // every Connection unwatched its session before letting go of the watcher.
  if (stream_ != nullptr) stream_->context.TryCancel();
  while (outstanding_ > 0) {
    lock.unlock();
    collectCompletions(/*wait=*/true);
    lock.lock();
  }
  lock.unlock();
  queue_.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (queue_.Next(&tag, &ok)) {
  }
}

void SessionWatcher::openStreamLocked() {
  if (stream_ != nullptr) return;
  const bool anyWaiting =
      std::any_of(watched_.begin(), watched_.end(), [](const auto& entry) { return entry.second.stream == 0; });
  if (!anyWaiting) return;
  stream_ = std::make_unique<Stream>(++streamNumber_);
  pendingAdds_.clear();
  pendingRemoves_.clear();
  for (auto& [id, entry] : watched_) {
    if (entry.stream != 0) continue;
    entry.stream = stream_->number;
    pendingAdds_.push_back(id);
  }
  ++outstanding_;
  stream_->calls = (*stub_)->AsyncWatchSessions(&stream_->context, &queue_, stream_->tag(Operation::kStart));
}

void SessionWatcher::writeChangesLocked() {
  Stream* stream = stream_.get();
  if (stream == nullptr || !stream->started || stream->writing || stream->readsEnded) return;
  if (pendingAdds_.empty() && pendingRemoves_.empty()) return;
  stream->request.Clear();
  for (uint64_t id : pendingAdds_) stream->request.add_add(id);
  for (uint64_t id : pendingRemoves_) stream->request.add_remove(id);
  pendingAdds_.clear();
  pendingRemoves_.clear();
  stream->writing = true;
  ++outstanding_;
  stream->calls->Write(stream->request, stream->tag(Operation::kWrite));
}

void SessionWatcher::collectCompletions(bool wait) {
  void* tag = nullptr;
  bool ok = false;
  if (wait) {
    if (queue_.Next(&tag, &ok)) completed(tag, ok);
    return;
  }
  // A deadline long past: take what is there, polling the sockets once without waiting. (Not
  // "now": gRPC rounds deadlines up to the next millisecond, and would wait up to that long in
  // the poller, taking other threads' answers meanwhile.)
  while (queue_.AsyncNext(&tag, &ok, gpr_inf_past(GPR_CLOCK_MONOTONIC)) == grpc::CompletionQueue::GOT_EVENT) {
    completed(tag, ok);
  }
}

void SessionWatcher::completed(void* tag, bool ok) {
  // The tag is read under the lock its stream was made under: the queue hands it over inside
  // libgrpc, where ThreadSanitizer cannot see the ordering.
  std::lock_guard<std::mutex> lock(mutex_);
  const auto* done = static_cast<const Stream::Tag*>(tag);
  Stream* stream = done->stream;
  const Operation operation = done->operation;
  --outstanding_;
  switch (operation) {
    case Operation::kStart:
      if (ok) {
        stream->started = true;
        ++outstanding_;
        stream->calls->Read(&stream->event, stream->tag(Operation::kRead));
        writeChangesLocked();
      } else {
        readsEndedLocked(stream);
      }
      break;
    case Operation::kRead:
      if (!ok) {
        readsEndedLocked(stream);
        break;
      }
      {
        // The server no longer watches this session (it was closed, or is not ours).
        const auto it = watched_.find(stream->event.session_id());
        if (it != watched_.end() && it->second.stream == stream->number) {
          std::function<void()> ended = std::move(it->second.ended);
          watched_.erase(it);
          ended();
        }
      }
      ++outstanding_;
      stream->calls->Read(&stream->event, stream->tag(Operation::kRead));
      break;
    case Operation::kWrite:
      stream->writing = false;
      if (ok) writeChangesLocked();
      break;
    case Operation::kFinish:
      if (stream_.get() == stream) stream_.reset();
      // Sessions that waited for the next stream get one; this may run on a caller's thread
      // (catchUp), so the watcher's thread is told.
      wake_ = true;
      changed_.notify_all();
      return;
  }
  // A broken stream is finished once its last write is back.
  if (stream->readsEnded && !stream->writing && !stream->finishing) {
    stream->finishing = true;
    ++outstanding_;
    stream->calls->Finish(&stream->status, stream->tag(Operation::kFinish));
  }
}

void SessionWatcher::catchUp() {
  // Back to back calls poll the sockets themselves; only a call after a pause needs this. The
  // pause is since the last call, not the last catch-up: polling the queue costs a timed wait in
  // gRPC's poller (about 50 us on a virtual machine, where arming a timer exits to the
  // hypervisor), which calls a few hundred microseconds apart paid on every other call.
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  const int64_t last = lastCall_.exchange(now, std::memory_order_relaxed);
  if (now - last < std::chrono::duration_cast<std::chrono::nanoseconds>(kCatchUpPause).count()) return;
  collectCompletions(/*wait=*/false);
}

void SessionWatcher::readsEndedLocked(Stream* stream) {
  stream->readsEnded = true;
  // The server no longer watches anything on it: every session the stream watched is gone
  // with it, now rather than when the stream is finished.
  const uint64_t number = stream->number;
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

}  // namespace nnremote::proxy
