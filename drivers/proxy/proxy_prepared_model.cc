#include "drivers/proxy/proxy_prepared_model.h"
#include "drivers/proxy/stubs.h"


#include <algorithm>
#include <mutex>
#include <thread>

#include "wire/conversions.h"
#include "wire/grpc_status.h"
#include "drivers/proxy/cache_transfer.h"
#include "drivers/proxy/execution_results.h"
#include "drivers/proxy/proxy_burst.h"
#include "drivers/proxy/pool_transport.h"
#include "hal/vlog.h"

namespace nnremote::proxy {

using hal::ErrorStatus;
using hal::makeError;

namespace {

// A PrepareModel call in `session`; the prepared model's id. With cache handles, what the device
// saved is written into them.
hal::Result<uint64_t> prepareOnServer(Connection& connection, SessionRef session,
                                      const ProxyPreparedModel::Preparation& preparation,
                                      const hal::OptionalTimePoint& deadline,
                                      const std::vector<hal::CacheFile>& modelCache,
                                      const std::vector<hal::CacheFile>& dataCache, const hal::CacheToken& token,
                                      bool* neverRan = nullptr) {
  wire::PrepareModelRequest request;
  request.set_session_id(session.id);
  request.set_device_name(preparation.deviceName);
  auto encode = [&connection](const hal::SharedMemory& memory, bool withContents) {
    return connection.pools().encode(memory, withContents);
  };
  NN_ASSIGN_OR_RETURN(*request.mutable_model(), wire::toWire(preparation.model, encode));
  request.set_preference(static_cast<wire::ExecutionPreference>(preparation.preference));
  request.set_priority(wire::toWire(preparation.priority));
  bool hasDeadline = false;
  wire::toWire(deadline, request.mutable_deadline(), &hasDeadline);
  if (!hasDeadline) request.clear_deadline();
  NN_RETURN_IF_ERROR(describeCacheFiles(modelCache, CacheContents::NONE, request.mutable_model_cache()));
  NN_RETURN_IF_ERROR(describeCacheFiles(dataCache, CacheContents::NONE, request.mutable_data_cache()));
  if (!modelCache.empty() || !dataCache.empty()) request.set_cache_token(token.data(), token.size());
  wire::PrepareModelResponse response;
  grpc::ClientContext context;  // preparation can take long; a dead peer fails by keepalive
  const grpc::Status status = connection.stub()->PrepareModel(&context, request, &response);
  if (!status.ok()) return connection.callFailed(status, session.generation, neverRan);
  if (response.cache_written()) {
    // Saving is best effort in the HAL; a client file that cannot be written only costs the
    // next prepareModelFromCache.
    (void)writeBackCacheFiles(modelCache, response.model_cache_contents());
    (void)writeBackCacheFiles(dataCache, response.data_cache_contents());
  }
  return response.prepared_model_id();
}

// What a model was prepared from cache from: the client's handles (kept open, shared with the
// caller), so it can be prepared again after a reconnect.
struct CachedPreparation {
  std::string deviceName;
  std::vector<hal::CacheFile> modelCache, dataCache;
  hal::CacheToken token;
};

hal::Result<wire::PrepareModelFromCacheRequest> fromCacheRequest(const CachedPreparation& cached, SessionRef session,
                                                                 CacheContents dataContents, bool* withheld) {
  wire::PrepareModelFromCacheRequest request;
  request.set_session_id(session.id);
  request.set_device_name(cached.deviceName);
  NN_RETURN_IF_ERROR(describeCacheFiles(cached.modelCache, CacheContents::WHOLE, request.mutable_model_cache()));
  NN_RETURN_IF_ERROR(describeCacheFiles(cached.dataCache, dataContents, request.mutable_data_cache(), withheld));
  request.set_cache_token(cached.token.data(), cached.token.size());
  return request;
}

hal::Result<uint64_t> prepareFromCacheOnServer(Connection& connection, SessionRef session,
                                               const CachedPreparation& cached, const hal::OptionalTimePoint& deadline,
                                               bool* neverRan = nullptr) {
  // First with only the head of a large data cache, whose data the device may still hold; if it
  // does not (or anything else failed), once more with the whole files.
  bool withheld = false;
  for (CacheContents data : {CacheContents::HEAD_OF_LARGE, CacheContents::WHOLE}) {
    NN_ASSIGN_OR_RETURN(wire::PrepareModelFromCacheRequest request, fromCacheRequest(cached, session, data, &withheld));
    bool hasDeadline = false;
    wire::toWire(deadline, request.mutable_deadline(), &hasDeadline);
    if (!hasDeadline) request.clear_deadline();
    wire::PrepareModelResponse response;
    grpc::ClientContext context;
    const grpc::Status status = connection.stub()->PrepareModelFromCache(&context, request, &response);
    if (status.ok()) return response.prepared_model_id();
    hal::Error error = connection.callFailed(status, session.generation, neverRan);
    if (data == CacheContents::WHOLE || !withheld || error.code != ErrorStatus::GENERAL_FAILURE) return error;
  }
  return makeError(ErrorStatus::GENERAL_FAILURE) << "unreachable";
}

}  // namespace

hal::Result<std::shared_ptr<ProxyPreparedModel>> ProxyPreparedModel::prepare(
    std::shared_ptr<Connection> connection, Preparation preparation, const hal::OptionalTimePoint& deadline,
    const std::vector<hal::CacheFile>& modelCache, const std::vector<hal::CacheFile>& dataCache,
    const hal::CacheToken& token) {
  using Prepared = std::pair<SessionRef, uint64_t>;
  NN_ASSIGN_OR_RETURN(const Prepared prepared, connection->inSessionRetryingOnce<Prepared>(
                                                   [&](SessionRef session, bool* neverRan) -> hal::Result<Prepared> {
                                                     NN_ASSIGN_OR_RETURN(const uint64_t id,
                                                                         prepareOnServer(*connection, session, preparation,
                                                                                         deadline, modelCache, dataCache,
                                                                                         token, neverRan));
                                                     return Prepared{session, id};
                                                   }));
  const auto [session, id] = prepared;
  auto kept = std::make_shared<const Preparation>(std::move(preparation));
  Reprepare reprepare = [kept](Connection& connection, SessionRef session) {
    return prepareOnServer(connection, session, *kept, std::nullopt, {}, {}, hal::CacheToken{});
  };
  return std::make_shared<ProxyPreparedModel>(std::move(connection), session, id, std::move(reprepare));
}

hal::Result<std::shared_ptr<ProxyPreparedModel>> ProxyPreparedModel::prepareFromCache(
    std::shared_ptr<Connection> connection, const std::string& deviceName, const hal::OptionalTimePoint& deadline,
    const std::vector<hal::CacheFile>& modelCache, const std::vector<hal::CacheFile>& dataCache,
    const hal::CacheToken& token) {
  auto cached = std::make_shared<const CachedPreparation>(CachedPreparation{deviceName, modelCache, dataCache, token});
  using Prepared = std::pair<SessionRef, uint64_t>;
  NN_ASSIGN_OR_RETURN(const Prepared prepared, connection->inSessionRetryingOnce<Prepared>(
                                                   [&](SessionRef session, bool* neverRan) -> hal::Result<Prepared> {
                                                     NN_ASSIGN_OR_RETURN(const uint64_t id,
                                                                         prepareFromCacheOnServer(*connection, session,
                                                                                                  *cached, deadline, neverRan));
                                                     return Prepared{session, id};
                                                   }));
  const auto [session, id] = prepared;
  Reprepare reprepare = [cached](Connection& connection, SessionRef session) {
    return prepareFromCacheOnServer(connection, session, *cached, std::nullopt);
  };
  return std::make_shared<ProxyPreparedModel>(std::move(connection), session, id, std::move(reprepare));
}

ProxyPreparedModel::ProxyPreparedModel(std::shared_ptr<Connection> connection, SessionRef session,
                                       uint64_t preparedModelId, Reprepare reprepare)
    : connection_(std::move(connection)),
      reprepare_(std::move(reprepare)),
      session_(session),
      preparedModelId_(preparedModelId) {}

ProxyPreparedModel::~ProxyPreparedModel() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (session_.generation != connection_->generation()) return;  // its session is gone already
  wire::ReleasePreparedModelRequest request;
  request.set_session_id(session_.id);
  request.set_prepared_model_id(preparedModelId_);
  wire::Empty empty;
  auto context = connection_->controlContext();
  // Best effort: if the server is gone, so is the prepared model.
  (void)connection_->stub()->ReleasePreparedModel(context.get(), request, &empty);
}

