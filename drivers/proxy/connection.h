// One client's link to an npu_emulator: a gRPC channel and an open session. The session stays
// open while the Connection lives; destroying it closes the session, which releases everything
// the client prepared there. If this process dies, the server notices the broken WatchSessions
// stream and releases them too.
//
// Recovery (docs/security.md#recovery): when the server goes away (the session watch breaks, or
// a call fails in transport), the session is lost. Calls in flight fail with DEAD_OBJECT. The
// next call reconnects to the same address with backoff and opens a new session, a new
// *generation*; the proxy's objects notice the new generation and set themselves up again in it
// (prepared models are prepared again from the models they keep, shared memory is registered
// again, bursts reopen). Device buffers cannot be: their contents were on the server.
#ifndef NNREMOTE_DRIVERS_PROXY_CONNECTION_H_
#define NNREMOTE_DRIVERS_PROXY_CONNECTION_H_

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "hal/result.h"
#include "hal/types.h"
#include "wire/address.h"
#include "wire/shared_queue.h"
#include "drivers/proxy/channel_security.h"
#include "drivers/proxy/session_channel.h"

namespace nnremote::wire {
class SharedQueue;
}

namespace nnremote::farm {
class DeviceClaim;  // farm/pool.h, which brings etcd's client with it: only connection.cc needs it
}

