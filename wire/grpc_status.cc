#include "wire/grpc_status.h"

#include "wire/conversions.h"

namespace nnremote::wire {
namespace {

grpc::StatusCode grpcCodeFor(hal::ErrorStatus status) {
  switch (status) {
    case hal::ErrorStatus::NONE: return grpc::StatusCode::OK;
    case hal::ErrorStatus::INVALID_ARGUMENT: return grpc::StatusCode::INVALID_ARGUMENT;
    case hal::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE: return grpc::StatusCode::OUT_OF_RANGE;
    case hal::ErrorStatus::MISSED_DEADLINE_TRANSIENT:
    case hal::ErrorStatus::MISSED_DEADLINE_PERSISTENT: return grpc::StatusCode::DEADLINE_EXCEEDED;
    case hal::ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT:
    case hal::ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT: return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case hal::ErrorStatus::DEVICE_UNAVAILABLE:
    case hal::ErrorStatus::DEAD_OBJECT: return grpc::StatusCode::UNAVAILABLE;
    case hal::ErrorStatus::GENERAL_FAILURE: break;
  }
  return grpc::StatusCode::INTERNAL;
}

}  // namespace

grpc::Status toGrpcStatus(const hal::Error& error) {
  const std::string message = std::string(hal::toString(error.code)) + ": " + error.message;
  return grpc::Status(grpcCodeFor(error.code), message, toWire(error).SerializeAsString());
}

hal::Error fromGrpcStatus(const grpc::Status& status) {
  wire::HalError details;
  if (!status.error_details().empty() && details.ParseFromString(status.error_details()) &&
      details.status() != wire::NONE) {
    return fromWire(details);
  }
  hal::Error error;
  error.message = "rpc failed: " + status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::CANCELLED:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::UNKNOWN:
      error.code = hal::ErrorStatus::DEAD_OBJECT;
      break;
    case grpc::StatusCode::INVALID_ARGUMENT:
      error.code = hal::ErrorStatus::INVALID_ARGUMENT;
      break;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      error.code = hal::ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT;
      break;
    default:
      error.code = hal::ErrorStatus::GENERAL_FAILURE;
  }
  return error;
}

}  // namespace nnremote::wire
