#include "emulator/accelerator_service.h"

#include <cstring>

#include "emulator/execution_requests.h"
#include "emulator/fence_waits.h"
#include "hal/execution_adapters.h"
#include "proto/conversions.h"
#include "proto/grpc_status.h"
#include "hal/vlog.h"

namespace nnremote::emulator {

using hal::ErrorStatus;
using hal::makeError;
using wire_conv::toGrpcStatus;

grpc::Status AcceleratorService::Execute(grpc::ServerContextBase* context, const wire::ExecuteRequest* request,
                                         wire::ExecuteResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto v = validateExecution(session, *request);
  if (!v.ok()) return toGrpcStatus(v.error());
  auto outcome = v->entry.preparedModel->execute(v->request, v->measure, v->deadline, v->loopTimeout);
  return respond(*v->session, request->request(), v->request, *v->entry.model, outcome, response);
}

grpc::Status AcceleratorService::StartExecution(grpc::ServerContextBase* context, const wire::ExecuteRequest* request,
                                                wire::StartExecutionResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto v = validateExecution(session, *request);
  if (!v.ok()) return toGrpcStatus(v.error());
  auto started = std::make_shared<StartedExecution>();
  started->wireRequest = request->request();
  started->request = v->request;
  started->model = v->entry.model;
  // The execution runs on a pool thread; AwaitExecution waits for `done` without one.
  pool_.submit([started, preparedModel = v->entry.preparedModel, measure = v->measure,
                deadline = v->deadline, loopTimeout = v->loopTimeout,
                inFlight = std::make_shared<std::optional<QuotaSlot>>(std::move(v->inFlight))]() {
    auto outcome = preparedModel->execute(started->request, measure, deadline, loopTimeout);
    inFlight->reset();
    {
      std::lock_guard<std::mutex> lock(started->mutex);
      started->outcome = std::move(outcome);
    }
    started->done.signal();
  });
  response->set_execution_id(session->startedExecutions.add(std::move(started)));
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::CreateReusableExecution(grpc::ServerContextBase* context,
                                                         const wire::CreateReusableExecutionRequest* request,
                                                         wire::CreateReusableExecutionResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto v = validateExecution(session, *request);
  if (!v.ok()) return toGrpcStatus(v.error());
  auto execution = v->entry.preparedModel->createReusableExecution(v->request, v->measure, v->loopTimeout);
  if (!execution.ok()) return toGrpcStatus(execution.error());
  auto reusable = std::make_shared<ReusableExecution>();
  reusable->execution = *execution;
  reusable->wireRequest = request->request();
  reusable->request = v->request;
  reusable->model = v->entry.model;
  response->set_reusable_execution_id(v->session->reusableExecutions.add(std::move(reusable)));
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::ComputeReusableExecution(grpc::ServerContextBase* context,
                                                          const wire::ComputeReusableExecutionRequest* request,
                                                          wire::ExecuteResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto reusable = session->reusableExecutions.find(request->reusable_execution_id());
  if (!reusable.ok()) return toGrpcStatus(reusable.error());
  ReusableExecution& r = **reusable;
  if (auto deadline = checkWireDuration(request->deadline().nanoseconds_from_now(), "deadline.nanoseconds_from_now");
      !deadline.ok()) {
    return toGrpcStatus(deadline.error());
  }
  auto inFlight = enterExecution(*session);
  if (!inFlight.ok()) return toGrpcStatus(inFlight.error());
  std::lock_guard<std::mutex> lock(r.mutex);
  // New contents for inline pools, written into the memory the execution reads.
  for (const auto& [pool, bytes] : request->updated_pools()) {
    if (pool >= static_cast<uint32_t>(r.wireRequest.pools_size()) ||
        r.wireRequest.pools(pool).memory().kind_case() != wire::Memory::kInlineData) {
      return toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT)
                          << "updated_pools names request.pools[" << pool << "], which is not an inline pool");
    }
    const auto& memory = std::get<hal::SharedMemory>(r.request.pools[pool]);
    if (bytes.size() != memory->size()) {
      return toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT)
                          << "updated_pools[" << pool << "] has " << bytes.size() << " bytes for a pool of "
                          << memory->size());
    }
    std::memcpy(memory->data(), bytes.data(), bytes.size());
  }
  const auto outcome =
      r.execution->compute(wire_conv::deadlineFromWire(request->deadline(), request->has_deadline()));
  return respond(*session, r.wireRequest, r.request, *r.model, outcome, response);
}

grpc::Status AcceleratorService::ReleaseReusableExecution(grpc::ServerContextBase* context,
                                                          const wire::ReleaseReusableExecutionRequest* request,
                                                          wire::Empty*) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  return toGrpcStatus(session->reusableExecutions.erase(request->reusable_execution_id()));
}

