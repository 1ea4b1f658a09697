// A model prepared on a remote device. Releasing the last reference releases it on the server.
#ifndef NNREMOTE_PROXY_DRIVER_PROXY_PREPARED_MODEL_H_
#define NNREMOTE_PROXY_DRIVER_PROXY_PREPARED_MODEL_H_

#include <memory>

#include "hal/execution_adapters.h"
#include "proxy_driver/connection.h"

namespace nnremote::proxy {

// execute() is one Execute RPC; a burst is one bidirectional stream (ProxyBurst); reusable
// executions are built on execute() (hal::SyncExecutionPreparedModel).
//
// executeFenced() runs on the server: fences this connection returned earlier are passed by id,
// so a chain of fenced executions proceeds on the server with no client round trip; a local fence
// becomes a server fence that this process signals when the local one fires. Chaining needs the
// data to stay on the server too, so a request with input pools sent by value (not registered
// shared memory) that waits on unsignaled fences is executed after waiting here instead.
class ProxyPreparedModel final : public hal::SyncExecutionPreparedModel {
 public:
  ProxyPreparedModel(std::shared_ptr<Connection> connection, uint64_t preparedModelId);
  ~ProxyPreparedModel() override;

  hal::Result<hal::ExecutionOutcome> execute(
      const hal::Request& request, hal::MeasureTiming measure,
      const hal::OptionalTimePoint& deadline,
      const hal::OptionalDuration& loopTimeoutDuration) const override;

  hal::Result<hal::SharedBurst> configureExecutionBurst() const override;

  hal::Result<std::pair<hal::SyncFence, hal::ExecuteFencedInfoCallback>> executeFenced(
      const hal::Request& request, const std::vector<hal::SyncFence>& waitFor,
      hal::MeasureTiming measure, const hal::OptionalTimePoint& deadline,
      const hal::OptionalDuration& loopTimeoutDuration,
      const hal::OptionalDuration& timeoutDurationAfterFence) const override;

  uint64_t id() const { return preparedModelId_; }
  const Connection* connection() const { return connection_.get(); }

 protected:
  // The server keeps the model, so it checks the request, once, when a reusable execution is
  // created (a reusable execution created and released there at once).
  hal::Status validateReusableRequest(const hal::Request& request) const override;

 private:
  std::shared_ptr<Connection> connection_;
  uint64_t preparedModelId_;
};

}  // namespace nnremote::proxy

#endif  // NNREMOTE_PROXY_DRIVER_PROXY_PREPARED_MODEL_H_