hal::Result<std::pair<SessionRef, uint64_t>> ProxyPreparedModel::current() const {
  NN_ASSIGN_OR_RETURN(const SessionRef session, connection_->session());
  std::lock_guard<std::mutex> lock(mutex_);
  if (session.generation != session_.generation) {
    if (!reprepare_) {
      return makeError(ErrorStatus::DEAD_OBJECT)
             << "this prepared model was lost with its server session and cannot be prepared again";
    }
    NN_ASSIGN_OR_RETURN(preparedModelId_, reprepare_(*connection_, session));
    session_ = session;
  }
  return std::make_pair(session_, preparedModelId_);
}

hal::Result<hal::ExecutionOutcome> ProxyPreparedModel::execute(
    const hal::Request& request, hal::MeasureTiming measure, const hal::OptionalTimePoint& deadline,
    const hal::OptionalDuration& loopTimeoutDuration) const {
  PoolTransport& pools = connection_->pools();
  auto encode = [&pools](const hal::SharedMemory& memory, bool withContents) {
    return pools.encode(memory, withContents);
  };
  // The session `current()` recovers (preparing the model again) is the one the retry is made in.
  NN_ASSIGN_OR_RETURN(
      const wire::ExecuteResponse response,
      connection_->inSessionRetryingOnce<wire::ExecuteResponse>(
          [&](SessionRef, bool* neverRan) -> hal::Result<wire::ExecuteResponse> {
            NN_ASSIGN_OR_RETURN(const auto where, current());
            wire::ExecuteRequest call;
            call.set_session_id(where.first.id);
            call.set_prepared_model_id(where.second);
            auto encoded = wire::toWire(request, encode);
            if (!encoded.ok()) {
              // Registering a pool found the session gone: the execution was never sent.
              *neverRan = connection_->lostSince(where.first.generation);
              return encoded.error();
            }
            *call.mutable_request() = std::move(encoded).value();
            setExecutionArguments(&call, measure, deadline, loopTimeoutDuration);
            grpc::ClientContext context;
            if (const auto limit = connection_->executionCallLimit(deadline)) context.set_deadline(*limit);
            wire::ExecuteResponse answer;
            const grpc::Status status = connection_->stub()->Execute(&context, call, &answer);
            NN_VLOG(EXECUTION) << "execute in session " << where.first.id << ", prepared model " << where.second
                               << ": " << call.ByteSizeLong() << " bytes sent, " << answer.ByteSizeLong()
                               << " received, " << (status.ok() ? std::string("OK") : "gRPC " + status.error_message());
            if (!status.ok()) return connection_->executionCallError(status, deadline, where.first.generation, neverRan);
            return answer;
          }));

  return outcomeFromWire(response.outcome(), request, pools);
}

