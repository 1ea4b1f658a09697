#include "middleware/backend_guard.h"

#include <exception>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "middleware/backend_calls.h"
#include "hal/forwarding_device.h"
#include "hal/forwarding_prepared_model.h"
#include "hal/i_buffer.h"
#include "hal/i_burst.h"
#include "hal/i_execution.h"
#include "hal/i_prepared_model.h"

namespace nnremote::middleware {
namespace {

// What each guarded object knows: the library's name, for messages.
using Origin = std::shared_ptr<const std::string>;

template <typename T>
struct MakesAnObject : std::false_type {};
template <typename T>
struct MakesAnObject<hal::Result<std::shared_ptr<T>>> : std::true_type {};

// Calls `call`, turning an exception into GENERAL_FAILURE. Works for Status and Result<T>. A
// success that carries no object (a prepared model, buffer, execution or burst that is null) is
// GENERAL_FAILURE too: the server would crash using it. The call is also registered as running
// (backend_calls.h) while it runs.
template <typename Call>
auto guarded(const Origin& origin, const char* method, Call&& call) -> decltype(call()) {
  const BackendCall running(method);
  try {
    auto result = call();
    if constexpr (MakesAnObject<decltype(result)>::value) {
      if (result.ok() && *result == nullptr) {
        return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
               << "backend " << *origin << " returned success but no object from " << method;
      }
    }
    return result;
  } catch (const std::exception& exception) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
           << "backend " << *origin << " threw from " << method << ": " << exception.what();
  } catch (...) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
           << "backend " << *origin << " threw from " << method << " (not a std::exception)";
  }
}

hal::Result<std::pair<hal::SyncFence, hal::ExecuteFencedInfoCallback>> guardFenced(
    const Origin& origin, hal::Result<std::pair<hal::SyncFence, hal::ExecuteFencedInfoCallback>> launched) {
  if (!launched.ok() || !launched->second) return launched;
  auto callback = std::move(launched->second);
  launched->second = [origin, callback = std::move(callback)] {
    return guarded(origin, "the fenced-execution info callback", callback);
  };
  return launched;
}

class GuardedBuffer final : public hal::IBuffer {
 public:
  GuardedBuffer(hal::SharedBuffer inner, Origin origin) : inner_(std::move(inner)), origin_(std::move(origin)) {}

  const hal::SharedBuffer& inner() const { return inner_; }

  hal::Request::MemoryDomainToken getToken() const override { return inner_->getToken(); }
  hal::Status copyTo(const hal::SharedMemory& dst) const override {
    return guarded(origin_, "IBuffer::copyTo", [&] { return inner_->copyTo(dst); });
  }
  hal::Status copyFrom(const hal::SharedMemory& src, const std::vector<uint32_t>& dimensions) const override {
    return guarded(origin_, "IBuffer::copyFrom", [&] { return inner_->copyFrom(src, dimensions); });
  }

 private:
  const hal::SharedBuffer inner_;
  const Origin origin_;
};


// Requests name device buffers by the guards the server holds; the backend needs its own
// buffers back (it recognizes them by type). Copies the request only when it names any.
const hal::Request& backendRequest(const hal::Request& request, std::optional<hal::Request>* copy) {
  for (size_t i = 0; i < request.pools.size(); ++i) {
    const auto* buffer = std::get_if<hal::SharedBuffer>(&request.pools[i]);
    const auto* guardedBuffer = buffer != nullptr ? dynamic_cast<const GuardedBuffer*>(buffer->get()) : nullptr;
    if (guardedBuffer == nullptr) continue;
    if (!copy->has_value()) *copy = request;
    (*copy)->pools[i] = guardedBuffer->inner();
  }
  return copy->has_value() ? **copy : request;
}

class GuardedExecution final : public hal::IExecution {
 public:
  GuardedExecution(hal::SharedExecution inner, Origin origin) : inner_(std::move(inner)), origin_(std::move(origin)) {}

  hal::Result<hal::ExecutionOutcome> compute(const hal::OptionalTimePoint& deadline) const override {
    return guarded(origin_, "IExecution::compute", [&] { return inner_->compute(deadline); });
  }
  hal::Result<std::pair<hal::SyncFence, hal::ExecuteFencedInfoCallback>> computeFenced(
      const std::vector<hal::SyncFence>& waitFor, const hal::OptionalTimePoint& deadline,
      const hal::OptionalDuration& timeoutDurationAfterFence) const override {
    return guardFenced(origin_, guarded(origin_, "IExecution::computeFenced", [&] {
                         return inner_->computeFenced(waitFor, deadline, timeoutDurationAfterFence);
                       }));
  }

 private:
  const hal::SharedExecution inner_;
  const Origin origin_;
};

class GuardedBurst final : public hal::IBurst {
 public:
  GuardedBurst(hal::SharedBurst inner, Origin origin) : inner_(std::move(inner)), origin_(std::move(origin)) {}

  OptionalCacheHold cacheMemory(const hal::SharedMemory& memory) const override {
    try {
      return inner_->cacheMemory(memory);
    } catch (...) {
      return nullptr;  // caching is an optimization: the memory is simply sent each time
    }
  }
  hal::Result<hal::ExecutionOutcome> execute(const hal::Request& request, hal::MeasureTiming measure,
                                             const hal::OptionalTimePoint& deadline,
                                             const hal::OptionalDuration& loopTimeoutDuration) const override {
    std::optional<hal::Request> copy;
    const hal::Request& own = backendRequest(request, &copy);
    return guarded(origin_, "IBurst::execute",
                   [&] { return inner_->execute(own, measure, deadline, loopTimeoutDuration); });
  }

 private:
  const hal::SharedBurst inner_;
  const Origin origin_;
};

