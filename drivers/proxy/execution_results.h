// Turning the server's answer to an execution back into HAL results, shared by every executor.
#ifndef NNREMOTE_DRIVERS_PROXY_EXECUTION_RESULTS_H_
#define NNREMOTE_DRIVERS_PROXY_EXECUTION_RESULTS_H_

#include "hal/i_execution.h"
#include "wire/conversions.h"
#include "wire/nnremote.pb.h"
#include "drivers/proxy/pool_transport.h"

namespace nnremote::proxy {

// Sets measure, deadline and loop timeout on an ExecuteRequest or a BurstRequest::Execute.
template <typename Message>
void setExecutionArguments(Message* message, hal::MeasureTiming measure,
                           const hal::OptionalTimePoint& deadline,
                           const hal::OptionalDuration& loopTimeoutDuration) {
  message->set_measure(measure == hal::MeasureTiming::YES ? wire::MEASURE_TIMING_YES
                                                          : wire::MEASURE_TIMING_NO);
  bool hasDeadline = false;
  wire::toWire(deadline, message->mutable_deadline(), &hasDeadline);
  if (!hasDeadline) message->clear_deadline();
  if (loopTimeoutDuration.has_value()) {
    message->mutable_loop_timeout_duration()->set_nanoseconds(loopTimeoutDuration->count());
  }
}

// The one reading of an execution's outcome (sync, fenced, burst): the error it carries, or the
// outcome once the outputs that travelled back (inline bytes or bulk downloads) are copied into
// the request's memories; outputs in registered shared memory are already there. A fenced
// execution's second timing (timing_fenced) is the caller's to read.
hal::Result<hal::ExecutionOutcome> outcomeFromWire(const wire::ExecutionOutcome& described,
                                                   const hal::Request& request, PoolTransport& pools);

}  // namespace nnremote::proxy

#endif  // NNREMOTE_DRIVERS_PROXY_EXECUTION_RESULTS_H_
