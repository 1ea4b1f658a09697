// For tests that speak the wire protocol themselves rather than through the proxy driver.
#ifndef NNREMOTE_TESTS_COMMON_RAW_SESSION_H_
#define NNREMOTE_TESTS_COMMON_RAW_SESSION_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "hal/memory.h"
#include "wire/nnremote.grpc.pb.h"
#include "wire/wire_constants.h"

namespace nnremote::testing {

// Opens a session at this build's wire version; a refusal fails the test and gives id 0.
inline uint64_t openRawSession(wire::Accelerator::Stub& stub) {
  grpc::ClientContext context;
  wire::OpenSessionRequest request;
  request.set_client_version(wire::kWireVersion);
  wire::OpenSessionResponse response;
  const grpc::Status status = stub.OpenSession(&context, request, &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response.session_id();
}

// Prepares `model` on `device` in `session`; a refusal fails the test and gives id 0.
inline uint64_t prepareRaw(wire::Accelerator::Stub& stub, uint64_t session, const std::string& device,
                           const wire::Model& model) {
  grpc::ClientContext context;
  wire::PrepareModelRequest request;
  request.set_session_id(session);
  request.set_device_name(device);
  *request.mutable_model() = model;
  wire::PrepareModelResponse response;
  const grpc::Status status = stub.PrepareModel(&context, request, &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response.prepared_model_id();
}

// Registers shared `memory` by name for `session`; its id in *id (0 if refused).
inline grpc::Status registerRawMemory(wire::Accelerator::Stub& stub, uint64_t session, const hal::SharedMemory& memory,
                                      uint64_t* id) {
  grpc::ClientContext context;
  wire::RegisterMemoryRequest request;
  request.set_session_id(session);
  request.set_shm_name(memory->sharedName());
  request.set_size(memory->size());
  wire::RegisterMemoryResponse response;
  const grpc::Status status = stub.RegisterMemory(&context, request, &response);
  *id = response.memory_id();
  return status;
}

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTS_COMMON_RAW_SESSION_H_