hal::Result<hal::SharedBurst> ProxyPreparedModel::configureExecutionBurst() const {
  return ProxyBurst::open(connection_,
                          std::static_pointer_cast<const ProxyPreparedModel>(shared_from_this()));
}

namespace {

// What a fenced execution's info callback reports, filled in when the execution is done.
struct FencedResult {
  std::mutex mutex;
  hal::Result<std::pair<hal::Timing, hal::Timing>> timings =
      hal::Error{hal::ErrorStatus::GENERAL_FAILURE, "the fenced execution has not finished", {}};
};

// A server fence for `local`, signaled from this process when `local` fires. The signal also
// releases the server's id, so it waits until `named` says the call naming it has been answered
// (the execution then holds the fence itself).
hal::Result<uint64_t> mirrorLocalFence(const std::shared_ptr<Connection>& connection, SessionRef session,
                                       const hal::SyncFence& local, const hal::SyncFence& named) {
  wire::CreateFenceRequest create;
  create.set_session_id(session.id);
  wire::CreateFenceResponse created;
  auto context = connection->controlContext();
  const grpc::Status status = connection->stub()->CreateFence(context.get(), create, &created);
  if (!status.ok()) return connection->callFailed(status, session.generation);
  std::thread([connection, session, local, named, id = created.fence_id()] {
    const bool error = local.wait(std::nullopt) == hal::SyncFence::State::ERROR;
    named.wait(std::nullopt);
    wire::SignalFenceRequest signal;
    signal.set_session_id(session.id);
    signal.set_fence_id(id);
    signal.set_error(error);
    signal.set_release(true);
    wire::Empty empty;
    auto signalContext = connection->controlContext();
    (void)connection->stub()->SignalFence(signalContext.get(), signal, &empty);
  }).detach();
  return created.fence_id();
}

// True if the server reads every input pool in place (registered shared memory), so inputs
// written by earlier executions in a fence chain are seen without the client.
bool inputsStayOnServer(const hal::Request& request, const wire::Request& wireRequest) {
  for (const auto& input : request.inputs) {
    if (input.lifetime != hal::Request::Argument::LifeTime::POOL) continue;
    const auto& pool = wireRequest.pools(static_cast<int>(input.location.poolIndex));
    if (pool.kind_case() == wire::RequestMemoryPool::kMemory &&
        pool.memory().kind_case() != wire::Memory::kRegisteredMemoryId) {
      return false;
    }
  }
  return true;
}

}  // namespace

