// Session liveness for every Connection of this process to one server: a single WatchSessions
// stream watches all their sessions (one stream per session would cost the server about
// 17 KiB each). When the stream breaks (the server or the connection is gone), every session it
// watched is reported ended; sessions registered later are watched on a new stream.
//
// The stream never holds a thread blocked inside gRPC. A thread waiting in gRPC polls the
// process's sockets for everyone, so a watcher waiting there would take the answers of the
// application's own calls and hand each one over with a wake-up: two context switches more per
// round trip. Instead the stream runs on the asynchronous API and its thread collects what
// completed without waiting in gRPC, when it is told of a change and every kPollInterval: the
// application's calls make progress on the stream while they poll, and the watcher's own
// non-blocking poll does while the application is idle. A call made after a pause first
// catches up (catchUp), so a server that went away meanwhile is known before the call is sent.
#ifndef NNREMOTE_DRIVERS_PROXY_SESSION_WATCHER_H_
#define NNREMOTE_DRIVERS_PROXY_SESSION_WATCHER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>


namespace nnremote::proxy {

class SessionWatchStub;  // drivers/proxy/stubs.h

class SessionWatcher {
 public:
  // How long a session's end may go unnoticed while the application makes no call.
  static constexpr std::chrono::milliseconds kPollInterval{50};
  static constexpr std::chrono::milliseconds kCatchUpPause{1};

  // The process's watcher for `key` (the server's address and how the client authenticates),
  // made on `channel` if there is none.
  static std::shared_ptr<SessionWatcher> shared(const std::string& key, std::shared_ptr<grpc::Channel> channel);
  ~SessionWatcher();

  // Watches `sessionId`: `ended` runs once, under the watcher's lock, when the server no longer
  // watches it (the stream broke, or the session was closed). It must not call the watcher.
  void watch(uint64_t sessionId, std::function<void()> ended);
  // Stops watching; once this returns, `ended` for it will not run.
  void unwatch(uint64_t sessionId);
  // Takes in what the sockets have for the stream now, so that a call about to be made after a
  // pause knows of a session that ended meanwhile (a server that restarted while the client was
  // idle) rather than finding out by failing. Called by the caller's thread, not under a lock
  // that `ended` takes; does nothing when the previous call (this process's last catchUp) was
  // less than kCatchUpPause ago.
  void catchUp();

 private:
  explicit SessionWatcher(std::shared_ptr<grpc::Channel> channel);

  // One WatchSessions stream and the operation it has outstanding on the completion queue.
  struct Stream;
  enum class Operation { kStart, kRead, kWrite, kFinish };

  void run();
  // Opens a stream for the sessions waiting for one, if any and none is open.
  void openStreamLocked();
  // Sends the adds and removes not yet sent, unless a write is outstanding.
  void writeChangesLocked();
  // Takes what completed on the queue; with `wait`, blocks until something did.
  void collectCompletions(bool wait);
  // What the queue returned for `tag` (a Stream::Tag).
  void completed(void* tag, bool ok);
  // The stream broke or the server ended it: ends every session it watched.
  void readsEndedLocked(Stream* stream);

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<SessionWatchStub> stub_;
  grpc::CompletionQueue queue_;

  std::mutex mutex_;
  std::condition_variable changed_;
  struct Watched {
    std::function<void()> ended;
    uint64_t stream = 0;  // the stream it was sent on; 0: waiting for the next stream
  };
  std::map<uint64_t, Watched> watched_;
  std::unique_ptr<Stream> stream_;  // the open stream, if any
  uint64_t streamNumber_ = 0;       // the last stream opened
  std::vector<uint64_t> pendingAdds_, pendingRemoves_;  // for the open stream, not yet written
  int outstanding_ = 0;  // operations on the queue, of all streams
  bool wake_ = false;    // watch or unwatch has something for the thread
  bool stopping_ = false;
  std::atomic<int64_t> lastCall_{0};  // the last catchUp, steady clock, ns
  std::thread thread_;
};

}  // namespace nnremote::proxy

#endif  // NNREMOTE_DRIVERS_PROXY_SESSION_WATCHER_H_