namespace nnremote::proxy {

class AcceleratorWaitsStub;  // drivers/proxy/stubs.h
class SessionWatcher;

struct ConnectionOptions {
  std::string clientName = "nnremote-proxy";
  // How long to wait for the server to accept the connection.
  std::chrono::milliseconds connectTimeout{5000};
  // Deadline for calls that only query or release (executions use the HAL deadline).
  std::chrono::milliseconds controlCallTimeout{30000};
  // How long an execution without a HAL deadline may wait for its answer; 0 waits as long as
  // the server is reachable (the HAL's own behaviour). A server that hangs then fails the call
  // with GENERAL_FAILURE instead of blocking the caller forever. Executions with a deadline
  // give up one second after it (MISSED_DEADLINE_TRANSIENT) if the server has not answered.
  std::chrono::milliseconds executionTimeout{0};
  // A peer that stops answering keepalive pings for this long is treated as dead.
  std::chrono::milliseconds keepaliveTime{10000};
  std::chrono::milliseconds keepaliveTimeout{5000};
  // Send hal shared memory by registration (zero copy) when the server shares this host.
  bool useSharedMemory = true;
  // Run bursts through a shared-memory queue instead of stream messages when the server shares
  // this host (a unix-socket address).
  bool useSharedMemoryBursts = true;
  // Pools with contents larger than this travel as bulk uploads instead of inline.
  uint64_t bulkThresholdBytes = uint64_t{1} << 20;
  // Check models (hal::validateModel, the device's feature level) here before sending them, so
  // an invalid model costs no round trip. The server checks every model anyway; off only to
  // test the server's own checks.
  bool validateOnClient = true;
  // TLS, mutual TLS and a bearer token (docs/security.md).
  ChannelSecurity security;
  // Reconnect and open a new session when the server is lost (see above). Off: every call after
  // a loss fails with DEAD_OBJECT, as AOSP drivers do without a Resilient wrapper.
  bool reconnect = true;
  // Whether a call that met a broken connection (gRPC's "Broken pipe") counts as never made, and
  // is made once more in a new session. So for a server that went away between calls, before
  // this client noticed. Off for a server whose supervisor reports its death at once
  // (serverDied): a call that still met the broken connection was in flight when the server
  // died, may be what killed it, and made again would strike the restarted server too.
  bool brokenConnectionMeansUnsent = true;
  // How long one recovery keeps trying before the call fails with DEAD_OBJECT.
  std::chrono::milliseconds reconnectTimeout{10000};
  // How often a call waiting for its answer on a burst's shared-memory queue checks that the
  // server is still reachable (serverDied() ends such waits at once).
  std::chrono::milliseconds queuePoll{100};
  // How long such a call spins for its answer before it sleeps. 0 for a process that relays its
  // own clients' calls (a backend host's parent): on a small machine its spinning holds a core
  // that the other side of the hop, or the relay's next step, needs.
  std::chrono::microseconds queueSpin = wire::SharedQueue::kDefaultClientSpin;
  // Whether such a call hands its CPU to the server for the wait (wire::SharedQueue::handOffCpu):
  // only for a server this process started itself (a backend host's parent), which says the
  // server's process id when a burst opens (0: no hand-off). Unset: none.
  std::function<pid_t()> queueHandOffProcess;
  // etcd:// targets (farm/pool.h): how long to wait for a matching device to be in the pool (or,
  // exclusive, to be free), and emulators not to pick.
  std::chrono::milliseconds poolWait{0};
  std::vector<std::string> poolAvoid;
  // For a client that supervises the server itself (npu_emulator and its backend hosts):
  // why the server died, added to the DEAD_OBJECT of the calls it was serving ("" if unknown);
  // and, asked while recovering, why it will not come back (a crash loop), or nullopt to keep
  // trying: calls then fail at once with DEAD_OBJECT and that reason.
  std::function<std::string()> explainLoss;
  std::function<std::optional<std::string>()> serverGoneForGood;
  // For a client with a side channel to the server (a backend host's parent): hands the server
  // a shared-memory descriptor and returns the token RegisterMemory's passed_descriptor names it
  // by. Pools with a descriptor() then register that way rather than by name.
  DescriptorPasser passDescriptor;
};

class PoolTransport;

class Connection final : public SessionChannel {
 public:
  // Connects to `address` ("unix:PATH", "unix-abstract:NAME" or "HOST:PORT") and opens a
  // session. A server that cannot be reached gives DEAD_OBJECT.
  // An etcd://ENDPOINTS/POOL[?...] target (docs/farm.md) first picks a device from that pool
  // (holding it, with exclusive=1, for as long as the connection lives) and connects to its
  // emulator; the connection then offers only that device.
  static hal::Result<std::shared_ptr<Connection>> connect(const std::string& address,
                                                          const ConnectionOptions& options = {});
  ~Connection() override;

  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  AcceleratorStub& stub() const override { return *stub_; }
  // The calls that wait (bursts, fenced-execution info, fences), on the same channel.
  AcceleratorWaitsStub& waitsStub() const { return *waitsStub_; }
  // The current session's id; session() also recovers a lost one first.
  uint64_t sessionId() const { return currentSession().id; }
  uint64_t generation() const { return currentSession().generation; }
  // The session as it is now, lost or not; makes no call.
  SessionRef currentSession() const override;
  // The current session, after recovering a lost one (when options.reconnect is on): a server
  // that does not come back within reconnectTimeout, or a lost session without reconnect, gives
  // DEAD_OBJECT.
  hal::Result<SessionRef> session();
  // How many times a lost session was replaced by a new one.
  uint64_t reconnects() const;
  // A key for remote fences that is unique to one generation's session (hal::SyncFence::setRemote).
  const void* fenceOwner(uint64_t generation) const;
  // Server fences of `session` that this process no longer holds: they travel with the next
  // fenced execution (ExecuteFencedRequest.release_fence_ids), so releasing costs no call.
  void releaseFenceLater(uint64_t session, uint64_t fenceId);
  // The fences of `session` to release now; those of earlier sessions are dropped (they died
  // with their session).
  std::vector<uint64_t> takeFenceReleases(uint64_t session);
  // Whether the session of `generation` is gone (lost, or replaced by a newer one).
  bool lostSince(uint64_t generation) const;
  // For a client that supervises its server (a backend host's parent) and has seen it die: the
  // session is lost now, not once gRPC notices, and calls waiting for an answer on a burst's
  // shared-memory queue end at once with DEAD_OBJECT rather than at their next poll.
  void serverDied();
  // The shared-memory queues of this connection's bursts, which serverDied() ends.
  void addQueue(wire::SharedQueue* queue);
  void removeQueue(wire::SharedQueue* queue);
  // Releases on the server, now, what this process has let go of and would otherwise release
  // with the next request that carries it: destroyed shared memories and dropped fences. For a
  // client with no such request to come (and tests that count what the server holds).
  hal::Status releaseDropped();
  // The HAL error of a failed call made in `generation`. A transport failure (no HAL details:
  // the server is gone), or a server that no longer knows the session, marks that session lost.
  // `neverRan`, if given, says whether the call certainly did not run: the server did not know
  // the session, or the request could not even be written to a connection that had already
  // broken. Such a call may be made again in a new session.
  hal::Error callFailed(const grpc::Status& status, uint64_t generation, bool* neverRan = nullptr) override;

