// HAL errors over gRPC: the gRPC status code says what kind of failure it is (so plain gRPC
// tools show something sensible), and the status details carry the exact wire::HalError.
#ifndef NNREMOTE_WIRE_GRPC_STATUS_H_
#define NNREMOTE_WIRE_GRPC_STATUS_H_

#include <grpcpp/grpcpp.h>

#include "hal/result.h"

namespace nnremote::wire {

grpc::Status toGrpcStatus(const hal::Error& error);
inline grpc::Status toGrpcStatus(const hal::Status& status) {
  return status.ok() ? grpc::Status::OK : toGrpcStatus(status.error());
}

inline grpc::Status toGrpcStatus(const hal::ErrorBuilder& error) {
  return toGrpcStatus(hal::Error(error));
}

// The HAL error a failed RPC carries. Without HAL details (the call never reached our server's
// handler), a transport failure is DEAD_OBJECT: the remote device is gone.
hal::Error fromGrpcStatus(const grpc::Status& status);

}  // namespace nnremote::wire

#endif  // NNREMOTE_WIRE_GRPC_STATUS_H_
