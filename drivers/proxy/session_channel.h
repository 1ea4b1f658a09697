// What code that calls the server on a connection's behalf needs of the connection: the stub,
// the session to call in, and how a failed call becomes a HAL error. Connection is one.
// PoolTransport uses only this, so the connection can own its pool transport without the two
// depending on each other.
#ifndef NNREMOTE_DRIVERS_PROXY_SESSION_CHANNEL_H_
#define NNREMOTE_DRIVERS_PROXY_SESSION_CHANNEL_H_

#include <grpcpp/support/status.h>

#include <cstdint>
#include <functional>
#include <memory>

#include "hal/result.h"

// Declared, not included: grpcpp/grpcpp.h costs six times grpcpp/support/status.h to compile.
namespace grpc {
class ClientContext;
}  // namespace grpc

namespace nnremote::proxy {

class AcceleratorStub;  // drivers/proxy/stubs.h

// The session a call runs in: its id and generation (how many sessions came before it).
struct SessionRef {
  uint64_t id = 0;
  uint64_t generation = 0;
};

// Hands the server a shared-memory descriptor over a side channel and returns the token
// RegisterMemory's passed_descriptor names it by (ConnectionOptions::passDescriptor).
using DescriptorPasser = std::function<hal::Result<uint64_t>(int descriptor)>;

class SessionChannel {
 public:
  virtual ~SessionChannel() = default;

  virtual AcceleratorStub& stub() const = 0;
  // The session as it is now, lost or not; makes no call.
  virtual SessionRef currentSession() const = 0;
  // A context for a query/release call, with the control-call deadline.
  virtual std::unique_ptr<grpc::ClientContext> controlContext() const = 0;
  // The HAL error of a call in session generation `generation` that failed with `status`; a lost
  // session is noticed here. `neverRan` (if given) tells whether the server never ran it.
  virtual hal::Error callFailed(const grpc::Status& status, uint64_t generation, bool* neverRan = nullptr) = 0;
  // Null unless the server takes descriptors on a side channel.
  virtual const DescriptorPasser& descriptorPasser() const = 0;
};

}  // namespace nnremote::proxy

#endif  // NNREMOTE_DRIVERS_PROXY_SESSION_CHANNEL_H_