  // Makes a call in the current session (recovering a lost one first). If the call never ran
  // because that session was already gone (the server restarted while this client was idle, so
  // the call met a dead connection or a server that no longer knows the session), it is made once
  // more in a new session rather than failing. `attempt(session, &neverRan)` makes the call and
  // passes `neverRan` on to callFailed.
  template <typename T, typename Attempt>
  hal::Result<T> inSessionRetryingOnce(Attempt&& attempt) {
    for (int tries = 0;; ++tries) {
      NN_ASSIGN_OR_RETURN(const SessionRef session, this->session());
      bool neverRan = false;
      hal::Result<T> result = attempt(session, &neverRan);
      if (result.ok() || tries > 0 || !neverRan || !options_.reconnect) return result;
    }
  }
  // Who the server takes this client to be ("uid:N", a certificate subject, a token's identity).
  const std::string& identity() const { return identity_; }
  const std::string& address() const { return address_; }
  // The device an etcd:// target picked; empty for a plain address.
  const std::string& pooledDevice() const;
  const ConnectionOptions& options() const { return options_; }
  const DescriptorPasser& descriptorPasser() const override { return options_.passDescriptor; }
  // Whether the server runs on this host: the address is a unix socket.
  bool sameHost() const { return wire::isUnixAddress(address_); }
  // False once the connection has dropped; cheap, makes no call.
  bool reachable() const;

  // A context for a query/release call, with the control-call deadline.
  std::unique_ptr<grpc::ClientContext> controlContext() const override;

  // When an execution call gives up waiting (see executionTimeout), if ever.
  std::optional<std::chrono::system_clock::time_point> executionCallLimit(const hal::OptionalTimePoint& deadline) const;
  // The HAL error of an execution call that failed with `status`: one cut off at its limit is
  // MISSED_DEADLINE_TRANSIENT or, without a deadline, GENERAL_FAILURE naming the timeout.
  hal::Error executionCallError(const grpc::Status& status, const hal::OptionalTimePoint& deadline,
                                uint64_t generation, bool* neverRan = nullptr);
  hal::Error executionCutOff(const hal::OptionalTimePoint& deadline) const;

  PoolTransport& pools() const { return *pools_; }

 private:
  Connection() = default;
  // Opens a session on the channel: its id and the identity the server gives us.
  hal::Result<std::pair<uint64_t, std::string>> openSession();
  // Watches `session` through the process's shared watcher; if the server stops watching it
  // (the stream broke), that generation is marked lost.
  void watchSession(SessionRef session);
  void markLost(uint64_t generation);

  std::string address_;
  ConnectionOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<AcceleratorStub> stub_;
  std::unique_ptr<AcceleratorWaitsStub> waitsStub_;
  std::shared_ptr<SessionWatcher> watcher_;
  std::string identity_;
  std::unique_ptr<PoolTransport> pools_;
  std::unique_ptr<farm::DeviceClaim> claim_;  // an etcd:// target's device; released after the session closes

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  SessionRef session_;   // guarded by mutex_
  bool lost_ = false;    // the current session is gone
  bool closing_ = false;
  uint64_t reconnects_ = 0;
  std::vector<std::unique_ptr<char>> fenceOwners_;  // one per generation; never reused
  std::vector<std::pair<uint64_t, uint64_t>> fenceReleases_;  // (session, fence id), guarded by mutex_
  std::mutex recoveryMutex_;                        // one recovery at a time
  std::mutex queuesMutex_;
  std::set<wire::SharedQueue*> queues_;  // guarded by queuesMutex_
};

}  // namespace nnremote::proxy

#endif  // NNREMOTE_DRIVERS_PROXY_CONNECTION_H_
