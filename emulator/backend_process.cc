#include "emulator/backend_process.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "emulator/backend_host.pb.h"
#include "emulator/host_channel.h"
#include "emulator/host_zygote.h"
#include "emulator/private_socket_directory.h"

namespace nnremote::emulator {
namespace {

constexpr std::chrono::milliseconds kMaxRestartBackoff{5000};
// After the channel closes, how long the child has to be gone before it is killed.
constexpr std::chrono::seconds kExitGrace{2};

std::string signalName(int signal) {
  const char* abbreviation = sigabbrev_np(signal);
  return abbreviation != nullptr ? std::string("SIG") + abbreviation : "signal " + std::to_string(signal);
}

// Waits for `pid` to end, killing it after kExitGrace; returns its wait status.
int reap(pid_t pid) {
  const auto until = std::chrono::steady_clock::now() + kExitGrace;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, std::chrono::steady_clock::now() < until ? WNOHANG : 0);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) return 0;
    if (done == 0 && std::chrono::steady_clock::now() >= until) ::kill(pid, SIGKILL);
    if (done == 0) ::usleep(2000);
  }
}

// How a child ended, in words: its signal with the call it struck in (which its crash handler
// sent as its last words), what we killed it for, or its exit status. Last words win: a child
// that said what ended it tells the cause, even if it was then killed for dying too slowly.
std::string describeExit(int status, const std::string& killedFor, const std::string& lastWords) {
  if (WIFSIGNALED(status) && !lastWords.empty()) {
    if (lastWords.rfind("SIG", 0) == 0) return "killed by " + lastWords;  // "SIGSEGV in IPreparedModel::execute"
    return "killed by " + signalName(WTERMSIG(status)) + ": " + lastWords;  // out of memory
  }
  if (!killedFor.empty()) return "killed: " + killedFor;
  if (WIFSIGNALED(status)) return "killed by " + signalName(WTERMSIG(status));
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended (wait status " + std::to_string(status) + ")";
}

// "nnremote-a (2 engines), nnremote-b": the devices a child said it serves.
std::string describeDevices(const std::vector<HostedDevice>& devices) {
  std::string out;
  for (const HostedDevice& device : devices) {
    if (!out.empty()) out += ", ";
    out += device.name;
    if (device.engines != 1) out += " (" + std::to_string(device.engines) + " engines)";
  }
  return out.empty() ? "no device" : out;
}

// Whether every thread of `pid` is stopped (by a signal, or by a debugger: state T or t in its
// stat file): then none runs a signal handler until it is let go.
bool isStopped(pid_t pid) {
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  std::error_code error;
  bool any = false;
  for (const auto& task : std::filesystem::directory_iterator(tasks, error)) {
    std::ifstream in(task.path() / "stat");
    const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t name = stat.rfind(')');  // the name, in parentheses, may hold anything
    if (name == std::string::npos || name + 2 >= stat.size()) continue;  // gone meanwhile
    if (stat[name + 2] != 'T' && stat[name + 2] != 't') return false;
    any = true;
  }
  return any;
}

}  // namespace

BackendProcess::BackendProcess(BackendProcessOptions options) : options_(std::move(options)) {}

hal::Result<std::shared_ptr<BackendProcess>> BackendProcess::start(BackendProcessOptions options) {
  std::shared_ptr<BackendProcess> process(new BackendProcess(std::move(options)));
  NN_ASSIGN_OR_RETURN(process->directory_, PrivateSocketDirectory::create());
  process->address_ = "unix:" + process->directory_->socketPath();
  NN_ASSIGN_OR_RETURN(Child child, process->launch(/*first=*/true));
  {
    std::lock_guard<std::mutex> lock(process->mutex_);
    process->child_ = child;
    process->health_.running = true;
    process->health_.pid = child.pid;
  }
  process->supervisor_ = std::thread([raw = process.get()] { raw->supervise(); });
  return process;
}

BackendProcess::~BackendProcess() {
  pid_t pid = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    pid = child_.pid;
  }
  changed_.notify_all();
  if (pid != 0) ::kill(pid, SIGKILL);  // its channel closes, and the supervisor stops watching
  if (supervisor_.joinable()) supervisor_.join();
}

