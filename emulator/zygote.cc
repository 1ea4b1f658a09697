#include "emulator/zygote.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>

#include "emulator/backend_host.h"
#include "emulator/host_channel.h"

namespace nnremote::emulator {
namespace {

// How long a forked host waits to be reparented to the server (its intermediate parent exits at
// once after forking it).
constexpr std::chrono::seconds kReparentWait{10};

// The zygote's session is a scheduler autogroup; at nice 19 it has the lowest CPU weight, which
// every host forked from it shares until it leaves the session. Any owner may set that, with no
// privilege; but without CAP_SYS_ADMIN the kernel takes one autogroup change per 100 ms for the
// whole machine and refuses others (EAGAIN), so it is retried until it takes. Where the kernel
// has no autogroups it is not tried.
constexpr int kLowestWeightNice = 19;
constexpr std::chrono::milliseconds kRetryWeightEvery{10};

enum class Weighting { kDone, kRefusedForNow, kImpossible };

Weighting weighAtLowest() {
  const int fd = ::open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Weighting::kImpossible;
  const std::string value = std::to_string(kLowestWeightNice);
  const bool written = ::write(fd, value.data(), value.size()) == static_cast<ssize_t>(value.size());
  const int error = errno;
  ::close(fd);
  if (written) return Weighting::kDone;
  return error == EAGAIN ? Weighting::kRefusedForNow : Weighting::kImpossible;
}

size_t threadCount() {
  size_t threads = 0;
  if (DIR* tasks = ::opendir("/proc/self/task")) {
    while (const dirent* entry = ::readdir(tasks)) threads += entry->d_name[0] != '.';
    ::closedir(tasks);
  }
  return threads;
}

// What ps shows for a host: its own flag, written over the zygote's (which is longer).
void renameAsHost(char** argv) {
  if (argv[0] == nullptr || argv[1] == nullptr) return;
  const std::string flag = "--backend-host=" + std::to_string(kChildChannelFd);
  const size_t room = std::strlen(argv[1]);
  if (flag.size() > room) return;
  std::memcpy(argv[1], flag.c_str(), flag.size());
  std::memset(argv[1] + flag.size(), 0, room - flag.size());
}

// In the forked host: the server's child, its channel on fd 3 and no other descriptor of the
// zygote's; then it serves as any host does. It stays in the zygote's session, at its weight,
// until the server says otherwise (BackendHostSetup.own_session, kEndProbation).
[[noreturn]] void becomeHost(int channel, pid_t server, pid_t intermediate, int pidPipe, char** argv) {
  const pid_t self = ::getpid();
  if (::write(pidPipe, &self, sizeof self) != sizeof self) ::_exit(1);
  ::close(pidPipe);
  const auto giveUp = std::chrono::steady_clock::now() + kReparentWait;
  for (;;) {
    const pid_t parent = ::getppid();
    if (parent == server) break;
    // Reparented elsewhere: the server is gone, or is not a subreaper; nobody would supervise us.
    if (parent != intermediate || std::chrono::steady_clock::now() > giveUp) ::_exit(1);
    ::usleep(100);
  }
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != server) ::_exit(1);  // it died just before
  if (::dup2(channel, kChildChannelFd) < 0) ::_exit(1);  // over the zygote's own channel
  ::close_range(kChildChannelFd + 1, ~0U, 0);
  renameAsHost(argv);
  ::_exit(runBackendHost(kChildChannelFd));
}

// The intermediate's pid, for the host it forks (a host reparented anywhere but the server
// exits).
pid_t vforkedIntermediate = 0;

// Forks a host through an intermediate that exits at once, so that the host is reparented to
// the server (a subreaper meanwhile, host_zygote.h). Returns the host's pid once that is done.
// The intermediate is vforked: it borrows the zygote's memory (the zygote waits until it exits)
// instead of copying it only to throw the copy away, which was a tenth of a restart's CPU time.
// All it does is fork the host from those pages and exit; the zygote is single-threaded, so
// nothing can hold a lock that fork() takes.
hal::Result<pid_t> forkHost(int channel, pid_t server, char** argv) {
  int pidPipe[2];
  if (::pipe2(pidPipe, O_CLOEXEC) != 0) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "zygote: pipe2: " << std::strerror(errno);
  }
  const pid_t intermediate = ::vfork();
  if (intermediate == 0) {
    // Static, not on the stack the zygote lends: the host reads its copy.
    vforkedIntermediate = ::getpid();
    if (::fork() == 0) becomeHost(channel, server, vforkedIntermediate, pidPipe[1], argv);
    ::_exit(0);
  }
  const int error = errno;
  ::close(pidPipe[1]);
  pid_t host = 0;
  ssize_t got = 0;
  if (intermediate > 0) {
    do {
      got = ::read(pidPipe[0], &host, sizeof host);
    } while (got < 0 && errno == EINTR);
    // Once the intermediate is reaped, the host is the server's child.
    while (::waitpid(intermediate, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  ::close(pidPipe[0]);
  if (intermediate < 0) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "zygote: fork: " << std::strerror(error);
  }
  if (got != sizeof host) return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "zygote: the host's fork failed";
  return host;
}

}  // namespace

int runHostZygote(int channelFd, char** argv) {
  ::unsetenv("LD_BIND_NOW");  // bound once, here; the library's own children need not be
  ::fcntl(channelFd, F_SETFD, FD_CLOEXEC);
  const pid_t server = ::getppid();
  if (const size_t threads = threadCount(); threads != 1) {
    (void)sendHostMessage(channelFd, HostMessageType::kFailed,
                          "the zygote runs " + std::to_string(threads) + " threads, so forking it is not safe");
    ::_exit(2);
  }
  if (!sendHostMessage(channelFd, HostMessageType::kReady, "").ok()) ::_exit(1);
  bool weighted = weighAtLowest() != Weighting::kRefusedForNow;
  for (;;) {
    auto message = receiveHostMessage(channelFd, weighted ? std::chrono::milliseconds(std::chrono::hours(1))
                                                          : kRetryWeightEvery);
    if (!message.ok()) break;  // the server is gone or done with us
    if (!weighted) weighted = weighAtLowest() != Weighting::kRefusedForNow;
    if (!message->has_value()) continue;
    const int channel = (*message)->descriptor;
    if ((*message)->type != HostMessageType::kSpawn || channel < 0) {
      if (channel >= 0) ::close(channel);
      continue;
    }
    auto host = forkHost(channel, server, argv);
    ::close(channel);
    const auto answered = host.ok() ? sendHostMessage(channelFd, HostMessageType::kSpawned, std::to_string(*host))
                                    : sendHostMessage(channelFd, HostMessageType::kFailed, host.error().message);
    if (!answered.ok()) break;
  }
  // No exit-time work (static destructors, a sanitizer's leak check) in a helper nobody waits for.
  ::_exit(0);
}

}  // namespace nnremote::emulator
