#include "emulator/fault_injection.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>

#include "hal/execution_adapters.h"

namespace nnremote::emulator {
namespace {

class FaultyPreparedModel final : public hal::SyncExecutionPreparedModel {
 public:
  FaultyPreparedModel(hal::SharedPreparedModel inner, std::string device, FaultInjector& injector)
      : inner_(std::move(inner)), device_(std::move(device)), injector_(injector) {}

  const hal::SharedPreparedModel& inner() const { return inner_; }
  const hal::Model* getModel() const override { return inner_->getModel(); }

  hal::Result<hal::ExecutionOutcome> execute(const hal::Request& request, hal::MeasureTiming measure,
                                             const hal::OptionalTimePoint& deadline,
                                             const hal::OptionalDuration& loopTimeoutDuration) const override {
    NN_RETURN_IF_ERROR(injector_.beforeExecution(device_));
    return inner_->execute(request, measure, deadline, loopTimeoutDuration);
  }

 private:
  const hal::SharedPreparedModel inner_;
  const std::string device_;
  FaultInjector& injector_;
};

class FaultyDevice final : public hal::ForwardingDevice {
 public:
  FaultyDevice(hal::SharedDevice inner, FaultInjector& injector)
      : ForwardingDevice(std::move(inner)), injector_(injector) {}

  hal::Result<hal::SharedPreparedModel> prepareModel(const hal::Model& model, hal::ExecutionPreference preference,
                                                     hal::Priority priority, const hal::OptionalTimePoint& deadline,
                                                     const std::vector<hal::CacheFile>& modelCache,
                                                     const std::vector<hal::CacheFile>& dataCache,
                                                     const hal::CacheToken& token) const override {
    NN_ASSIGN_OR_RETURN(auto prepared,
                        inner()->prepareModel(model, preference, priority, deadline, modelCache, dataCache, token));
    return wrap(std::move(prepared));
  }
  hal::Result<hal::SharedPreparedModel> prepareModelFromCache(const hal::OptionalTimePoint& deadline,
                                                              const std::vector<hal::CacheFile>& modelCache,
                                                              const std::vector<hal::CacheFile>& dataCache,
                                                              const hal::CacheToken& token) const override {
    NN_ASSIGN_OR_RETURN(auto prepared, inner()->prepareModelFromCache(deadline, modelCache, dataCache, token));
    return wrap(std::move(prepared));
  }
  hal::Result<hal::SharedBuffer> allocate(const hal::BufferDesc& desc,
                                          const std::vector<hal::SharedPreparedModel>& preparedModels,
                                          const std::vector<hal::BufferRole>& inputRoles,
                                          const std::vector<hal::BufferRole>& outputRoles) const override {
    const auto unwrapped = hal::unwrapPreparedModels<FaultyPreparedModel>(preparedModels);
    return inner()->allocate(desc, unwrapped, inputRoles, outputRoles);
  }

 private:
  hal::SharedPreparedModel wrap(hal::SharedPreparedModel prepared) const {
    return std::make_shared<FaultyPreparedModel>(std::move(prepared), getName(), injector_);
  }

  FaultInjector& injector_;
};

}  // namespace

hal::Result<FaultPlan> parseFaultPlan(const std::string& text) {
  const auto usage = [&]() -> hal::Error {
    return hal::invalidArgument() << "--fault=" << text << ": expected crash|hang|slow|error:AFTER_N[:DEVICE]";
  };
  FaultPlan plan;
  const size_t first = text.find(':');
  if (first == std::string::npos) return usage();
  const std::string kind = text.substr(0, first);
  if (kind == "crash") {
    plan.kind = FaultKind::CRASH;
  } else if (kind == "hang") {
    plan.kind = FaultKind::HANG;
  } else if (kind == "slow") {
    plan.kind = FaultKind::SLOW;
  } else if (kind == "error") {
    plan.kind = FaultKind::ERROR;
  } else {
    return usage();
  }
  const size_t second = text.find(':', first + 1);
  const std::string count = text.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
  if (count.empty() || count.size() > 18 || count.find_first_not_of("0123456789") != std::string::npos) return usage();
  plan.afterN = std::stoull(count);
  if (second != std::string::npos) {
    plan.device = text.substr(second + 1);
    if (plan.device.empty()) return usage();
  }
  return plan;
}

hal::Status FaultInjector::beforeExecution(const std::string& device) {
  if (!plan_.device.empty() && device != plan_.device) return {};
  const uint64_t number = ++executions_;
  if (number != plan_.afterN + 1) return {};
  switch (plan_.kind) {
    case FaultKind::CRASH:
      std::fprintf(stderr, "npu_emulator: injected crash at execution %llu on %s\n",
                   static_cast<unsigned long long>(number), device.c_str());
      std::fflush(stderr);
      ::kill(::getpid(), SIGKILL);
      break;
    case FaultKind::HANG: {
      std::unique_lock<std::mutex> lock(mutex_);
      released_.wait(lock, [this] { return releasing_; });
      return hal::makeError(hal::ErrorStatus::DEAD_OBJECT) << "the server shut down during an injected hang";
    }
    case FaultKind::SLOW: {
      std::unique_lock<std::mutex> lock(mutex_);
      released_.wait_for(lock, kSlowFaultDelay, [this] { return releasing_; });
      return {};
    }
    case FaultKind::ERROR:
      break;
  }
  return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
         << "injected error (--fault=error) at execution " << number << " on " << device;
}

void FaultInjector::releaseAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  releasing_ = true;
  released_.notify_all();
}

std::vector<hal::SharedDevice> FaultInjector::wrap(std::vector<hal::SharedDevice> devices) {
  for (auto& device : devices) {
    if (plan_.device.empty() || device->getName() == plan_.device) {
      device = std::make_shared<FaultyDevice>(std::move(device), *this);
    }
  }
  return devices;
}

}  // namespace nnremote::emulator