hal::Result<BackendProcess::Child> BackendProcess::launch(bool first) {
  const std::string& label = options_.spec.label;
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << label << ": socketpair: " << std::strerror(errno);
  }
  std::string executable = options_.executable;
  if (executable.empty()) {  // this binary, named as it is on disk (so ps shows what runs)
    std::error_code error;
    executable = std::filesystem::read_symlink("/proc/self/exe", error).string();
    if (error) executable = "/proc/self/exe";
  }
  auto spawned = HostZygote::of(executable).spawn(ends[1]);
  ::close(ends[1]);
  if (!spawned.ok()) {
    ::close(ends[0]);
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
           << label << ": cannot start the backend host: " << spawned.error().message;
  }
  const pid_t pid = *spawned;
  // A restarted child starts on probation, at the lowest CPU weight (host_zygote.h), which watch
  // ends once it has served for restart_probation_ms. The first start comes before any client.
  Child child{pid, ends[0], /*onProbation=*/!first && options_.limits.restartProbation.count() > 0};
  auto failed = [&](hal::Error error) -> hal::Result<Child> {
    ::kill(pid, SIGKILL);
    reap(pid);
    ::close(child.channel);
    return error;
  };

  BackendHostSetup setup;
  setup.set_library(options_.spec.path);
  setup.set_argument(options_.spec.argument);
  setup.set_label(label);
  setup.set_listen(address_);
  setup.set_cache_secret(std::string(options_.cacheSecret.bytes.begin(), options_.cacheSecret.bytes.end()));
  if (first) setup.set_fault(options_.fault);
  setup.set_address_space_bytes(options_.limits.addressSpaceBytes);
  setup.set_own_session(!child.onProbation);
  if (auto sent = sendHostMessage(child.channel, HostMessageType::kSetup, setup.SerializeAsString()); !sent.ok()) {
    return failed(hal::withContext(sent.error(), label));
  }
  const auto until = std::chrono::steady_clock::now() + options_.startupTimeout;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return failed(hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << label << ": stopping");
    }
    if (std::chrono::steady_clock::now() >= until) {
      return failed(hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
                    << label << ": the backend host did not serve within "
                    << std::chrono::duration_cast<std::chrono::seconds>(options_.startupTimeout).count() << " s");
    }
    auto message = receiveHostMessage(child.channel, std::chrono::milliseconds(100));
    if (!message.ok()) {  // it ended before serving
      const int status = reap(pid);
      ::close(child.channel);
      return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
             << label << ": the backend host " << describeExit(status, "", "") << " before serving";
    }
    if (!message->has_value()) continue;
    if ((*message)->type == HostMessageType::kFailed) {
      // The library's own error, as loading it in process would have said it.
      return failed(hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << (*message)->payload);
    }
    if ((*message)->type != HostMessageType::kReady) continue;
    auto devices = decodeHostedDevices((*message)->payload);
    if (!devices.ok()) return failed(hal::withContext(devices.error(), label));
    if (first) {
      devices_ = std::move(devices).value();
    } else if (*devices != devices_) {
      // Each child loads the library (and whatever files its argument names) afresh, so a
      // rebuilt one takes effect at a restart. Serving other devices than the server announced
      // would leave clients with names that answer nothing: refused, as a restart that failed.
      return failed(hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
                    << label << ": the library now serves " << describeDevices(*devices) << ", not "
                    << describeDevices(devices_) << " as at startup (rebuilt, or its configuration changed?); "
                    << "restore it, or restart npu_emulator to serve the new devices");
    }
    return child;
  }
}

