#include "drivers/proxy/connection.h"
#include "drivers/proxy/pool_transport.h"
#include "farm/pool.h"

#include <algorithm>

#include "drivers/proxy/session_watcher.h"
#include "drivers/proxy/stubs.h"
#include "drivers/proxy/unreachable_hint.h"
#include "hal/vlog.h"
#include "wire/address.h"
#include "wire/grpc_status.h"
#include "wire/shared_queue.h"
#include "wire/wire_constants.h"

namespace nnremote::proxy {

namespace {

// Who holds a device, as `nnremote farm list` shows it: the client's name, host and process.
std::string holderName(const ConnectionOptions& options) {
  return options.clientName + "@" + farm::thisProcessName();
}

// How long a look at a TCP address may take (a host that drops packets), when it is not the last.
constexpr std::chrono::milliseconds kLongestProbe{1000};

// Waits up to connectTimeout for the channel to connect, for a server that is starting or busy,
// but gives up as soon as what is at the address says waiting cannot help (nothing listens
// there, TLS on one side only): a program whose first NNAPI call finds no server on its host
// would otherwise stall for the whole timeout. Looked at each time a connection attempt fails.
hal::Status waitForConnected(grpc::Channel& channel, const std::string& address, const ConnectionOptions& options) {
  const bool overTls = !options.security.tlsCaPem.empty();
  const auto deadline = std::chrono::steady_clock::now() + options.connectTimeout;
  for (grpc_connectivity_state state = channel.GetState(/*try_to_connect=*/true); state != GRPC_CHANNEL_READY;
       state = channel.GetState(/*try_to_connect=*/true)) {
    auto left = [&] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    };
    if (state == GRPC_CHANNEL_TRANSIENT_FAILURE && left().count() > 0) {
      const Unreachability why = diagnoseUnreachable(address, overTls, std::min(left(), kLongestProbe));
      if (why.settled) {
        return hal::makeError(hal::ErrorStatus::DEAD_OBJECT)
               << "cannot reach an npu_emulator at " << address << why.hint;
      }
    }
    // The time left after the look, which took some.
    if (!channel.WaitForStateChange(state, std::chrono::system_clock::now() + left())) {
      return hal::makeError(hal::ErrorStatus::DEAD_OBJECT)
             << "cannot reach an npu_emulator at " << address << " within " << options.connectTimeout.count() << " ms"
             << diagnoseUnreachable(address, overTls).hint;
    }
  }
  return {};
}

}  // namespace

