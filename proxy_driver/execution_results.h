// Turning the server's answer to an execution back into HAL results, shared by synchronous
// executions and bursts.
#ifndef NNREMOTE_PROXY_DRIVER_EXECUTION_RESULTS_H_
#define NNREMOTE_PROXY_DRIVER_EXECUTION_RESULTS_H_

#include <google/protobuf/map.h>
#include <google/protobuf/repeated_field.h>

#include <string>

#include "hal/i_execution.h"
#include "proto/conversions.h"
#include "proto/nnremote.pb.h"
#include "proxy_driver/pool_transport.h"

namespace nnremote::proxy {

// Copies the outputs that travelled back (inline bytes or bulk downloads) into the request's
// memories; outputs in registered shared memory are already there.
hal::Status copyOutputsBack(const hal::Request& request,
                            const google::protobuf::RepeatedPtrField<std::string>& outputData,
                            const google::protobuf::Map<uint32_t, uint64_t>& bulkTransferIds,
                            PoolTransport& pools);

// Sets measure, deadline and loop timeout on an ExecuteRequest or a BurstRequest::Execute.
template <typename Message>
void setExecutionArguments(Message* message, hal::MeasureTiming measure,
                           const hal::OptionalTimePoint& deadline,
                           const hal::OptionalDuration& loopTimeoutDuration) {
  message->set_measure(measure == hal::MeasureTiming::YES ? wire::MEASURE_TIMING_YES
                                                          : wire::MEASURE_TIMING_NO);
  bool hasDeadline = false;
  wire_conv::toWire(deadline, message->mutable_deadline(), &hasDeadline);
  if (!hasDeadline) message->clear_deadline();
  if (loopTimeoutDuration.has_value()) {
    message->mutable_loop_timeout_duration()->set_nanoseconds(loopTimeoutDuration->count());
  }
}

hal::ExecutionOutcome outcomeFromWire(
    const google::protobuf::RepeatedPtrField<wire::OutputShape>& shapes, const wire::Timing& timing,
    const wire::ExecutionProfile* profile);

}  // namespace nnremote::proxy

#endif  // NNREMOTE_PROXY_DRIVER_EXECUTION_RESULTS_H_
