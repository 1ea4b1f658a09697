#include "emulator/backend_host.h"

#include <signal.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <string>
#include <iostream>
#include <limits>
#include <new>

#include "middleware/backend_calls.h"
#include "emulator/backend_host.pb.h"
#include "emulator/backend_loader.h"
#include "emulator/crash_report.h"
#include "emulator/descriptor_inbox.h"
#include "emulator/emulator_server.h"
#include "middleware/fault_injection.h"
#include "emulator/host_channel.h"
#include "emulator/probation_cpu.h"
#include "wire/shared_queue.h"

namespace nnremote::emulator {
namespace {

// How long the parent has to send the setup after starting us.
constexpr std::chrono::seconds kSetupWait{30};

int channel = -1;  // for the crash handlers

// Asks the thread of a call the parent is killing the child for to write its stack. A real-time
// signal: none of them is the default action of anything, and a library is unlikely to use this
// one (glibc keeps the lowest ones for itself; SIGRTMIN is past them).
const int kReportSignal = SIGRTMIN + 4;

// The child's last words to its parent: what ended it and the call into the library the calling
// thread was in. Async-signal-safe: no allocation, one send.
void sendLastWords(const char* what) {
  char message[256];
  size_t used = 0;
  const auto append = [&](const char* text) {
    while (*text != '\0' && used + 1 < sizeof message) message[used++] = *text++;
  };
  message[used++] = static_cast<char>(HostMessageType::kDying);
  append(what);
  if (const char* method = middleware::BackendCall::currentOnThisThread()) {
    append(" in ");
    append(method);
  }
  ::send(channel, message, used, MSG_NOSIGNAL | MSG_DONTWAIT);
}

// Only the first thread to crash reports; one crashing meanwhile waits (bounded) for that report
// to be written before its signal ends the process.
std::atomic<bool> reporting{false};
std::atomic<bool> reported{false};

void reportOnce(const char* lastWords, const char* cause, const void* from, bool fromSignal) {
  if (reporting.exchange(true)) {
    for (int waited = 0; waited < 1000 && !reported.load(); ++waited) {
      const timespec millisecond{0, 1000 * 1000};
      ::nanosleep(&millisecond, nullptr);
    }
    return;
  }
  sendLastWords(lastWords);  // first: the parent knows the cause even if the report never ends
  writeCrashReport(STDERR_FILENO, "crashed", cause, from, fromSignal);
  reported = true;
}

// The parent's reason for killing the child, for the report of the thread in the call it named
// (kReportCall): set by the main thread just before it signals that thread.
char killedFor[512];

// On the thread in a call the parent is about to kill the child for (a hang, a CPU limit): its
// stack, where that call is now. Then the parent may kill.
void onReportSignal(int, siginfo_t*, void* context) {
  if (!reporting.exchange(true)) {
    writeCrashReport(STDERR_FILENO, "is killed", killedFor, interruptedInstruction(context), /*fromSignal=*/true);
    reported = true;
  }
  const char done = static_cast<char>(HostMessageType::kReported);
  ::send(channel, &done, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

// kReportCall: "age" or "cpu", then why. The thread of that call writes the report; if the call
// has returned meanwhile (or its thread cannot be signalled), the parent hears so at once.
void reportCall(const std::string& payload) {
  const size_t newline = payload.find('\n');
  const bool byCpu = payload.compare(0, newline, "cpu") == 0;
  const std::string why = newline == std::string::npos ? "" : payload.substr(newline + 1);
  std::strncpy(killedFor, why.c_str(), sizeof killedFor - 1);
  const auto longest = middleware::BackendCall::longest();
  const pid_t thread = !longest.has_value() ? 0 : byCpu ? longest->byCpu.thread : longest->byAge.thread;
  if (thread <= 0 || ::tgkill(::getpid(), thread, kReportSignal) != 0) {
    (void)sendHostMessage(channel, HostMessageType::kReported, "");
  }
}

// Which signal, in which call, and the crash report. Then the signal's default action ends the
// process, and the parent sees how it died.
void onCrashSignal(int signal, siginfo_t* info, void* context) {
  const char* name = sigabbrev_np(signal);
  char lastWords[16] = "signal ?";
  if (name != nullptr) {
    std::strcpy(lastWords, "SIG");
    std::strncat(lastWords, name, sizeof lastWords - 4);
  }
  char cause[160];
  describeCrashSignal(signal, *info, context, cause, sizeof cause);
  reportOnce(lastWords, cause, interruptedInstruction(context), /*fromSignal=*/true);
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

// A stack for the calling thread's signal handlers, so that its own stack overflowing is reported
// like any crash (the handler cannot run on a stack that has run out). A thread has none unless
// given one: the main thread gets it here, and every thread that calls into the library before
// its first call (middleware::BackendCall::setThreadSetup). Kept while the thread lives.
void giveThreadASignalStack() {
  constexpr size_t kSize = 64 * 1024;
  stack_t current{};
  if (::sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE) == 0) return;  // has one
  struct Owned {
    void* stack = MAP_FAILED;
    ~Owned() {
      if (stack == MAP_FAILED) return;
      const stack_t off{nullptr, SS_DISABLE, 0};
      ::sigaltstack(&off, nullptr);
      ::munmap(stack, kSize);
    }
  };
  thread_local Owned owned;
  owned.stack = ::mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (owned.stack == MAP_FAILED) return;
  const stack_t stack{owned.stack, 0, kSize};
  ::sigaltstack(&stack, nullptr);
}

void installCrashHandlers() {
  giveThreadASignalStack();
  middleware::BackendCall::setThreadSetup(giveThreadASignalStack);
  struct sigaction action {};
  action.sa_sigaction = onCrashSignal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::sigaction(signal, &action, nullptr);
  struct sigaction report {};
  report.sa_sigaction = onReportSignal;
  report.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&report.sa_mask);
  ::sigaction(kReportSignal, &report, nullptr);
}

// With RLIMIT_AS, an allocation past the limit fails; a child that ran out of its allowance is
// ended, with the cause and the stack that allocated, rather than left to fail in whichever way
// the library copes.
void onOutOfMemory() {
  constexpr const char* kCause = "out of memory (address_space_mib)";
  // From operator new, which called this, down to the code that allocated.
  reportOnce(kCause, kCause, __builtin_return_address(0), /*fromSignal=*/false);
  ::signal(SIGABRT, SIG_DFL);
  ::abort();
}

hal::Status applyAddressSpaceLimit(uint64_t bytes) {
  if (bytes == 0) return {};
  const rlimit limit{bytes, bytes};
  if (::setrlimit(RLIMIT_AS, &limit) != 0) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "setrlimit(RLIMIT_AS): " << std::strerror(errno);
  }
  std::set_new_handler(onOutOfMemory);
  return {};
}

hal::Result<BackendHostSetup> receiveSetup(int socket) {
  NN_ASSIGN_OR_RETURN(auto message, receiveHostMessage(socket, kSetupWait));
  BackendHostSetup setup;
  if (!message.has_value() || message->type != HostMessageType::kSetup || !setup.ParseFromString(message->payload) ||
      setup.cache_secret().size() != sizeof(hal::CacheSecret::bytes)) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "the backend host got no valid setup from its parent";
  }
  return setup;
}

// Everything the child serves, started: the library's devices as they are (the parent schedules
// them, where all the clients are), with the fault the parent aimed at them, on the private socket.
struct Served {
  std::shared_ptr<DescriptorInbox> descriptors = std::make_shared<DescriptorInbox>();
  std::unique_ptr<middleware::FaultInjector> faults;
  std::unique_ptr<EmulatorServer> server;
  std::string devices;  // the kReady payload
};

hal::Result<Served> serve(const BackendHostSetup& setup) {
  NN_RETURN_IF_ERROR(applyAddressSpaceLimit(setup.address_space_bytes()));
  hal::CacheSecret secret;
  std::memcpy(secret.bytes.data(), setup.cache_secret().data(), secret.bytes.size());
  NN_ASSIGN_OR_RETURN(auto loaded, loadBackend({setup.library(), setup.argument(), setup.label()}, secret));
  std::vector<hal::SharedDevice> devices;
  Served served;
  for (auto& device : loaded) {
    served.devices += encodeHostedDevice({device.device->getName(), device.engines});
    devices.push_back(std::move(device.device));
  }
  if (!setup.fault().empty()) {
    NN_ASSIGN_OR_RETURN(auto plan, middleware::parseFaultPlan(setup.fault()));
    served.faults = std::make_unique<middleware::FaultInjector>(plan);
    devices = served.faults->wrap(std::move(devices));
  }
  // The parent is this server's only client, on behalf of all of its own: its sessions' quotas
  // are the parent's business, so here they are unlimited.
  ServerOptions serverOptions;
  constexpr uint32_t kNoLimit = std::numeric_limits<uint32_t>::max();
  serverOptions.session = {kNoLimit, std::numeric_limits<uint64_t>::max(), kNoLimit, kNoLimit, kNoLimit, kNoLimit};
  serverOptions.descriptors = served.descriptors;
  NN_ASSIGN_OR_RETURN(served.server, EmulatorServer::start(std::move(devices), setup.listen(), serverOptions));
  return served;
}

}  // namespace

