// Session liveness for every Connection of this process to one server: a single WatchSessions
// stream watches all their sessions (one stream per session would cost the server about
// 17 KiB each). When the stream breaks (the server or the connection is gone), every session it
// watched is reported ended; sessions registered later are watched on a new stream.
#ifndef NNREMOTE_PROXY_DRIVER_SESSION_WATCHER_H_
#define NNREMOTE_PROXY_DRIVER_SESSION_WATCHER_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "proto/nnremote.grpc.pb.h"

namespace nnremote::proxy {

class SessionWatcher {
 public:
  // The process's watcher for `key` (the server's address and how the client authenticates),
  // made on `channel` if there is none.
  static std::shared_ptr<SessionWatcher> shared(const std::string& key, std::shared_ptr<grpc::Channel> channel);
  ~SessionWatcher();

  // Watches `sessionId`: `ended` runs once, under the watcher's lock, when the server no longer
  // watches it (the stream broke, or the session was closed). It must not call the watcher.
  void watch(uint64_t sessionId, std::function<void()> ended);
  // Stops watching; once this returns, `ended` for it will not run.
  void unwatch(uint64_t sessionId);

 private:
  explicit SessionWatcher(std::shared_ptr<grpc::Channel> channel);
  void run();
  // Sends `request` on the current stream, if there is one.
  bool send(const wire::WatchSessionsRequest& request);

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<wire::SessionWatch::Stub> stub_;

  std::mutex mutex_;
  std::condition_variable changed_;
  struct Watched {
    std::function<void()> ended;
    uint64_t stream = 0;  // the stream it was sent on; 0: waiting for the next stream
  };
  std::map<uint64_t, Watched> watched_;
  uint64_t streamNumber_ = 0;  // the stream open now, if streamOpen_
  bool streamOpen_ = false;
  grpc::ClientContext* context_ = nullptr;
  grpc::ClientReaderWriter<wire::WatchSessionsRequest, wire::SessionEvent>* stream_ = nullptr;
  std::mutex writeMutex_;  // one writer at a time on the stream
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace nnremote::proxy

#endif  // NNREMOTE_PROXY_DRIVER_SESSION_WATCHER_H_
