// What every execution call shares, whichever RPC family serves it (sync and async execute,
// reusable, burst, fenced): resolving the request's memories against the session, validating it
// against the model the server kept, counting it in the session's quota, and describing its
// outcome for the client.
#ifndef NNREMOTE_EMULATOR_EXECUTION_REQUESTS_H_
#define NNREMOTE_EMULATOR_EXECUTION_REQUESTS_H_

#include <cstdint>
#include <memory>
#include <optional>

#include <grpcpp/grpcpp.h>

#include "emulator/session_quotas.h"
#include "emulator/session_registry.h"
#include "hal/validation.h"
#include "proto/conversions.h"

namespace nnremote::emulator {

// Outputs up to this size travel inside the ExecuteResponse; larger ones as bulk downloads.
constexpr uint64_t kMaxInlineOutputBytes = uint64_t{4} << 20;

// Resolves the memories a model or request names: inline bytes, the session's registered shared
// memory, or one of its bulk uploads (used up by this call).
wire_conv::MemoryResolver resolverFor(Session& session);

// Replaces the memory-domain tokens of a request with the session's device buffers, so only
// buffers this session allocated can be used.
hal::Status resolveBuffers(Session& session, hal::Request* request);

// INVALID_ARGUMENT naming `field` for a wire duration too long for the host clock.
hal::Status checkWireDuration(uint64_t nanoseconds, const char* field);

// Counts an execution against its session's executions_in_flight while alive.
hal::Result<QuotaSlot> enterExecution(Session& session);

// What every execution RPC resolves and checks before a device sees anything.
struct ValidatedExecution {
  std::shared_ptr<Session> session;
  PreparedModelEntry entry;
  hal::Request request;
  hal::MeasureTiming measure = hal::MeasureTiming::NO;
  hal::OptionalDuration loopTimeout;
  std::optional<QuotaSlot> inFlight;  // held until the execution is done
};

// An execution call with a deadline: the deadline is checked too.
template <typename Call>  // ExecuteRequest, ExecuteFencedRequest or CreateReusableExecutionRequest
hal::Result<ValidatedExecution> validateExecution(std::shared_ptr<Session> session, const Call& call) {
  ValidatedExecution v;
  v.session = std::move(session);
  NN_ASSIGN_OR_RETURN(v.entry, v.session->preparedModels.find(call.prepared_model_id()));
  NN_ASSIGN_OR_RETURN(v.request, wire_conv::fromWire(call.request(), resolverFor(*v.session)));
  NN_RETURN_IF_ERROR(resolveBuffers(*v.session, &v.request));
  NN_RETURN_IF_ERROR(hal::validateRequestForModel(v.request, *v.entry.model, /*allowPointers=*/false));
  const int measure = call.measure();
  if (measure != wire::MEASURE_TIMING_NO && measure != wire::MEASURE_TIMING_YES) {
    return hal::makeError(hal::ErrorStatus::INVALID_ARGUMENT) << "measure = " << measure << " is not a valid MeasureTiming";
  }
  v.measure = measure == wire::MEASURE_TIMING_YES ? hal::MeasureTiming::YES : hal::MeasureTiming::NO;
  NN_RETURN_IF_ERROR(checkWireDuration(call.loop_timeout_duration().nanoseconds(), "loop_timeout_duration"));
  if (call.has_loop_timeout_duration()) v.loopTimeout = hal::Duration(call.loop_timeout_duration().nanoseconds());
  NN_ASSIGN_OR_RETURN(QuotaSlot slot, enterExecution(*v.session));
  v.inFlight.emplace(std::move(slot));
  return v;
}

template <typename Call>
hal::Result<ValidatedExecution> validateTimedExecution(std::shared_ptr<Session> session, const Call& call) {
  NN_RETURN_IF_ERROR(checkWireDuration(call.deadline().nanoseconds_from_now(), "deadline.nanoseconds_from_now"));
  return validateExecution(std::move(session), call);
}

// Sends back what an execution wrote to each output whose pool travelled by value: inline when
// small, else as a pending download.
void collectOutputs(Session& session, const wire::Request& wireRequest, const hal::Request& request,
                    const hal::Model& model, const hal::ExecutionOutcome& outcome,
                    wire::ExecuteResponse* response);

// An execution's outcome as the client gets it: shapes, timing, profile, and the outputs that
// travel by value (inline when small, else as pending downloads).
void describeOutcome(Session& session, const wire::Request& wireRequest, const hal::Request& request,
                     const hal::Model& model, const hal::ExecutionOutcome& outcome, wire::ExecuteResponse* response);

// describeOutcome for a success; the error's gRPC status otherwise.
grpc::Status respond(Session& session, const wire::Request& wireRequest, const hal::Request& request,
                     const hal::Model& model, const hal::Result<hal::ExecutionOutcome>& outcome,
                     wire::ExecuteResponse* response);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_EXECUTION_REQUESTS_H_