hal::Result<std::shared_ptr<Connection>> Connection::connect(const std::string& address,
                                                             const ConnectionOptions& options) {
  if (farm::isPoolTarget(address)) {
    NN_ASSIGN_OR_RETURN(const farm::PoolTarget target, farm::parsePoolTarget(address));
    farm::ClaimOptions claiming;
    claiming.avoidAddresses = options.poolAvoid;
    claiming.holder = holderName(options);
    claiming.onUnanswered = [&address](const hal::Error& error) {
      NN_VLOG(WIRE) << address << ": the farm's etcd did not answer (" << error.message << "); asking again";
    };
    const auto giveUp = std::chrono::steady_clock::now() + options.poolWait;
    for (;;) {
      // Rounded up, so that the first claim's message names the --wait given, not 1 ms less.
      claiming.wait = std::max(std::chrono::milliseconds(0),
                               std::chrono::ceil<std::chrono::milliseconds>(giveUp - std::chrono::steady_clock::now()));
      NN_ASSIGN_OR_RETURN(auto claim, farm::claimDevice(target, claiming));
      NN_VLOG(WIRE) << address << " picked " << claim->device() << " at " << claim->address()
                    << (claim->exclusive() ? ", held exclusively" : "");
      auto connection = connect(claim->address(), options);
      if (connection.ok()) {
        (*connection)->claim_ = std::move(claim);
        return connection;
      }
      // An emulator that died a moment ago is still listed until its lease expires: try another.
      if (connection.error().code != hal::ErrorStatus::DEAD_OBJECT) return connection.error();
      NN_VLOG(WIRE) << claim->address() << " does not answer; picking another device of the pool";
      claiming.avoidAddresses.push_back(claim->address());
    }
  }
  if (auto parsed = wire::parseAddress(address, wire::AddressUse::kConnect); !parsed.ok()) return parsed.error();
  std::shared_ptr<Connection> connection(new Connection());
  connection->address_ = address;
  connection->options_ = options;
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(-1);
  arguments.SetMaxSendMessageSize(-1);
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, static_cast<int>(options.keepaliveTime.count()));
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, static_cast<int>(options.keepaliveTimeout.count()));
  arguments.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  // Keep pinging while the connection carries no data (a burst's executions ride shared memory):
  // gRPC otherwise stops after two pings without data, and a dead server would go unnoticed.
  arguments.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  // A restarted server is found again quickly: gRPC's default backoff grows to two minutes.
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  NN_ASSIGN_OR_RETURN(connection->channel_, createSecureChannel(address, options.security, arguments));
  NN_VLOG(WIRE) << "connecting to " << address << (options.security.tlsCaPem.empty() ? "" : " over TLS")
                << (options.security.token.empty() ? "" : " with a bearer token");
  NN_RETURN_IF_ERROR(waitForConnected(*connection->channel_, address, options));
  connection->stub_ = std::make_unique<AcceleratorStub>(connection->channel_);
  connection->waitsStub_ = std::make_unique<AcceleratorWaitsStub>(connection->channel_);
  NN_ASSIGN_OR_RETURN(auto opened, connection->openSession());
  connection->session_ = {opened.first, 0};
  connection->identity_ = std::move(opened.second);
  connection->fenceOwners_.push_back(std::make_unique<char>());
  connection->pools_ = std::make_unique<PoolTransport>(*connection, options.useSharedMemory,
                                                       options.bulkThresholdBytes);
  // Connections that reach the server the same way share one liveness stream.
  const ChannelSecurity& security = options.security;
  const std::string watcherKey = address + '\n' + security.tlsCaPem + '\n' + security.tlsCertPem + '\n' +
                                 security.tlsKeyPem + '\n' + security.tlsServerName + '\n' + security.token + '\n' +
                                 std::to_string(options.keepaliveTime.count()) + '\n' +
                                 std::to_string(options.keepaliveTimeout.count());
  connection->watcher_ = SessionWatcher::shared(watcherKey, connection->channel_);
  connection->watchSession(connection->session_);
  return connection;
}

hal::Result<std::pair<uint64_t, std::string>> Connection::openSession() {
  wire::OpenSessionRequest request;
  request.set_client_version(wire::kWireVersion);
  request.set_client_name(options_.clientName);
  wire::OpenSessionResponse response;
  auto context = controlContext();
  const grpc::Status status = stub()->OpenSession(context.get(), request, &response);
  if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
    // An HTTP/2 or gRPC server without our service: the commonest is etcd's client port given
    // as --target instead of etcd://HOST:PORT/POOL.
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
           << address_ << " is not an npu_emulator: it answers HTTP/2 but has no nnremote.wire.Accelerator service"
           << (status.error_message().empty() ? "" : " (" + status.error_message() + ")")
           << "; a farm's etcd is reached as etcd://HOST:PORT/POOL";
  }
  if (!status.ok()) {
    return hal::withContext(wire::fromGrpcStatus(status), "OpenSession at " + address_);
  }
  return std::make_pair(response.session_id(), response.identity());
}

void Connection::watchSession(SessionRef session) {
  // The watcher calls back under its own lock; markLost takes only ours.
  watcher_->watch(session.id, [this, generation = session.generation] { markLost(generation); });
}

Connection::~Connection() {
  SessionRef current;
  bool lost = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    current = session_;
    lost = lost_;
    closing_ = true;
  }
  changed_.notify_all();
  // No callback for this connection runs after this; the server stops watching the session
  // before it is closed.
  if (watcher_ != nullptr && current.id != 0) watcher_->unwatch(current.id);
  if (stub_ != nullptr && current.id != 0 && !lost) {
    wire::CloseSessionRequest request;
    request.set_session_id(current.id);
    wire::Empty empty;
    auto context = controlContext();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    (void)stub()->CloseSession(context.get(), request, &empty);
  }
}

