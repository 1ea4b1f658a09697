#include "emulator/execution_rpcs.h"

#include <cstring>

#include "emulator/execution_requests.h"
#include "emulator/fence_waits.h"
#include "hal/execution_adapters.h"
#include "hal/vlog.h"
#include "wire/conversions.h"

namespace nnremote::emulator {

using hal::ErrorStatus;
using hal::makeError;

void ExecutionRpcs::addTo(RpcTable& table) {
  // Inline when it was quick last time and no other execution runs inline; else on the pool.
  table.add("Execute", Runs::kAsExecution, this, &ExecutionRpcs::execute,
            +[](const wire::ExecuteRequest& request) -> QuickExecutions::Key {
              return {request.session_id(), request.prepared_model_id()};
            });
  table.add("ComputeReusableExecution", Runs::kAsExecution, this, &ExecutionRpcs::computeReusableExecution,
            +[](const wire::ComputeReusableExecutionRequest& request) -> QuickExecutions::Key {
              return {request.session_id(), request.reusable_execution_id()};
            });
  // Answered at once: the execution runs on the pool, and the client waits elsewhere.
  table.add("StartExecution", Runs::kNow, this, &ExecutionRpcs::startExecution, kHoldsKeptExecution);
  table.add("ExecuteFenced", Runs::kNow, this, &ExecutionRpcs::executeFenced);
  // On the pool: they reach a device.
  table.add("CreateReusableExecution", Runs::kOnPool, this, &ExecutionRpcs::createReusableExecution,
            kHoldsKeptExecution);
  table.add("ReleaseReusableExecution", Runs::kOnPool, this, &ExecutionRpcs::releaseReusableExecution);
}

hal::Result<wire::ExecuteResponse> ExecutionRpcs::execute(Session& session, const wire::ExecuteRequest& request) {
  NN_ASSIGN_OR_RETURN(ValidatedExecution v, validateExecution(session, request));
  auto outcome = v.entry.preparedModel->execute(v.request, v.measure, v.deadline, v.loopTimeout);
  return respond(session, request.request(), v.request, *v.entry.model, outcome);
}

hal::Result<wire::StartExecutionResponse> ExecutionRpcs::startExecution(Session& session,
                                                                        const wire::ExecuteRequest& request) {
  NN_ASSIGN_OR_RETURN(ValidatedExecution v, validateExecution(session, request));
  auto started = std::make_shared<StartedExecution>();
  started->wireRequest = request.request();
  started->request = v.request;
  started->model = v.entry.model;
  // The execution runs on a pool thread; AwaitExecution waits for `done` without one.
  pool_.submit([started, preparedModel = v.entry.preparedModel, measure = v.measure, deadline = v.deadline,
                loopTimeout = v.loopTimeout,
                inFlight = std::make_shared<std::optional<QuotaSlot>>(std::move(v.inFlight))]() {
    auto outcome = preparedModel->execute(started->request, measure, deadline, loopTimeout);
    inFlight->reset();
    {
      std::lock_guard<std::mutex> lock(started->mutex);
      started->outcome = std::move(outcome);
    }
    started->done.signal();
  });
  wire::StartExecutionResponse response;
  response.set_execution_id(session.startedExecutions.add(std::move(started)));
  return response;
}

hal::Result<wire::CreateReusableExecutionResponse> ExecutionRpcs::createReusableExecution(
    Session& session, const wire::CreateReusableExecutionRequest& request) {
  NN_ASSIGN_OR_RETURN(ValidatedExecution v, validateExecution(session, request));
  NN_ASSIGN_OR_RETURN(hal::SharedExecution execution,
                      v.entry.preparedModel->createReusableExecution(v.request, v.measure, v.loopTimeout));
  auto reusable = std::make_shared<ReusableExecution>();
  reusable->execution = std::move(execution);
  reusable->wireRequest = request.request();
  reusable->request = v.request;
  reusable->model = v.entry.model;
  wire::CreateReusableExecutionResponse response;
  response.set_reusable_execution_id(session.reusableExecutions.add(std::move(reusable)));
  return response;
}

hal::Result<wire::ExecuteResponse> ExecutionRpcs::computeReusableExecution(
    Session& session, const wire::ComputeReusableExecutionRequest& request) {
  NN_ASSIGN_OR_RETURN(std::shared_ptr<ReusableExecution> reusable,
                      session.reusableExecutions.find(request.reusable_execution_id()));
  ReusableExecution& r = *reusable;
  NN_RETURN_IF_ERROR(checkWireDuration(request.deadline().nanoseconds_from_now(), "deadline.nanoseconds_from_now"));
  NN_ASSIGN_OR_RETURN(QuotaSlot inFlight, enterExecution(session));
  std::lock_guard<std::mutex> lock(r.mutex);
  // New contents for inline pools, written into the memory the execution reads.
  for (const auto& [pool, bytes] : request.updated_pools()) {
    if (pool >= static_cast<uint32_t>(r.wireRequest.pools_size()) ||
        r.wireRequest.pools(pool).memory().kind_case() != wire::Memory::kInlineData) {
      return hal::invalidArgument() << "updated_pools names request.pools[" << pool << "], which is not an inline pool";
    }
    const auto& memory = std::get<hal::SharedMemory>(r.request.pools[pool]);
    if (bytes.size() != memory->size()) {
      return hal::invalidArgument() << "updated_pools[" << pool << "] has " << bytes.size() << " bytes for a pool of "
                                    << memory->size();
    }
    std::memcpy(memory->data(), bytes.data(), bytes.size());
  }
  const auto outcome = r.execution->compute(wire::deadlineFromWire(request.deadline(), request.has_deadline()));
  return respond(session, r.wireRequest, r.request, *r.model, outcome);
}

hal::Result<wire::Empty> ExecutionRpcs::releaseReusableExecution(Session& session,
                                                                 const wire::ReleaseReusableExecutionRequest& request) {
  NN_RETURN_IF_ERROR(session.reusableExecutions.erase(request.reusable_execution_id()));
  return wire::Empty();
}

hal::Result<wire::ExecuteFencedResponse> ExecutionRpcs::executeFenced(Session& session,
                                                                      const wire::ExecuteFencedRequest& request) {
  // Fences the client let go of are forgotten first, so a client that keeps executing never
  // reaches the fence quota with fences nobody can name any more.
  for (uint64_t id : request.release_fence_ids()) session.releaseFence(id);
  NN_ASSIGN_OR_RETURN(ValidatedExecution v, validateExecution(session, request));
  std::vector<std::pair<uint64_t, hal::SyncFence>> waitFor;
  for (int i = 0; i < request.wait_for_fence_ids_size(); ++i) {
    auto fence = session.fences.find(request.wait_for_fence_ids(i));
    if (!fence.ok()) return hal::withContext(fence.error(), "wait_for_fence_ids[" + std::to_string(i) + "]");
    waitFor.emplace_back(request.wait_for_fence_ids(i), fence->fence);
  }
  const hal::OptionalTimePoint deadline = v.deadline;
  hal::OptionalDuration afterFence;
  NN_RETURN_IF_ERROR(
      checkWireDuration(request.timeout_duration_after_fence().nanoseconds(), "timeout_duration_after_fence"));
  if (request.has_timeout_duration_after_fence()) {
    afterFence = hal::Duration(request.timeout_duration_after_fence().nanoseconds());
  }
  // The fence quota after the releases above, so not by the scaffold.
  NN_RETURN_IF_ERROR(checkHolds(session, kHoldsFence));
  NN_RETURN_IF_ERROR(checkHolds(session, kHoldsKeptExecution));
  auto execution = std::make_shared<FencedExecution>();
  wire::ExecuteFencedResponse response;
  response.set_sync_fence_id(session.fences.add({execution->done, /*clientSignals=*/false}));
  response.set_execution_id(session.fencedExecutions.add(execution));
  NN_VLOG(FENCE) << "session " << session.id() << " fenced execution " << response.execution_id() << " waits for "
                 << waitFor.size() << " fences, signals fence " << response.sync_fence_id();
  // The call returns at once, so chains of fenced executions proceed on the server without the
  // client. Nothing waits on a thread: the last fence to signal (or the deadline's timer) hands
  // the execution to the pool. The session is held weakly until then: its fences end in error
  // when it goes (~Session), which ends the wait.
  const auto called = hal::Clock::now();
  std::weak_ptr<Session> weakSession = session.weak_from_this();
  auto launch = [this, weakSession, entry = v.entry, halRequest = std::move(v.request),
                 wireRequest = request.request(), execution, deadline, loopTimeout = v.loopTimeout, afterFence,
                 measure = v.measure, inFlight = std::make_shared<std::optional<QuotaSlot>>(std::move(v.inFlight)),
                 called](hal::Status fencesSignaled) mutable {
    // Ends the execution with `status`; a success's outcome is already described.
    auto finish = [execution, inFlight](hal::Status status) {
      NN_VLOG(FENCE) << "fenced execution done: "
                     << (status.ok() ? std::string("NO_ERROR") : hal::toString(status.error().code));
      inFlight->reset();
      if (!status.ok()) {
        std::lock_guard<std::mutex> lock(execution->mutex);
        *execution->outcome.mutable_error() = wire::toWire(status.error());
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
      // As HAL 1.3: timingFenced counts from the fences' signaling (the execution's own timing),
      // timingLaunched from the call, so its time in the driver also counts the wait for them.
      hal::Timing fenced;
      if (outcome.ok()) {
        fenced = outcome->timing;
        if (outcome->timing.timeInDriver) {
          *outcome->timing.timeInDriver += std::chrono::duration_cast<hal::Duration>(launched - called);
        }
      }
      hal::Status described;
      {
        std::lock_guard<std::mutex> lock(execution->mutex);
        described = describeOutcome(*session, wireRequest, halRequest, *entry.model, outcome, &execution->outcome);
        if (described.ok()) *execution->outcome.mutable_timing_fenced() = wire::toWire(fenced);
      }
      finish(described);
    });
  };
  awaitAllFences(std::move(waitFor), deadline, timers_, std::move(launch));
  return response;
}
}  // namespace nnremote::emulator