class GuardedPreparedModel final : public hal::ForwardingPreparedModel {
 public:
  GuardedPreparedModel(hal::SharedPreparedModel inner, Origin origin)
      : ForwardingPreparedModel(std::move(inner)), origin_(std::move(origin)) {}

  hal::Result<hal::ExecutionOutcome> execute(const hal::Request& request, hal::MeasureTiming measure,
                                             const hal::OptionalTimePoint& deadline,
                                             const hal::OptionalDuration& loopTimeoutDuration) const override {
    std::optional<hal::Request> copy;
    const hal::Request& own = backendRequest(request, &copy);
    return guarded(origin_, "IPreparedModel::execute",
                   [&] { return inner()->execute(own, measure, deadline, loopTimeoutDuration); });
  }
  hal::Result<std::pair<hal::SyncFence, hal::ExecuteFencedInfoCallback>> executeFenced(
      const hal::Request& request, const std::vector<hal::SyncFence>& waitFor, hal::MeasureTiming measure,
      const hal::OptionalTimePoint& deadline, const hal::OptionalDuration& loopTimeoutDuration,
      const hal::OptionalDuration& timeoutDurationAfterFence) const override {
    std::optional<hal::Request> copy;
    const hal::Request& own = backendRequest(request, &copy);
    return guardFenced(origin_, guarded(origin_, "IPreparedModel::executeFenced", [&] {
                         return inner()->executeFenced(own, waitFor, measure, deadline, loopTimeoutDuration,
                                                      timeoutDurationAfterFence);
                       }));
  }
  hal::Result<hal::SharedExecution> createReusableExecution(
      const hal::Request& request, hal::MeasureTiming measure,
      const hal::OptionalDuration& loopTimeoutDuration) const override {
    std::optional<hal::Request> copy;
    const hal::Request& own = backendRequest(request, &copy);
    NN_ASSIGN_OR_RETURN(auto execution, guarded(origin_, "IPreparedModel::createReusableExecution", [&] {
                          return inner()->createReusableExecution(own, measure, loopTimeoutDuration);
                        }));
    return hal::SharedExecution(std::make_shared<GuardedExecution>(std::move(execution), origin_));
  }
  hal::Result<hal::SharedBurst> configureExecutionBurst() const override {
    NN_ASSIGN_OR_RETURN(auto burst, guarded(origin_, "IPreparedModel::configureExecutionBurst",
                                            [&] { return inner()->configureExecutionBurst(); }));
    return hal::SharedBurst(std::make_shared<GuardedBurst>(std::move(burst), origin_));
  }

 private:
  const Origin origin_;
};

class GuardedDevice final : public hal::ForwardingDevice {
 public:
  GuardedDevice(hal::SharedDevice inner, Origin origin) : ForwardingDevice(std::move(inner)), origin_(std::move(origin)) {}

  hal::Result<std::vector<bool>> getSupportedOperations(const hal::Model& model) const override {
    NN_ASSIGN_OR_RETURN(std::vector<bool> supported, guarded(origin_, "IDevice::getSupportedOperations",
                                                             [&] { return inner()->getSupportedOperations(model); }));
    if (supported.size() != model.main.operations.size()) {
      return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
             << "backend " << *origin_ << " answered IDevice::getSupportedOperations for " << supported.size()
             << " operations of " << model.main.operations.size();
    }
    return supported;
  }
  hal::Result<hal::SharedPreparedModel> prepareModel(const hal::Model& model, hal::ExecutionPreference preference,
                                                     hal::Priority priority, const hal::OptionalTimePoint& deadline,
                                                     const std::vector<hal::CacheFile>& modelCache,
                                                     const std::vector<hal::CacheFile>& dataCache,
                                                     const hal::CacheToken& token) const override {
    return wrap(guarded(origin_, "IDevice::prepareModel", [&] {
      return inner()->prepareModel(model, preference, priority, deadline, modelCache, dataCache, token);
    }));
  }
  hal::Result<hal::SharedPreparedModel> prepareModelFromCache(const hal::OptionalTimePoint& deadline,
                                                              const std::vector<hal::CacheFile>& modelCache,
                                                              const std::vector<hal::CacheFile>& dataCache,
                                                              const hal::CacheToken& token) const override {
    return wrap(guarded(origin_, "IDevice::prepareModelFromCache",
                        [&] { return inner()->prepareModelFromCache(deadline, modelCache, dataCache, token); }));
  }
  hal::Result<hal::SharedBuffer> allocate(const hal::BufferDesc& desc,
                                          const std::vector<hal::SharedPreparedModel>& preparedModels,
                                          const std::vector<hal::BufferRole>& inputRoles,
                                          const std::vector<hal::BufferRole>& outputRoles) const override {
    const auto unwrapped = hal::unwrapPreparedModels<GuardedPreparedModel>(preparedModels);
    NN_ASSIGN_OR_RETURN(auto buffer, guarded(origin_, "IDevice::allocate", [&] {
                          return inner()->allocate(desc, unwrapped, inputRoles, outputRoles);
                        }));
    return hal::SharedBuffer(std::make_shared<GuardedBuffer>(std::move(buffer), origin_));
  }

 private:
  hal::Result<hal::SharedPreparedModel> wrap(hal::Result<hal::SharedPreparedModel> prepared) const {
    if (!prepared.ok()) return prepared;
    return hal::SharedPreparedModel(std::make_shared<GuardedPreparedModel>(std::move(prepared).value(), origin_));
  }

  const Origin origin_;
};

}  // namespace

hal::SharedDevice guardBackendDevice(hal::SharedDevice device, std::string libraryName) {
  return std::make_shared<GuardedDevice>(std::move(device), std::make_shared<const std::string>(std::move(libraryName)));
}

}  // namespace nnremote::middleware