const std::string& Connection::pooledDevice() const {
  static const std::string kNone;
  return claim_ != nullptr ? claim_->device() : kNone;
}

SessionRef Connection::currentSession() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return session_;
}

uint64_t Connection::reconnects() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reconnects_;
}

const void* Connection::fenceOwner(uint64_t generation) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return generation < fenceOwners_.size() ? fenceOwners_[generation].get() : nullptr;
}

void Connection::releaseFenceLater(uint64_t session, uint64_t fenceId) {
  std::lock_guard<std::mutex> lock(mutex_);
  fenceReleases_.emplace_back(session, fenceId);
}

std::vector<uint64_t> Connection::takeFenceReleases(uint64_t session) {
  std::vector<uint64_t> ids;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [owner, id] : fenceReleases_) {
    if (owner == session) ids.push_back(id);
  }
  fenceReleases_.clear();
  return ids;
}

hal::Status Connection::releaseDropped() {
  pools().releaseExpired();
  const SessionRef session = currentSession();
  std::vector<uint64_t> fences = takeFenceReleases(session.id);
  if (fences.empty()) return {};
  wire::ReleaseFencesRequest request;
  request.set_session_id(session.id);
  request.mutable_fence_ids()->Add(fences.begin(), fences.end());
  wire::Empty empty;
  auto context = controlContext();
  const grpc::Status status = stub()->ReleaseFences(context.get(), request, &empty);
  if (!status.ok()) return callFailed(status, session.generation);
  return {};
}

bool Connection::lostSince(uint64_t generation) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lost_ || session_.generation != generation;
}

void Connection::serverDied() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    lost_ = true;
  }
  std::lock_guard<std::mutex> lock(queuesMutex_);
  for (wire::SharedQueue* queue : queues_) queue->shutDown();  // on behalf of the dead server
}

void Connection::addQueue(wire::SharedQueue* queue) {
  std::lock_guard<std::mutex> lock(queuesMutex_);
  queues_.insert(queue);
}

void Connection::removeQueue(wire::SharedQueue* queue) {
  std::lock_guard<std::mutex> lock(queuesMutex_);
  queues_.erase(queue);
}

void Connection::markLost(uint64_t generation) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (session_.generation == generation) lost_ = true;
}

hal::Error Connection::callFailed(const grpc::Status& status, uint64_t generation, bool* neverRan) {
  hal::Error error = wire::fromGrpcStatus(status);
  const bool transport = status.error_details().empty() &&
                         (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
                          status.error_code() == grpc::StatusCode::UNKNOWN);
  // The server answers NOT_FOUND (with HAL details) for a session it does not know.
  const bool unknownSession = status.error_code() == grpc::StatusCode::NOT_FOUND;
  if (transport || unknownSession) markLost(generation);
  if (transport && options_.explainLoss) {
    if (const std::string why = options_.explainLoss(); !why.empty()) {
      error.message += " (" + why + ")";
    }
  }
  if (neverRan != nullptr) {
    // gRPC's words for a request that never left this process: no connection at all, or (as a
    // rule, see brokenConnectionMeansUnsent) written into a connection the peer had closed.
    const std::string& message = status.error_message();
    const bool unsent = message.find("Connection refused") != std::string::npos ||
                        message.find("failed to connect") != std::string::npos ||
                        (options_.brokenConnectionMeansUnsent && message.find("Broken pipe") != std::string::npos);
    *neverRan = unknownSession || (transport && unsent);
  }
  return error;
}

