#include "emulator/isolated_backend.h"

#include <atomic>
#include <mutex>

#include "emulator/remote_devices.h"
#include "hal/forwarding_prepared_model.h"
#include "drivers/proxy/proxy_device.h"

namespace nnremote::emulator {

namespace {

// Runs sync executions through bursts of the inner prepared model. A burst runs one execution
// at a time, so idle ones are kept and another is opened when all are busy (as many as the
// device ever ran at once, which its scheduler bounds by its engines). Opening one costs a
// stream and a shared queue in the child, which pays off only for a model executed again and
// again, so the first execution goes as a plain call.
class BurstBackedPreparedModel final : public hal::ForwardingPreparedModel {
 public:
  using ForwardingPreparedModel::ForwardingPreparedModel;

  hal::Result<hal::ExecutionOutcome> execute(const hal::Request& request, hal::MeasureTiming measure,
                                             const hal::OptionalTimePoint& deadline,
                                             const hal::OptionalDuration& loopTimeoutDuration) const override {
    hal::SharedBurst burst;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!idle_.empty()) {
        burst = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    if (burst == nullptr && !executedBefore_.exchange(true)) {
      return inner()->execute(request, measure, deadline, loopTimeoutDuration);
    }
    if (burst == nullptr) {
      auto opened = inner()->configureExecutionBurst();
      if (!opened.ok()) return inner()->execute(request, measure, deadline, loopTimeoutDuration);
      burst = std::move(opened).value();
    }
    auto outcome = burst->execute(request, measure, deadline, loopTimeoutDuration);
    // A burst that met a dead child is not kept: the next execution opens a fresh one.
    if (outcome.ok() || outcome.error().code != hal::ErrorStatus::DEAD_OBJECT) {
      std::lock_guard<std::mutex> lock(mutex_);
      idle_.push_back(std::move(burst));
    }
    return outcome;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::vector<hal::SharedBurst> idle_;
  mutable std::atomic<bool> executedBefore_{false};
};

hal::Result<hal::SharedPreparedModel> burstBacked(hal::Result<hal::SharedPreparedModel> prepared) {
  if (!prepared.ok()) return prepared;
  return hal::SharedPreparedModel(std::make_shared<BurstBackedPreparedModel>(std::move(prepared).value()));
}

}  // namespace

IsolatedDevice::IsolatedDevice(hal::SharedDevice inner, std::shared_ptr<BackendProcess> process)
    : middleware::SupervisedDevice(std::move(inner)), process_(std::move(process)) {}

hal::Result<hal::SharedPreparedModel> IsolatedDevice::prepareModel(
    const hal::Model& model, hal::ExecutionPreference preference, hal::Priority priority,
    const hal::OptionalTimePoint& deadline, const std::vector<hal::CacheFile>& modelCache,
    const std::vector<hal::CacheFile>& dataCache, const hal::CacheToken& token) const {
  return burstBacked(inner()->prepareModel(model, preference, priority, deadline, modelCache, dataCache, token));
}

hal::Result<hal::SharedPreparedModel> IsolatedDevice::prepareModelFromCache(
    const hal::OptionalTimePoint& deadline, const std::vector<hal::CacheFile>& modelCache,
    const std::vector<hal::CacheFile>& dataCache, const hal::CacheToken& token) const {
  return burstBacked(inner()->prepareModelFromCache(deadline, modelCache, dataCache, token));
}

hal::Result<hal::SharedBuffer> IsolatedDevice::allocate(const hal::BufferDesc& desc,
                                                        const std::vector<hal::SharedPreparedModel>& preparedModels,
                                                        const std::vector<hal::BufferRole>& inputRoles,
                                                        const std::vector<hal::BufferRole>& outputRoles) const {
  return inner()->allocate(desc, hal::unwrapPreparedModels<BurstBackedPreparedModel>(preparedModels), inputRoles,
                           outputRoles);
}

hal::Result<std::vector<hal::BackendDevice>> startIsolatedBackend(BackendProcessOptions options) {
  const std::string label = options.spec.label;
  NN_ASSIGN_OR_RETURN(auto process, BackendProcess::start(std::move(options)));
  proxy::ConnectionOptions connection = chainedConnectionOptions();
  connection.clientName = "npu_emulator (backend host)";
  // Long enough for a restart with backoff; a library given up on ends the wait at once.
  connection.reconnectTimeout = std::chrono::seconds(10);
  // As any relay, the parent waits for the child's answer asleep (chainedConnectionOptions), and
  // hands the child its CPU for the wait, so the request and the answer each wake a thread
  // on the CPU its waker is leaving rather than one on another CPU: about one such wake-up
  // fewer per execution, counted with perf (docs/backends.md, "What it costs").
  connection.queueHandOffProcess = [weak = std::weak_ptr<BackendProcess>(process)]() -> pid_t {
    const auto alive = weak.lock();
    return alive != nullptr ? alive->pid() : 0;
  };
  // Its supervisor reports each death at once (onChildDeath below), so a call that meets a
  // broken connection was in flight when the child died: the client hears of the crash, and the
  // call is not made again on the restarted child, which it could crash as well.
  connection.brokenConnectionMeansUnsent = false;
  const std::weak_ptr<BackendProcess> weak = process;
  connection.explainLoss = [weak] {
    const auto alive = weak.lock();
    return alive != nullptr ? alive->explainLoss() : std::string();
  };
  connection.serverGoneForGood = [weak]() -> std::optional<std::string> {
    const auto alive = weak.lock();
    return alive != nullptr ? alive->goneForGood() : std::optional<std::string>("the server is stopping");
  };
  connection.passDescriptor = [weak](int descriptor) -> hal::Result<uint64_t> {
    const auto alive = weak.lock();
    if (alive == nullptr) return hal::makeError(hal::ErrorStatus::DEAD_OBJECT) << "the server is stopping";
    return alive->passDescriptor(descriptor);
  };
  auto connected = proxy::Connection::connect(process->address(), connection);
  if (!connected.ok()) return hal::withContext(connected.error(), label);
  // A burst execution the child was serving ends as the child dies, not at its queue's next poll.
  process->onChildDeath([weakConnection = std::weak_ptr<proxy::Connection>(*connected)] {
    if (const auto alive = weakConnection.lock()) alive->serverDied();
  });
  NN_ASSIGN_OR_RETURN(auto proxies, proxy::ProxyDevice::discover(*connected));
  std::vector<hal::BackendDevice> devices;
  for (auto& proxy : proxies) {
    hal::BackendDevice device;
    for (const HostedDevice& hosted : process->devices()) {
      if (hosted.name == proxy->getName()) device.engines = hosted.engines;
    }
    device.device = std::make_shared<IsolatedDevice>(std::move(proxy), process);
    devices.push_back(std::move(device));
  }
  return devices;
}

}  // namespace nnremote::emulator