int runBackendHost(int channelFd) {
  channel = channelFd;
  // Die with the parent; and keep the channel from the library's own children.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  ::fcntl(channelFd, F_SETFD, FD_CLOEXEC);
  installCrashHandlers();
  auto setup = receiveSetup(channelFd);
  if (!setup.ok()) {
    std::cerr << "npu_emulator --backend-host: " << setup.error().message << std::endl;
    return 2;
  }
  prepareCrashReports(setup->label());
  // Forked in the zygote's session, whose autogroup has the lowest CPU weight (host_zygote.h): a
  // session of its own is an autogroup of its own, at full weight. On probation, the host also
  // keeps to one CPU (probation_cpu.h), from before its first thread starts.
  ProbationCpu probationCpu;
  if (setup->own_session()) {
    ::setsid();
  } else {
    probationCpu = ProbationCpu::confine(static_cast<unsigned>(::getpid()));
    // The parent would otherwise move the thread serving its burst to the parent's CPU.
    if (probationCpu.confined()) wire::SharedQueue::acceptCpuHandOffs(false);
  }
  auto served = serve(*setup);
  if (!served.ok()) {
    (void)sendHostMessage(channelFd, HostMessageType::kFailed, served.error().message);
    return 2;
  }
  if (!sendHostMessage(channelFd, HostMessageType::kReady, served->devices).ok()) return 1;
  // Take pools' descriptors and answer health checks until the parent lets go of the channel.
  for (;;) {
    auto message = receiveHostMessage(channelFd, std::chrono::hours(1));
    if (!message.ok()) break;
    if (!message->has_value()) continue;
    if ((*message)->type == HostMessageType::kDescriptor && (*message)->descriptor >= 0) {
      served->descriptors->put(std::strtoull((*message)->payload.c_str(), nullptr, 10), (*message)->descriptor);
      continue;
    }
    if ((*message)->type == HostMessageType::kReportCall) {
      reportCall((*message)->payload);
      continue;
    }
    if ((*message)->type == HostMessageType::kEndProbation) {
      ::setsid();
      probationCpu.release();
      wire::SharedQueue::acceptCpuHandOffs(true);
      continue;
    }
    if ((*message)->type != HostMessageType::kPing) continue;
    HostHealth health;
    health.sequence = std::strtoull((*message)->payload.c_str(), nullptr, 10);
    if (const auto longest = middleware::BackendCall::longest()) {
      health.longestCall = longest->byAge.method;
      health.longestCallAge = std::chrono::duration_cast<std::chrono::milliseconds>(longest->byAge.age);
      health.busiestCall = longest->byCpu.method;
      health.busiestCallCpu = std::chrono::duration_cast<std::chrono::milliseconds>(longest->byCpu.cpu);
    }
    if (!sendHostMessage(channelFd, HostMessageType::kPong, encodeHostHealth(health)).ok()) break;
  }
  // The parent is gone or done with us. Nothing here is worth a clean shutdown that a hung call
  // into the library could hold up forever.
  ::_exit(0);
}

}  // namespace nnremote::emulator
