// A model prepared on a remote device. Releasing the last reference releases it on the server.
#ifndef NNREMOTE_PROXY_DRIVER_PROXY_PREPARED_MODEL_H_
#define NNREMOTE_PROXY_DRIVER_PROXY_PREPARED_MODEL_H_

#include <memory>

#include "hal/i_prepared_model.h"
#include "proxy_driver/connection.h"

namespace nnremote::proxy {

class ProxyPreparedModel final : public hal::IPreparedModel,
                                 public std::enable_shared_from_this<ProxyPreparedModel> {
 public:
  ProxyPreparedModel(std::shared_ptr<Connection> connection, uint64_t preparedModelId);
  ~ProxyPreparedModel() override;

  hal::Result<hal::ExecutionOutcome> execute(
      const hal::Request& request, hal::MeasureTiming measure,
      const hal::OptionalTimePoint& deadline,
      const hal::OptionalDuration& loopTimeoutDuration) const override;

  // Waits for the fences in this process, then executes remotely. (Fences that live on the
  // server, chained without a client round trip, come with the fenced-execution work.)
  hal::Result<std::pair<hal::SyncFence, hal::ExecuteFencedInfoCallback>> executeFenced(
      const hal::Request& request, const std::vector<hal::SyncFence>& waitFor,
      hal::MeasureTiming measure, const hal::OptionalTimePoint& deadline,
      const hal::OptionalDuration& loopTimeoutDuration,
      const hal::OptionalDuration& timeoutDurationAfterFence) const override;

  // Each compute is one Execute RPC.
  hal::Result<hal::SharedExecution> createReusableExecution(
      const hal::Request& request, hal::MeasureTiming measure,
      const hal::OptionalDuration& loopTimeoutDuration) const override;

  // Each burst execution is one Execute RPC (not yet a stream).
  hal::Result<hal::SharedBurst> configureExecutionBurst() const override;

  uint64_t id() const { return preparedModelId_; }

 private:
  std::shared_ptr<Connection> connection_;
  uint64_t preparedModelId_;
};

}  // namespace nnremote::proxy

#endif  // NNREMOTE_PROXY_DRIVER_PROXY_PREPARED_MODEL_H_
