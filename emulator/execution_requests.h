// What every execution call shares, whichever RPC family serves it (sync and async execute,
// reusable, burst, fenced): resolving the request's memories against the session, validating it
// against the model the server kept, counting it in the session's quota, and describing its
// outcome for the client.
#ifndef NNREMOTE_EMULATOR_EXECUTION_REQUESTS_H_
#define NNREMOTE_EMULATOR_EXECUTION_REQUESTS_H_

#include <cstdint>
#include <memory>
#include <map>
#include <optional>
#include <type_traits>

#include <grpcpp/grpcpp.h>

#include "emulator/session_quotas.h"
#include "emulator/session_registry.h"
#include "hal/validation.h"
#include "wire/conversions.h"

namespace nnremote::emulator {

// Outputs up to this size travel inside the ExecuteResponse; larger ones as bulk downloads.
constexpr uint64_t kMaxInlineOutputBytes = uint64_t{4} << 20;

// Resolves the memories a model or request names: inline bytes, the session's registered shared
// memory, or one of its bulk uploads (used up by this call).
wire::MemoryResolver resolverFor(Session& session);

// Checked before resolving: the resolver holds pools one by one, so a request or model whose
// pools each fit the server's pool memory but together never could (with its uploads, which the
// session holds already) would be told to retry (TRANSIENT) by the budget its own pools filled.
// This refuses it as RESOURCE_EXHAUSTED_PERSISTENT instead.
hal::Status checkServerPoolsCouldFit(Session& session, const wire::Request& request);
hal::Status checkServerPoolsCouldFit(Session& session, const wire::Model& model);

// Replaces the memory-domain tokens of a request with the session's device buffers, so only
// buffers this session allocated can be used.
hal::Status resolveBuffers(Session& session, hal::Request* request);

// INVALID_ARGUMENT naming `field` for a wire duration too long for the host clock.
hal::Status checkWireDuration(uint64_t nanoseconds, const char* field);

// Counts an execution against its session's executions_in_flight while alive.
hal::Result<QuotaSlot> enterExecution(Session& session);

// What every execution RPC resolves and checks before a device sees anything.
struct ValidatedExecution {
  PreparedModelEntry entry;
  hal::Request request;
  hal::MeasureTiming measure = hal::MeasureTiming::NO;
  hal::OptionalTimePoint deadline;
  hal::OptionalDuration loopTimeout;
  std::optional<QuotaSlot> inFlight;  // held until the execution is done
  // The request as decoded when cached pools replaced some of its entries (they do not travel
  // back by value); otherwise empty and the call's own request applies.
  std::optional<wire::Request> patchedRequest;
  const wire::Request& wireRequest(const wire::Request& original) const {
    return patchedRequest ? *patchedRequest : original;
  }
};

// The parts of an execution call every executor has, whichever message carries them.
struct ExecutionCall {
  const wire::Request* request = nullptr;
  int measure = wire::MEASURE_TIMING_NO;
  const wire::Deadline* deadline = nullptr;                // null: the call has none
  const wire::OptionalDuration* loopTimeout = nullptr;     // null: the call has none
  // Pools the call has already resolved (a burst's cached memories), by request pool index; the
  // request's own entries for them are ignored.
  const std::map<uint32_t, hal::SharedMemory>* cachedPools = nullptr;
};

// The one request-validation path of every executor (sync, async, fenced, reusable, burst on its
// stream and on its shared queue), so they refuse the same things with the same messages, in the
// same order: durations, measure, the request (decoded, its buffers and cached pools resolved,
// validated against the model the server kept), then the session's in-flight quota.
hal::Result<ValidatedExecution> validateExecution(Session& session, PreparedModelEntry entry,
                                                  const ExecutionCall& call);

// ExecutionCall of an ExecuteRequest, ExecuteFencedRequest or CreateReusableExecutionRequest.
template <typename Call>
hal::Result<ValidatedExecution> validateExecution(Session& session, const Call& call) {
  NN_ASSIGN_OR_RETURN(PreparedModelEntry entry, session.preparedModels.find(call.prepared_model_id()));
  ExecutionCall parts;
  parts.request = &call.request();
  parts.measure = call.measure();
  if constexpr (!std::is_same_v<Call, wire::CreateReusableExecutionRequest>) {
    if (call.has_deadline()) parts.deadline = &call.deadline();
  }
  if (call.has_loop_timeout_duration()) parts.loopTimeout = &call.loop_timeout_duration();
  return validateExecution(session, std::move(entry), parts);
}

// An execution's outcome as every executor sends it: the error; or shapes, timing, profile and
// the outputs that travel by value (inline when small, else as pending downloads). An answer
// whose output shapes break the HAL's rules (hal::validateOutputShapes) is the device's
// GENERAL_FAILURE; one whose pools their owner shrank meanwhile (hal::checkNotTruncated) is
// INVALID_ARGUMENT. Returns the error it described, if any.
hal::Status describeOutcome(Session& session, const wire::Request& wireRequest, const hal::Request& request,
                            const hal::Model& model, const hal::Result<hal::ExecutionOutcome>& outcome,
                            wire::ExecutionOutcome* described);

// describeOutcome for a success; the error otherwise (a failed synchronous execution is a failed
// RPC).
hal::Result<wire::ExecuteResponse> respond(Session& session, const wire::Request& wireRequest, const hal::Request& request,
                                           const hal::Model& model, const hal::Result<hal::ExecutionOutcome>& outcome);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_EXECUTION_REQUESTS_H_
