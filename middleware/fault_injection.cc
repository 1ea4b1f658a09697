#include "middleware/fault_injection.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <thread>

#include "hal/operand_types.h"

#include "hal/execution_adapters.h"

namespace nnremote::middleware {
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
    bool dropShapes = false;
    NN_RETURN_IF_ERROR(injector_.beforeExecution(device_, inner_->getModel(), &dropShapes));
    auto outcome = inner_->execute(request, measure, deadline, loopTimeoutDuration);
    if (dropShapes && outcome.ok()) outcome->outputShapes.clear();
    return outcome;
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
    return hal::invalidArgument()
           << "--fault=" << text
           << ": expected KIND:AFTER_N[:DEVICE] or KIND:op=OPERATION[:DEVICE], KIND one of "
              "crash, hang, kernel_hang, slow, error, abort, segfault, overflow, thread_overflow, spin, "
              "allocate, no_shapes";
  };
  static const std::pair<const char*, FaultKind> kKinds[] = {
      {"crash", FaultKind::CRASH},
      {"hang", FaultKind::HANG},
      {"kernel_hang", FaultKind::KERNEL_HANG},
      {"slow", FaultKind::SLOW},
      {"error", FaultKind::ERROR},
      {"abort", FaultKind::ABORT},
      {"segfault", FaultKind::SEGFAULT},
      {"overflow", FaultKind::OVERFLOW},
      {"thread_overflow", FaultKind::THREAD_OVERFLOW},
      {"spin", FaultKind::SPIN},
      {"allocate", FaultKind::ALLOCATE},
      {"no_shapes", FaultKind::NO_SHAPES},
  };
  FaultPlan plan;
  const size_t first = text.find(':');
  if (first == std::string::npos) return usage();
  const std::string kind = text.substr(0, first);
  const auto* known =
      std::find_if(std::begin(kKinds), std::end(kKinds), [&](const auto& k) { return kind == k.first; });
  if (known == std::end(kKinds)) return usage();
  plan.kind = known->second;
  const size_t second = text.find(':', first + 1);
  const std::string when = text.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
  if (when.rfind("op=", 0) == 0) {
    plan.operation = when.substr(3);
    if (!hal::operationTypeFromName(plan.operation).has_value()) {
      return hal::invalidArgument() << "--fault=" << text << ": no operation is named '" << plan.operation << "'";
    }
  } else {
    if (when.empty() || when.size() > 18 || when.find_first_not_of("0123456789") != std::string::npos) return usage();
    plan.afterN = std::stoull(when);
  }
  if (second != std::string::npos) {
    plan.device = text.substr(second + 1);
    if (plan.device.empty()) return usage();
  }
  return plan;
}

namespace {

bool hasOperation(const hal::Model* model, const std::string& name) {
  if (model == nullptr) return false;
  const auto named = [&](const hal::Operation& operation) { return hal::toString(operation.type) == name; };
  if (std::any_of(model->main.operations.begin(), model->main.operations.end(), named)) return true;
  for (const auto& subgraph : model->referenced) {
    if (std::any_of(subgraph.operations.begin(), subgraph.operations.end(), named)) return true;
  }
  return false;
}

// Recursion the compiler can neither unroll nor turn into a loop: each level keeps a page of its
// stack in use, until the thread's stack runs out (the test on `depth` only keeps gcc from calling
// the recursion infinite, which it is).
__attribute__((noinline)) uint64_t overflowStack(uint64_t depth) {
  volatile char page[4096];
  page[0] = static_cast<char>(depth);
  if (depth == std::numeric_limits<uint64_t>::max()) return page[0];
  return overflowStack(depth + 1) + static_cast<uint64_t>(page[0]);
}

[[noreturn]] void crashAsVendorCodeDoes(FaultKind kind) {
  if (kind == FaultKind::ABORT) std::abort();
  if (kind == FaultKind::OVERFLOW) (void)overflowStack(0);
  volatile int* nowhere = nullptr;
  *nowhere = 1;
  std::abort();  // not reached
}

}  // namespace