std::string BackendProcess::watch(const Child& child) {
  const IsolationLimits& limits = options_.limits;
  bool onProbation = child.onProbation;
  const auto probationEnds = std::chrono::steady_clock::now() + limits.restartProbation;
  // Limits on calls are checked at each answer, so answers come often enough to hold them.
  std::chrono::milliseconds every = limits.healthCheckInterval;
  for (const auto limit : {limits.callTimeout, limits.callCpu}) {
    if (limit.count() > 0) every = std::min(every, std::max(limit / 4, std::chrono::milliseconds(10)));
  }
  uint64_t sequence = 0;
  std::string killedFor, lastWords;
  auto nextPing = std::chrono::steady_clock::now();
  // When the pong to the ping in flight is due; kNoPing while none is in flight.
  constexpr auto kNoPing = std::chrono::steady_clock::time_point::max();
  auto answerBy = kNoPing;
  // Once it has sent its last words, or been asked for a report before it is killed: by when it
  // must be gone.
  auto goneBy = kNoPing;
  // A call over its limit (`which`: "age" or "cpu", host_channel.h): the child is killed once the
  // thread in that call has written its stack (crash_report.h), or a health check's time later.
  auto killAfterReport = [&](std::string why, const char* which) {
    if (!killedFor.empty()) return;
    killedFor = std::move(why);
    if (!sendHostMessage(child.channel, HostMessageType::kReportCall, std::string(which) + "\n" + killedFor).ok()) {
      ::kill(child.pid, SIGKILL);
      return;
    }
    goneBy = std::min(goneBy, std::chrono::steady_clock::now() + limits.healthCheckTimeout);
  };
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= goneBy) {
      ::kill(child.pid, SIGKILL);
      goneBy = kNoPing;
    }
    if (answerBy == kNoPing && now >= nextPing) {
      if (!sendHostMessage(child.channel, HostMessageType::kPing, std::to_string(++sequence)).ok()) break;
      answerBy = now + limits.healthCheckTimeout;
      // At the lowest weight on a busy machine, a child may take long to answer; whether it is
      // frozen is judged at full weight, once its probation is over.
      if (onProbation) answerBy = std::max(answerBy, probationEnds + limits.healthCheckTimeout);
    }
    if (answerBy != kNoPing && now >= answerBy && killedFor.empty()) {
      killedFor = "stopped answering health checks (no answer within " +
                  std::to_string(limits.healthCheckTimeout.count()) + " ms, health_check_timeout_ms)";
      // Asked with a signal, whichever of its threads takes it writes every thread's stack (a
      // deadlock shows both sides); it is killed once they are written, or a health check's time
      // after asking. A stopped child could write nothing before it is let go.
      const sigval timeout{static_cast<int>(limits.healthCheckTimeout.count())};
      if (isStopped(child.pid)) {
        killedFor += "; it was stopped (state T: by a signal, or a debugger)";
        ::kill(child.pid, SIGKILL);
      } else if (::sigqueue(child.pid, hostReportSignal(), timeout) != 0) {
        ::kill(child.pid, SIGKILL);
      } else {
        goneBy = std::min(goneBy, now + limits.healthCheckTimeout);
      }
    }
    if (onProbation && now >= probationEnds) {
      if (!sendHostMessage(child.channel, HostMessageType::kEndProbation, "").ok()) break;
      onProbation = false;
    }
    auto wakeAt = answerBy != kNoPing && killedFor.empty() ? answerBy : nextPing;
    if (onProbation) wakeAt = std::min(wakeAt, probationEnds);
    // At most a second: with no ping due (a dying child), wakeAt is kNoPing, too far to wait for.
    wakeAt = std::min({wakeAt, goneBy, now + std::chrono::seconds(1)});
    auto message = receiveHostMessage(
        child.channel, std::max(std::chrono::milliseconds(1),
                                std::chrono::duration_cast<std::chrono::milliseconds>(wakeAt - now)));
    if (!message.ok()) break;  // the child is gone
    if (!message->has_value()) continue;
    if ((*message)->type == HostMessageType::kDying) {
      // It ends by its own hand and answers nothing more, so no health check judges it now. At
      // the lowest weight on a busy machine (on probation) its death can take seconds; one whose
      // crash handler hangs instead is killed after a health check's time.
      lastWords = (*message)->payload;
      answerBy = nextPing = kNoPing;
      onProbation = false;
      goneBy = std::chrono::steady_clock::now() + limits.healthCheckTimeout;
      continue;
    }
    if ((*message)->type == HostMessageType::kReported) {
      if (!killedFor.empty()) ::kill(child.pid, SIGKILL);
      continue;
    }
    if ((*message)->type != HostMessageType::kPong) continue;
    auto health = decodeHostHealth((*message)->payload);
    if (!health.ok() || health->sequence != sequence) continue;
    answerBy = kNoPing;
    nextPing = std::chrono::steady_clock::now() + every;
    if (limits.callTimeout.count() > 0 && health->longestCallAge > limits.callTimeout) {
      killAfterReport(health->longestCall + " had not returned after " + std::to_string(health->longestCallAge.count()) +
                          " ms (call_timeout_ms = " + std::to_string(limits.callTimeout.count()) + ")",
                      "age");
    }
    if (limits.callCpu.count() > 0 && health->busiestCallCpu > limits.callCpu) {
      killAfterReport(health->busiestCall + " used " + std::to_string(health->busiestCallCpu.count()) +
                          " ms of CPU time (call_cpu_ms = " + std::to_string(limits.callCpu.count()) + ")",
                      "cpu");
    }
  }
  const int status = reap(child.pid);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return "stopped with the server";
  }
  return describeExit(status, killedFor, lastWords);
}