grpc::Status AcceleratorService::ExecuteFenced(grpc::ServerContextBase* context, const wire::ExecuteFencedRequest* request,
                                               wire::ExecuteFencedResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  // Fences the client let go of are forgotten first, so a client that keeps executing never
  // reaches the fence quota with fences nobody can name any more.
  for (uint64_t id : request->release_fence_ids()) (void)session->fences.erase(id);
  auto v = validateExecution(session, *request);
  if (!v.ok()) return toGrpcStatus(v.error());
  std::vector<std::pair<uint64_t, hal::SyncFence>> waitFor;
  for (int i = 0; i < request->wait_for_fence_ids_size(); ++i) {
    auto fence = session->fences.find(request->wait_for_fence_ids(i));
    if (!fence.ok()) {
      return toGrpcStatus(hal::withContext(fence.error(), "wait_for_fence_ids[" + std::to_string(i) + "]"));
    }
    waitFor.emplace_back(request->wait_for_fence_ids(i), *fence);
  }
  const hal::OptionalTimePoint deadline = v->deadline;
  hal::OptionalDuration afterFence;
  if (auto after = checkWireDuration(request->timeout_duration_after_fence().nanoseconds(),
                                     "timeout_duration_after_fence");
      !after.ok()) {
    return toGrpcStatus(after.error());
  }
  if (request->has_timeout_duration_after_fence()) {
    afterFence = hal::Duration(request->timeout_duration_after_fence().nanoseconds());
  }

  if (auto quota = checkHolding(session->fences.size(), session->limits().fences, "fences", "session_quotas.fences");
      !quota.ok()) {
    return toGrpcStatus(quota.error());
  }
  auto execution = std::make_shared<FencedExecution>();
  response->set_sync_fence_id(session->fences.add(execution->done));
  response->set_execution_id(session->fencedExecutions.add(execution));
  NN_VLOG(FENCE) << "session " << session->id() << " fenced execution " << response->execution_id() << " waits for "
                 << waitFor.size() << " fences, signals fence " << response->sync_fence_id();
  // The call returns at once, so chains of fenced executions proceed on the server without the
  // client. Nothing waits on a thread: the last fence to signal (or the deadline's timer) hands
  // the execution to the pool. The session is held weakly until then: its fences end in error
  // when it goes (~Session), which ends the wait.
  const auto called = hal::Clock::now();
  std::weak_ptr<Session> weakSession = session;
  auto launch = [this, weakSession, entry = v->entry, halRequest = std::move(v->request),
                 wireRequest = request->request(), execution, deadline, loopTimeout = v->loopTimeout, afterFence,
                 measure = v->measure, inFlight = std::make_shared<std::optional<QuotaSlot>>(std::move(v->inFlight)),
                 called](hal::Status fencesSignaled) mutable {
    // Ends the execution with `status`; a success's outcome is already described.
    auto finish = [execution, inFlight](hal::Status status) {
      NN_VLOG(FENCE) << "fenced execution done: "
                     << (status.ok() ? std::string("NO_ERROR") : hal::toString(status.error().code));
      inFlight->reset();
      if (!status.ok()) {
        std::lock_guard<std::mutex> lock(execution->mutex);
        *execution->outcome.mutable_error() = wire_conv::toWire(status.error());
      }
      execution->done.signal(/*error=*/!status.ok());
    };
    std::shared_ptr<Session> session = weakSession.lock();
    if (session == nullptr) return finish(makeError(ErrorStatus::DEAD_OBJECT) << "the session ended");
    if (!fencesSignaled.ok()) return finish(fencesSignaled);
    pool_.submit([session = std::move(session), entry = std::move(entry), halRequest = std::move(halRequest),
                  wireRequest = std::move(wireRequest), execution, deadline, loopTimeout, afterFence, measure,
                  called, finish = std::move(finish)]() {
      const auto launched = hal::Clock::now();
      hal::OptionalTimePoint executionDeadline = deadline;
      if (afterFence && (!executionDeadline || launched + *afterFence < *executionDeadline)) {
        executionDeadline = launched + *afterFence;
      }
      auto outcome = entry.preparedModel->execute(halRequest, measure, executionDeadline, loopTimeout);
      if (!outcome.ok()) return finish(outcome.error());
      // The fenced timing also counts the wait for the fences, in the driver's time.
      hal::Timing fenced = outcome->timing;
      if (fenced.timeInDriver) *fenced.timeInDriver += std::chrono::duration_cast<hal::Duration>(launched - called);
      {
        std::lock_guard<std::mutex> lock(execution->mutex);
        describeOutcome(*session, wireRequest, halRequest, *entry.model, outcome, &execution->outcome);
        *execution->outcome.mutable_timing_fenced() = wire_conv::toWire(fenced);
      }
      finish({});
    });
  };
  awaitAllFences(std::move(waitFor), deadline, timers_, std::move(launch));
  return grpc::Status::OK;
}
}  // namespace nnremote::emulator
