// Session liveness without a thread per session: a client's WatchSessions stream watches its
// sessions and is a gRPC callback reactor that costs no thread while it waits. A cancelled stream
// (the client closed its connection or died) ends its sessions and releases everything they
// owned; a session closed by CloseSession is reported on the stream, and the server stopping
// ends the stream.
#ifndef NNREMOTE_EMULATOR_SESSION_WATCH_SERVICE_H_
#define NNREMOTE_EMULATOR_SESSION_WATCH_SERVICE_H_

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "emulator/caller_identity.h"
#include "emulator/session_registry.h"
#include "emulator/work_pool.h"
#include "wire/nnremote.grpc.pb.h"

namespace nnremote::emulator {

class SessionWatchService final : public wire::SessionWatch::CallbackService {
 public:
  // Only the identity that opened a session may watch it: a watch that breaks ends the session,
  // on `pool` (ending what a session holds may be a blocking call; see BurstReactor::OnDone).
  SessionWatchService(SessionRegistry& sessions, const Authenticator& authenticator, WorkPool& pool)
      : sessions_(sessions), authenticator_(authenticator), pool_(pool) {}
  // The server is shut down first, so every watch's OnDone has run (on gRPC's threads); taking
  // the lock once more orders their changes before the destruction where TSan can see it.
  ~SessionWatchService() override { std::lock_guard<std::mutex> lock(mutex_); }

  // Many sessions of the caller's identity on one stream (sessions are added and removed by
  // the client's messages); when the stream is cancelled, all of them end.
  grpc::ServerBidiReactor<wire::WatchSessionsRequest, wire::SessionEvent>* WatchSessions(
      grpc::CallbackServerContext* context) override;

  // Ends the watch of a session that was closed.
  void sessionClosed(uint64_t sessionId);
  // Ends every watch, so the server can shut down.
  void stopAll();
  size_t watching() const;

 private:
  class MultiWatch;
  friend class MultiWatch;
  void forgetMulti(uint64_t sessionId, MultiWatch* watch);

  SessionRegistry& sessions_;
  const Authenticator& authenticator_;
  WorkPool& pool_;
  mutable std::mutex mutex_;
  std::unordered_multimap<uint64_t, std::shared_ptr<MultiWatch>> multiWatches_;
  bool stopped_ = false;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_SESSION_WATCH_SERVICE_H_
