#include "proxy_driver/proxy_prepared_model.h"


#include "proto/conversions.h"
#include "proto/grpc_status.h"
#include "proxy_driver/execution_results.h"
#include "proxy_driver/proxy_burst.h"

namespace nnremote::proxy {

using hal::ErrorStatus;
using hal::makeError;

ProxyPreparedModel::ProxyPreparedModel(std::shared_ptr<Connection> connection,
                                       uint64_t preparedModelId)
    : connection_(std::move(connection)), preparedModelId_(preparedModelId) {}

ProxyPreparedModel::~ProxyPreparedModel() {
  wire::ReleasePreparedModelRequest request;
  request.set_session_id(connection_->sessionId());
  request.set_prepared_model_id(preparedModelId_);
  wire::Empty empty;
  auto context = connection_->controlContext();
  // Best effort: if the server is gone, so is the prepared model.
  (void)connection_->stub().ReleasePreparedModel(context.get(), request, &empty);
}

hal::Result<hal::ExecutionOutcome> ProxyPreparedModel::execute(
    const hal::Request& request, hal::MeasureTiming measure, const hal::OptionalTimePoint& deadline,
    const hal::OptionalDuration& loopTimeoutDuration) const {
  wire::ExecuteRequest call;
  call.set_session_id(connection_->sessionId());
  call.set_prepared_model_id(preparedModelId_);
  PoolTransport& pools = connection_->pools();
  auto encode = [&pools](const hal::SharedMemory& memory, bool withContents) {
    return pools.encode(memory, withContents);
  };
  NN_ASSIGN_OR_RETURN(*call.mutable_request(), wire_conv::toWire(request, encode));
  setExecutionArguments(&call, measure, deadline, loopTimeoutDuration);

  grpc::ClientContext context;
  if (deadline.has_value()) {
    // Leave the server time to report MISSED_DEADLINE itself before the RPC is cut off.
    const auto remaining = *deadline - hal::Clock::now();
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::duration_cast<std::chrono::system_clock::duration>(remaining) +
                         std::chrono::seconds(1));
  }
  wire::ExecuteResponse response;
  const grpc::Status status = connection_->stub().Execute(&context, call, &response);
  if (!status.ok()) return wire_conv::fromGrpcStatus(status);

  NN_RETURN_IF_ERROR(copyOutputsBack(request, response.output_data(),
                                     response.output_bulk_transfer_ids(), pools));
  return outcomeFromWire(response.output_shapes(), response.timing(),
                         response.has_profile() ? &response.profile() : nullptr);
}

hal::Result<hal::SharedBurst> ProxyPreparedModel::configureExecutionBurst() const {
  return ProxyBurst::open(connection_, preparedModelId_);
}

}  // namespace nnremote::proxy
