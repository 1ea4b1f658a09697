// A model prepared on a remote device. Releasing the last reference releases it on the server.
#ifndef NNREMOTE_DRIVERS_PROXY_PROXY_PREPARED_MODEL_H_
#define NNREMOTE_DRIVERS_PROXY_PROXY_PREPARED_MODEL_H_

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "hal/execution_adapters.h"
#include "drivers/proxy/connection.h"
#include "drivers/proxy/served_model.h"

namespace nnremote::proxy {

// execute() is one Execute RPC; a burst is one bidirectional stream (ProxyBurst); reusable
// executions are built on execute() (hal::SyncExecutionPreparedModel).
//
// executeFenced() runs on the server: fences this connection returned earlier are passed by id,
// so a chain of fenced executions proceeds on the server with no client round trip; a local fence
// becomes a server fence that this process signals when the local one fires. Chaining needs the
// data to stay on the server too, so a request with input pools sent by value (not registered
// shared memory) that waits on unsignaled fences is executed after waiting here instead.
//
// After the connection recovers a lost session, the model is prepared again in the new one the
// first time it is used: from the copy of the hal::Model it keeps, or from the cache bytes it was
// prepared from (docs/security.md#recovery).
class ProxyPreparedModel final : public hal::SyncExecutionPreparedModel, public ServedModel {
 public:
  // What a model was prepared from: enough to prepare it again.
  struct Preparation {
    std::string deviceName;
    hal::Model model;
    hal::ExecutionPreference preference = hal::ExecutionPreference::FAST_SINGLE_ANSWER;
    hal::Priority priority = hal::Priority::MEDIUM;
  };

  // Prepares the model again in a new session; its id there.
  using Reprepare = std::function<hal::Result<uint64_t>(Connection& connection, SessionRef session)>;

  // Prepares `preparation` on the server, in the connection's current session. With cache
  // handles, writes what the device saved into them.
  static hal::Result<std::shared_ptr<ProxyPreparedModel>> prepare(
      std::shared_ptr<Connection> connection, Preparation preparation, const hal::OptionalTimePoint& deadline,
      const std::vector<hal::CacheFile>& modelCache, const std::vector<hal::CacheFile>& dataCache,
      const hal::CacheToken& token);
  // Prepares from the client's cache files on device `deviceName` (cache_transfer.h).
  static hal::Result<std::shared_ptr<ProxyPreparedModel>> prepareFromCache(
      std::shared_ptr<Connection> connection, const std::string& deviceName, const hal::OptionalTimePoint& deadline,
      const std::vector<hal::CacheFile>& modelCache, const std::vector<hal::CacheFile>& dataCache,
      const hal::CacheToken& token);
  // A model the server prepared with `preparedModelId` in `session`; without `reprepare` it
  // cannot outlive that session.
  ProxyPreparedModel(std::shared_ptr<Connection> connection, SessionRef session, uint64_t preparedModelId,
                     Reprepare reprepare);
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

  hal::Result<std::pair<SessionRef, uint64_t>> current() const override;
  const Connection* connection() const { return connection_.get(); }

 protected:
  // The server keeps the model, so it checks the request, once, when a reusable execution is
  // created (a reusable execution created and released there at once).
  hal::Status validateReusableRequest(const hal::Request& request) const override;

 private:
  std::shared_ptr<Connection> connection_;
  const Reprepare reprepare_;
  mutable std::mutex mutex_;
  mutable SessionRef session_;        // where preparedModelId_ is valid; guarded by mutex_
  mutable uint64_t preparedModelId_;  // guarded by mutex_
};

}  // namespace nnremote::proxy

#endif  // NNREMOTE_DRIVERS_PROXY_PROXY_PREPARED_MODEL_H_
