// A model prepared on a remote device. Releasing the last reference releases it on the server.
#ifndef NNREMOTE_PROXY_DRIVER_PROXY_PREPARED_MODEL_H_
#define NNREMOTE_PROXY_DRIVER_PROXY_PREPARED_MODEL_H_

#include <memory>

#include "hal/execution_adapters.h"
#include "proxy_driver/connection.h"

namespace nnremote::proxy {

// execute() is one Execute RPC; a burst is one bidirectional stream (ProxyBurst). Reusable and
// fenced executions are built on execute() in this process (hal::SyncExecutionPreparedModel):
// one RPC per execution, fences waited for here; fences chained on the server without a client
// round trip come with later work.
class ProxyPreparedModel final : public hal::SyncExecutionPreparedModel {
 public:
  ProxyPreparedModel(std::shared_ptr<Connection> connection, uint64_t preparedModelId);
  ~ProxyPreparedModel() override;

  hal::Result<hal::ExecutionOutcome> execute(
      const hal::Request& request, hal::MeasureTiming measure,
      const hal::OptionalTimePoint& deadline,
      const hal::OptionalDuration& loopTimeoutDuration) const override;

  hal::Result<hal::SharedBurst> configureExecutionBurst() const override;

  uint64_t id() const { return preparedModelId_; }

 private:
  std::shared_ptr<Connection> connection_;
  uint64_t preparedModelId_;
};

}  // namespace nnremote::proxy

#endif  // NNREMOTE_PROXY_DRIVER_PROXY_PREPARED_MODEL_H_
