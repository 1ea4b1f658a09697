#include "emulator/backend_host.h"

#include <signal.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <string>
#include <iostream>
#include <limits>
#include <new>

#include "middleware/backend_calls.h"
#include "emulator/backend_host.pb.h"
#include "emulator/backend_loader.h"
#include "emulator/crash_handlers.h"
#include "emulator/crash_report.h"
#include "emulator/descriptor_inbox.h"
#include "emulator/emulator_server.h"
#include "middleware/fault_injection.h"
#include "emulator/host_channel.h"
#include "emulator/probation_cpu.h"
#include "emulator/signal_safe_text.h"
#include "wire/shared_queue.h"

namespace nnremote::emulator {
namespace {

// How long the parent has to send the setup after starting us.
constexpr std::chrono::seconds kSetupWait{30};

int channel = -1;  // for the crash handlers

// The child's last words to its parent: what ended it and the call into the library the calling
// thread was in. Async-signal-safe: no allocation, one send.
void sendLastWords(const char* what) {
  SignalSafeText<255> message;
  const char type[] = {static_cast<char>(HostMessageType::kDying), '\0'};
  message.text(type).text(what);
  if (const char* method = middleware::BackendCall::currentOnThisThread()) message.text(" in ").text(method);
  ::send(channel, message.c_str(), message.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

// The parent's reason for killing the child, for the report of the thread in the call it named
// (kReportCall): set by the main thread just before it signals that thread; and whether the
// other threads' stacks follow (for a hang, not for a call over its CPU time).
char killedFor[512];
std::atomic<bool> reportOtherThreadsToo{false};

// On the thread in a call the parent is about to kill the child for (a hang, a CPU limit): its
// stack, where that call is now; for a hang, every other thread's too. Or, sent by the parent to
// a child that stopped answering it: every thread's, from whichever thread takes the signal.
// Then the parent may kill.
void onReportSignal(int, siginfo_t* info, void* context) {
  // The parent's reason for a child that stopped answering comes with the signal (it cannot be
  // told otherwise): its health_check_timeout_ms.
  static SignalSafeText<159> stoppedAnswering;
  const bool fromParent = info->si_code == SI_QUEUE && info->si_pid == ::getppid();
  // Loaded first: the main thread stores it after it wrote killedFor (see reportCall).
  const bool othersToo = reportOtherThreadsToo.load(std::memory_order_acquire);
  if (fromParent) {
    stoppedAnswering.clear();
    stoppedAnswering.text("stopped answering health checks (no answer within ")
        .decimal(static_cast<uint32_t>(info->si_value.sival_int))
        .text(" ms, health_check_timeout_ms)");
  }
  const bool wrote = reportOnce("is killed", fromParent ? stoppedAnswering.c_str() : killedFor, nullptr,
                                interruptedInstruction(context), /*fromSignal=*/true);
  if (wrote && (fromParent || othersToo)) reportOtherThreads();
  const char done = static_cast<char>(HostMessageType::kReported);
  ::send(channel, &done, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

// kReportCall: "age" or "cpu", then why. The thread of that call writes the report; one that no
// signal reaches (hung in the kernel, say) is reported from here. If the call has returned
// meanwhile, the parent hears so at once.
void reportCall(const std::string& payload) {
  const size_t newline = payload.find('\n');
  const bool byCpu = payload.compare(0, newline, "cpu") == 0;
  const std::string why = newline == std::string::npos ? "" : payload.substr(newline + 1);
  std::strncpy(killedFor, why.c_str(), sizeof killedFor - 1);
  const auto longest = middleware::BackendCall::longest();
  const pid_t thread = !longest.has_value() ? 0 : byCpu ? longest->byCpu.thread : longest->byAge.thread;
  const bool reported = thread <= 0 || reportIfStackless(thread, hostReportSignal(), "is killed", killedFor, !byCpu);
  // Stored last before the signal, and loaded first by its handler: what this thread did above
  // (killedFor, and the report's buffers, which the handler uses again) is ordered before it.
  reportOtherThreadsToo.store(!byCpu, std::memory_order_release);
  if (reported || ::tgkill(::getpid(), thread, hostReportSignal()) != 0) {
    (void)sendHostMessage(channel, HostMessageType::kReported, "");
  }
}

// With RLIMIT_AS, an allocation past the limit fails; a child that ran out of its allowance is
// ended, with the cause and the stack that allocated, rather than left to fail in whichever way
// the library copes.
void onOutOfMemory() { endOutOfMemory(__builtin_return_address(0)); }

hal::Status applyAddressSpaceLimit(uint64_t bytes) {
  if (bytes == 0) return {};
  const rlimit limit{bytes, bytes};
  if (::setrlimit(RLIMIT_AS, &limit) != 0) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "setrlimit(RLIMIT_AS): " << std::strerror(errno);
  }
  std::set_new_handler(onOutOfMemory);
  return {};
}

// How much address space this process has mapped now, in MiB (0 if /proc does not say).
uint64_t mappedMib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmSize:", 0) == 0) return std::strtoull(line.c_str() + 7, nullptr, 10) / 1024;  // in kB
  }
  return 0;
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
  constexpr uint64_t kNoByteLimit = std::numeric_limits<uint64_t>::max();
  SessionLimits& unlimited = serverOptions.session;
  unlimited.preparedModels = unlimited.deviceBuffers = unlimited.executionsInFlight = kNoLimit;
  unlimited.fences = unlimited.bursts = unlimited.keptExecutions = unlimited.sessionsPerIdentity = kNoLimit;
  unlimited.registeredMemories = unlimited.sharedMemoryMappings = kNoLimit;
  unlimited.registeredMemoryBytes = unlimited.serverPoolMemoryBytes = kNoByteLimit;
  serverOptions.descriptors = served.descriptors;
  NN_ASSIGN_OR_RETURN(served.server, EmulatorServer::start(std::move(devices), setup.listen(), serverOptions));
  return served;
}

// What a start under an address-space limit must say when it fails: a limit too small fails in
// ways that do not name it (the loader's "failed to map segment", std::thread throwing where a
// thread's stack does not fit).
std::string addressSpaceNote(const BackendHostSetup& setup, uint64_t mappedBefore) {
  if (setup.address_space_bytes() == 0) return "";
  return " (under address_space_mib = " + std::to_string(setup.address_space_bytes() >> 20) + ", with " +
         std::to_string(mappedBefore) +
         " MiB mapped before the library loaded: too small? See docs/backends.md, Limits)";
}

const BackendHostSetup* startingSetup = nullptr;  // while serve() runs
uint64_t mappedBeforeStart = 0;

// The terminate handler while the host starts: an exception nothing caught is the start's failure,
// told to the parent, not a crash of the library. (Unwinding instead, through a gRPC server that
// started but could not make its threads, hung in its destructor.)
[[noreturn]] void failStart() {
  std::string what = "an exception nothing caught";
  if (const std::exception_ptr thrown = std::current_exception()) {
    try {
      std::rethrow_exception(thrown);
    } catch (const std::exception& exception) {
      what = exception.what();
    } catch (...) {
    }
  }
  (void)sendHostMessage(channel, HostMessageType::kFailed,
                        startingSetup->label() + ": the backend host could not start: " + what +
                            addressSpaceNote(*startingSetup, mappedBeforeStart));
  ::_exit(2);
}

hal::Result<Served> startServing(const BackendHostSetup& setup) {
  startingSetup = &setup;
  mappedBeforeStart = mappedMib();
  const std::terminate_handler previous = std::set_terminate(failStart);
  hal::Result<Served> served = serve(setup);
  std::set_terminate(previous);
  if (served.ok()) return served;
  hal::Error error = served.error();
  error.message += addressSpaceNote(setup, mappedBeforeStart);
  return error;
}

}  // namespace

int runBackendHost(int channelFd) {
  channel = channelFd;
  // Die with the parent; and keep the channel from the library's own children.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  ::fcntl(channelFd, F_SETFD, FD_CLOEXEC);
  installCrashHandlers(sendLastWords);
  struct sigaction report {};
  report.sa_sigaction = onReportSignal;
  report.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&report.sa_mask);
  ::sigaction(hostReportSignal(), &report, nullptr);
  auto setup = receiveSetup(channelFd);
  if (!setup.ok()) {
    std::cerr << "npu_emulator --backend-host: " << setup.error().message << std::endl;
    return 2;
  }
  prepareCrashReports("backend " + setup->label());
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
  auto served = startServing(*setup);
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