hal::Status FaultInjector::beforeExecution(const std::string& device, const hal::Model* model, bool* dropShapes) {
  if (!plan_.device.empty() && device != plan_.device) return {};
  const uint64_t number = ++executions_;
  if (plan_.operation.empty() ? number != plan_.afterN + 1 : !hasOperation(model, plan_.operation)) return {};
  switch (plan_.kind) {
    case FaultKind::CRASH:
      std::fprintf(stderr, "npu_emulator: injected crash at execution %llu on %s\n",
                   static_cast<unsigned long long>(number), device.c_str());
      std::fflush(stderr);
      ::kill(::getpid(), SIGKILL);
      break;
    case FaultKind::ABORT:
    case FaultKind::SEGFAULT:
    case FaultKind::OVERFLOW:
      std::fprintf(stderr, "npu_emulator: injected %s at execution %llu on %s\n",
                   plan_.kind == FaultKind::ABORT      ? "abort"
                   : plan_.kind == FaultKind::SEGFAULT ? "segfault"
                                                       : "stack overflow",
                   static_cast<unsigned long long>(number), device.c_str());
      std::fflush(stderr);
      crashAsVendorCodeDoes(plan_.kind);
    case FaultKind::THREAD_OVERFLOW: {
      std::fprintf(stderr, "npu_emulator: injected stack overflow on a thread of its own at execution %llu on %s\n",
                   static_cast<unsigned long long>(number), device.c_str());
      std::fflush(stderr);
      // As a library's worker thread would: one it started, which never calls through the server.
      std::thread worker([] {
        ::pthread_setname_np(::pthread_self(), "vendor_worker");
        crashAsVendorCodeDoes(FaultKind::OVERFLOW);
      });
      worker.join();
      break;
    }
    case FaultKind::HANG: {
      // Said, so that one can tell a hang from a slow device, and a test when a call hangs.
      std::fprintf(stderr, "npu_emulator: injected hang at execution %llu on %s\n",
                   static_cast<unsigned long long>(number), device.c_str());
      std::fflush(stderr);
      std::unique_lock<std::mutex> lock(mutex_);
      released_.wait(lock, [this] { return releasing_; });
      return hal::makeError(hal::ErrorStatus::DEAD_OBJECT) << "the server shut down during an injected hang";
    }
    case FaultKind::KERNEL_HANG:
      std::fprintf(stderr, "npu_emulator: injected hang in the kernel at execution %llu on %s\n",
                   static_cast<unsigned long long>(number), device.c_str());
      std::fflush(stderr);
      hangInTheKernel();
      return hal::makeError(hal::ErrorStatus::DEAD_OBJECT)
             << "the server shut down during an injected hang in the kernel";
    case FaultKind::SPIN:
      for (volatile uint64_t spins = 0;; ++spins) {
        if (spins % (1u << 20) == 0 && released()) {
          return hal::makeError(hal::ErrorStatus::DEAD_OBJECT) << "the server shut down during an injected spin";
        }
      }
    case FaultKind::ALLOCATE: {
      // Kept, so that nothing is given back; only a byte of each is touched, so that an address
      // space limit is what stops it, not the machine's memory.
      std::vector<std::unique_ptr<char[]>> taken;
      for (;;) {
        taken.emplace_back(new char[64 << 20]);
        taken.back()[0] = 1;
      }
    }
    case FaultKind::SLOW: {
      std::unique_lock<std::mutex> lock(mutex_);
      released_.wait_for(lock, kSlowFaultDelay, [this] { return releasing_; });
      return {};
    }
    case FaultKind::NO_SHAPES:
      if (dropShapes != nullptr) *dropShapes = true;
      return {};
    case FaultKind::ERROR:
      break;
  }
  return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
         << "injected error (--fault=error) at execution " << number << " on " << device;
}

FaultInjector::~FaultInjector() {
  for (const int end : wakeKernelHangs_) {
    if (end >= 0) ::close(end);
  }
}

// The calling thread sleeps in vfork, which waits uninterruptibly (but for SIGKILL) until the
// child execs or exits; the child waits for a byte on the pipe that releaseAll writes to. The
// child borrows its parent's memory and stack, so it makes system calls only, and dies with its
// parent (a killed backend host).
void FaultInjector::hangInTheKernel() {
  int wake = -1;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (releasing_) return;
    if (wakeKernelHangs_[0] < 0 && ::pipe2(wakeKernelHangs_, O_CLOEXEC) != 0) return;
    wake = wakeKernelHangs_[0];
  }
  const pid_t parent = ::getpid();
  const pid_t child = ::vfork();
  if (child == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() == parent) {
      char byte;
      (void)!::read(wake, &byte, 1);
    }
    ::_exit(0);
  }
  if (child > 0) ::waitpid(child, nullptr, 0);
}

bool FaultInjector::released() {
  std::lock_guard<std::mutex> lock(mutex_);
  return releasing_;
}

void FaultInjector::releaseAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  releasing_ = true;
  released_.notify_all();
  // A byte for each hang in the kernel, and to spare: more than executions could be hung at once.
  if (wakeKernelHangs_[1] >= 0) {
    const char bytes[256] = {};
    (void)!::write(wakeKernelHangs_[1], bytes, sizeof bytes);
  }
}

std::vector<hal::SharedDevice> FaultInjector::wrap(std::vector<hal::SharedDevice> devices) {
  for (auto& device : devices) {
    if (plan_.device.empty() || device->getName() == plan_.device) {
      device = std::make_shared<FaultyDevice>(std::move(device), *this);
    }
  }
  return devices;
}

}  // namespace nnremote::middleware
