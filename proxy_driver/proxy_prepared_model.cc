#include "proxy_driver/proxy_prepared_model.h"

#include <cstring>

#include "proto/conversions.h"
#include "proto/grpc_status.h"

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
  call.set_measure(measure == hal::MeasureTiming::YES ? wire::MEASURE_TIMING_YES
                                                      : wire::MEASURE_TIMING_NO);
  bool hasDeadline = false;
  wire_conv::toWire(deadline, call.mutable_deadline(), &hasDeadline);
  if (!hasDeadline) call.clear_deadline();
  if (loopTimeoutDuration.has_value()) {
    call.mutable_loop_timeout_duration()->set_nanoseconds(loopTimeoutDuration->count());
  }

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

  // Copy the outputs that travelled back into the caller's memory (outputs in registered
  // shared memory are already there).
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    const auto& location = request.outputs[i].location;
    const auto* memory = std::get_if<hal::SharedMemory>(&request.pools[location.poolIndex]);
    const auto bulk = response.output_bulk_transfer_ids().find(static_cast<uint32_t>(i));
    if (bulk != response.output_bulk_transfer_ids().end() && memory != nullptr) {
      NN_RETURN_IF_ERROR(pools.download(bulk->second, (*memory)->data() + location.offset, location.length));
      continue;
    }
    if (i >= size_t(response.output_data_size())) continue;
    const std::string& data = response.output_data(static_cast<int>(i));
    if (data.empty()) continue;
    if (memory == nullptr || data.size() > location.length) {
      return makeError(ErrorStatus::GENERAL_FAILURE)
             << "the server returned " << data.size() << " bytes for output " << i
             << ", which has room for " << location.length;
    }
    std::memcpy((*memory)->data() + location.offset, data.data(), data.size());
  }
  hal::ExecutionOutcome outcome;
  for (const auto& shape : response.output_shapes()) {
    outcome.outputShapes.push_back(wire_conv::fromWire(shape));
  }
  outcome.timing = wire_conv::fromWire(response.timing());
  if (response.has_profile()) {
    outcome.profile = std::make_shared<const hal::ExecutionProfile>(wire_conv::fromWire(response.profile()));
  }
  return outcome;
}

}  // namespace nnremote::proxy