hal::Result<SessionRef> Connection::session() {
  // Before any of our locks: the watcher calls markLost, which takes mutex_.
  if (watcher_ != nullptr) watcher_->catchUp();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!lost_) return session_;
    if (!options_.reconnect) {
      return hal::makeError(hal::ErrorStatus::DEAD_OBJECT)
             << "the session at " << address_ << " was lost and reconnecting is off";
    }
  }
  std::lock_guard<std::mutex> recovering(recoveryMutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!lost_) return session_;  // another caller recovered it meanwhile
  }
  // Backoff between attempts; the channel reconnects by itself, we only wait for it.
  const auto giveUp = std::chrono::steady_clock::now() + options_.reconnectTimeout;
  std::chrono::milliseconds pause(50);
  hal::Error last = hal::makeError(hal::ErrorStatus::DEAD_OBJECT) << "nothing accepted a connection";
  while (std::chrono::steady_clock::now() < giveUp) {
    if (options_.serverGoneForGood) {
      if (const std::optional<std::string> why = options_.serverGoneForGood()) {
        return hal::makeError(hal::ErrorStatus::DEAD_OBJECT) << "the session at " << address_ << " was lost: " << *why;
      }
    }
    // A pool's device that left the pool is not coming back: its emulator is gone.
    if (claim_ != nullptr && !claim_->stillListed()) {
      return hal::makeError(hal::ErrorStatus::DEAD_OBJECT)
             << "the session at " << address_ << " was lost and " << claim_->device()
             << " has left the farm's pool (its emulator is gone)";
    }
    if (channel_->WaitForConnected(std::chrono::system_clock::now() + pause)) {
      auto opened = openSession();
      if (opened.ok()) {
        SessionRef previous, current;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          previous = session_;
          session_ = current = {opened->first, session_.generation + 1};
          fenceOwners_.push_back(std::make_unique<char>());
          lost_ = false;
          ++reconnects_;
        }
        changed_.notify_all();
        NN_VLOG(WIRE) << "reconnected to " << address_ << ": session " << previous.id << " replaced by " << current.id;
        watcher_->unwatch(previous.id);
        watchSession(current);
        return current;
      }
      last = opened.error();
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(1000));
  }
  // A server whose parent knows why it is not back (a backend host that cannot restart) says so.
  std::string why = "last: " + last.message;
  if (options_.explainLoss) {
    if (std::string explained = options_.explainLoss(); !explained.empty()) why = std::move(explained);
  }
  return hal::makeError(hal::ErrorStatus::DEAD_OBJECT)
         << "the session at " << address_ << " was lost and the server did not come back within "
         << options_.reconnectTimeout.count() << " ms (" << why << ")";
}

bool Connection::reachable() const {
  // Streams and sessions live on the connection that is up now; once it drops, they are gone
  // even if the channel later reconnects.
  return channel_->GetState(/*try_to_connect=*/false) == GRPC_CHANNEL_READY;
}

std::unique_ptr<grpc::ClientContext> Connection::controlContext() const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + options_.controlCallTimeout);
  return context;
}

// A server answers a missed deadline itself; this grace lets its answer arrive first.
constexpr std::chrono::seconds kDeadlineGrace{1};

std::optional<std::chrono::system_clock::time_point> Connection::executionCallLimit(
    const hal::OptionalTimePoint& deadline) const {
  if (deadline.has_value()) {
    const hal::Duration left = hal::timeUntil(*deadline);
    return std::chrono::system_clock::now() + std::chrono::duration_cast<std::chrono::system_clock::duration>(left) +
           kDeadlineGrace;
  }
  if (options_.executionTimeout.count() > 0) return std::chrono::system_clock::now() + options_.executionTimeout;
  return std::nullopt;
}

hal::Error Connection::executionCutOff(const hal::OptionalTimePoint& deadline) const {
  if (deadline.has_value()) {
    return hal::makeError(hal::ErrorStatus::MISSED_DEADLINE_TRANSIENT)
           << "the server did not answer by the execution's deadline (plus " << kDeadlineGrace.count() << " s)";
  }
  return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
         << "the server did not answer within ConnectionOptions.executionTimeout ("
         << options_.executionTimeout.count() << " ms)";
}

hal::Error Connection::executionCallError(const grpc::Status& status, const hal::OptionalTimePoint& deadline,
                                          uint64_t generation, bool* neverRan) {
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED && status.error_details().empty() &&
      (deadline.has_value() || options_.executionTimeout.count() > 0)) {
    return executionCutOff(deadline);
  }
  return callFailed(status, generation, neverRan);
}

}  // namespace nnremote::proxy