hal::Status ProxyPreparedModel::validateReusableRequest(const hal::Request& request) const {
  PoolTransport& pools = connection_->pools();
  auto encode = [&pools](const hal::SharedMemory& memory, bool withContents) {
    return pools.encode(memory, withContents);
  };
  NN_ASSIGN_OR_RETURN(const auto where, current());
  wire::CreateReusableExecutionRequest create;
  create.set_session_id(where.first.id);
  create.set_prepared_model_id(where.second);
  NN_ASSIGN_OR_RETURN(*create.mutable_request(), wire::toWire(request, encode));
  wire::CreateReusableExecutionResponse created;
  {
    auto context = connection_->controlContext();
    const grpc::Status status = connection_->stub()->CreateReusableExecution(context.get(), create, &created);
    if (!status.ok()) return connection_->callFailed(status, where.first.generation);
  }
  wire::ReleaseReusableExecutionRequest release;
  release.set_session_id(where.first.id);
  release.set_reusable_execution_id(created.reusable_execution_id());
  wire::Empty empty;
  auto context = connection_->controlContext();
  (void)connection_->stub()->ReleaseReusableExecution(context.get(), release, &empty);
  return {};
}

hal::Result<std::pair<hal::SyncFence, hal::ExecuteFencedInfoCallback>> ProxyPreparedModel::executeFenced(
    const hal::Request& request, const std::vector<hal::SyncFence>& waitFor, hal::MeasureTiming measure,
    const hal::OptionalTimePoint& deadline, const hal::OptionalDuration& loopTimeoutDuration,
    const hal::OptionalDuration& timeoutDurationAfterFence) const {
  NN_VLOG(FENCE) << "executeFenced after " << waitFor.size() << " fences";
  PoolTransport& pools = connection_->pools();
  auto encode = [&pools](const hal::SharedMemory& memory, bool withContents) {
    return pools.encode(memory, withContents);
  };
  for (size_t i = 0; i < waitFor.size(); ++i) {
    if (waitFor[i].state() == hal::SyncFence::State::ERROR) {
      return makeError(ErrorStatus::GENERAL_FAILURE) << "waitFor[" << i << "] signaled an error";
    }
  }
  NN_ASSIGN_OR_RETURN(auto where, current());
  wire::ExecuteFencedRequest call;
  NN_ASSIGN_OR_RETURN(*call.mutable_request(), wire::toWire(request, encode));
  const bool waits = std::any_of(waitFor.begin(), waitFor.end(), [](const hal::SyncFence& fence) {
    return fence.state() != hal::SyncFence::State::SIGNALED;
  });
  if (waits && !inputsStayOnServer(request, call.request())) {
    return hal::executeFencedBySyncExecution(*this, request, waitFor, measure, deadline,
                                             loopTimeoutDuration, timeoutDurationAfterFence);
  }
  // Signaled once ExecuteFenced has been answered (or given up), on every path out of here.
  const hal::SyncFence named = hal::SyncFence::create();
  struct SignalOnExit {
    const hal::SyncFence& fence;
    ~SignalOnExit() { fence.signal(); }
  } signalNamed{named};
  setExecutionArguments(&call, measure, deadline, loopTimeoutDuration);
  if (timeoutDurationAfterFence) {
    call.mutable_timeout_duration_after_fence()->set_nanoseconds(
        std::min(*timeoutDurationAfterFence, hal::kLongestDuration).count());
  }
  // Made again in a new session if the server had forgotten this one (nothing ran): the model,
  // the request's pools and the fences to wait for are then named in the new session.
  SessionRef session;
  NN_ASSIGN_OR_RETURN(
      const wire::ExecuteFencedResponse response,
      connection_->inSessionRetryingOnce<wire::ExecuteFencedResponse>(
          [&](SessionRef, bool* neverRan) -> hal::Result<wire::ExecuteFencedResponse> {
            NN_ASSIGN_OR_RETURN(const auto current, this->current());
            if (current.first.generation != where.first.generation) {
              where = current;
              NN_ASSIGN_OR_RETURN(*call.mutable_request(), wire::toWire(request, encode));
            }
            session = where.first;
            call.set_session_id(session.id);
            call.set_prepared_model_id(where.second);
            call.clear_wait_for_fence_ids();
            for (const hal::SyncFence& fence : waitFor) {
              if (auto id = fence.remoteId(connection_->fenceOwner(session.generation))) {
                call.add_wait_for_fence_ids(*id);  // already on the server: no round trip
              } else if (fence.state() != hal::SyncFence::State::SIGNALED) {
                NN_ASSIGN_OR_RETURN(const uint64_t id, mirrorLocalFence(connection_, session, fence, named));
                call.add_wait_for_fence_ids(id);
              }
            }
            call.clear_release_fence_ids();
            for (uint64_t id : connection_->takeFenceReleases(session.id)) call.add_release_fence_ids(id);
            wire::ExecuteFencedResponse answer;
            auto context = connection_->controlContext();
            const grpc::Status status = connection_->stub()->ExecuteFenced(context.get(), call, &answer);
            if (!status.ok()) return connection_->callFailed(status, session.generation, neverRan);
            return answer;
          }));

  const hal::SyncFence done = hal::SyncFence::create();
  done.setRemote(connection_->fenceOwner(session.generation), response.sync_fence_id(),
                 [weakConnection = std::weak_ptr<Connection>(connection_), sessionId = session.id,
                  fenceId = response.sync_fence_id()] {
                   if (auto connection = weakConnection.lock()) connection->releaseFenceLater(sessionId, fenceId);
                 });
  auto result = std::make_shared<FencedResult>();
  // Collects the results when the execution finishes, copies the outputs that travel by value
  // into the caller's memory, and only then signals the fence the caller waits on.
  std::thread([connection = connection_, session, request, done, result, executionId = response.execution_id(),
               deadline, limit = connection_->executionCallLimit(deadline)] {
    wire::GetExecuteFencedInfoRequest infoRequest;
    infoRequest.set_session_id(session.id);
    infoRequest.set_execution_id(executionId);
    wire::GetExecuteFencedInfoResponse info;
    grpc::ClientContext context;
    if (limit) context.set_deadline(*limit);
    const grpc::Status status = connection->waitsStub()->GetExecuteFencedInfo(&context, infoRequest, &info);
    hal::Result<hal::ExecutionOutcome> outcome =
        status.ok() ? outcomeFromWire(info.outcome(), request, connection->pools())
                    : hal::Result<hal::ExecutionOutcome>(
                          connection->executionCallError(status, deadline, session.generation));
    {
      std::lock_guard<std::mutex> lock(result->mutex);
      if (outcome.ok()) {
        result->timings = std::make_pair(outcome->timing, wire::fromWire(info.outcome().timing_fenced()));
      } else {
        result->timings = outcome.error();
      }
    }
    done.signal(/*error=*/!outcome.ok());
  }).detach();

  hal::ExecuteFencedInfoCallback callback = [done, result]() -> hal::Result<std::pair<hal::Timing, hal::Timing>> {
    done.wait(std::nullopt);
    std::lock_guard<std::mutex> lock(result->mutex);
    return result->timings;
  };
  return std::make_pair(done, std::move(callback));
}

}  // namespace nnremote::proxy