void BackendProcess::supervise() {
  const std::string& label = options_.spec.label;
  for (;;) {
    Child child;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      child = child_;
    }
    std::string cause = watch(child);
    pid_t pid = child.pid;
    std::function<void()> onChildDeath;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      onChildDeath = onChildDeath_;
    }
    if (onChildDeath) onChildDeath();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      child_ = {};
      ::close(child.channel);  // under the lock: passDescriptor must not send on a reused number
      health_.running = false;
      health_.pid = 0;
      health_.lastExit = cause;
      lastDeath_ = std::chrono::steady_clock::now();
      if (stopping_) return;
    }
    changed_.notify_all();
    for (;;) {
      const auto now = std::chrono::steady_clock::now();
      crashes_.push_back(now);
      while (!crashes_.empty() && now - crashes_.front() > options_.limits.crashLoopWindow) crashes_.pop_front();
      if (crashes_.size() >= options_.limits.crashLoopCrashes) {
        std::ostringstream why;
        why << "backend " << label << " crashed " << crashes_.size() << " times within "
            << options_.limits.crashLoopWindow.count() << " s (crash_loop_crashes, crash_loop_window_s); last "
            << cause;
        std::cerr << "npu_emulator: " << why.str() << "; its devices are unavailable" << std::endl;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          health_.unavailable = why.str();
        }
        changed_.notify_all();
        return;
      }
      const auto backoff =
          std::min(kMaxRestartBackoff, options_.limits.restartBackoff * (1 << std::min<size_t>(crashes_.size() - 1, 16)));
      std::cerr << "npu_emulator: backend " << label << (pid != 0 ? " (pid " + std::to_string(pid) + ")" : "") << " "
                << cause << "; restarting in "
                << backoff.count() << " ms" << std::endl;
      if (!pause(backoff)) return;
      auto launched = launch(/*first=*/false);
      if (launched.ok()) {
        {
          std::lock_guard<std::mutex> lock(mutex_);
          child_ = *launched;
          health_.running = true;
          health_.pid = launched->pid;
          ++health_.restarts;
        }
        changed_.notify_all();
        break;
      }
      cause = "could not restart: " + launched.error().message;
      pid = 0;
      std::lock_guard<std::mutex> lock(mutex_);
      health_.lastExit = cause;
      if (stopping_) return;
    }
  }
}

bool BackendProcess::pause(std::chrono::milliseconds duration) {
  std::unique_lock<std::mutex> lock(mutex_);
  return !changed_.wait_for(lock, duration, [&] { return stopping_; });
}

void BackendProcess::onChildDeath(std::function<void()> listener) {
  std::lock_guard<std::mutex> lock(mutex_);
  onChildDeath_ = std::move(listener);
}

pid_t BackendProcess::pid() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return child_.pid;
}

BackendProcess::Health BackendProcess::health() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return health_;
}

hal::Result<uint64_t> BackendProcess::passDescriptor(int descriptor) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (child_.pid == 0) {
    return hal::makeError(hal::ErrorStatus::DEAD_OBJECT) << "backend " << options_.spec.label << " is restarting";
  }
  const uint64_t token = ++descriptorTokens_;
  NN_RETURN_IF_ERROR(sendHostDescriptor(child_.channel, HostMessageType::kDescriptor, std::to_string(token), descriptor));
  return token;
}

std::string BackendProcess::explainLoss() const {
  // The caller may notice the loss before the supervisor has reaped the child, or after a
  // restarted child already serves: a death within the last few seconds is the one it met.
  std::unique_lock<std::mutex> lock(mutex_);
  const auto recently = [&] {
    return lastDeath_.has_value() && std::chrono::steady_clock::now() - *lastDeath_ < std::chrono::seconds(5);
  };
  if (!changed_.wait_for(lock, std::chrono::seconds(1), [&] { return !health_.running || recently(); })) return "";
  if (health_.running && !recently()) return "";
  return "the backend host " + options_.spec.label + " " + health_.lastExit;
}

std::optional<std::string> BackendProcess::goneForGood() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (health_.unavailable.empty()) return std::nullopt;
  return health_.unavailable;
}

}  // namespace nnremote::emulator
