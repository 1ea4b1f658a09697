#include "emulator/host_zygote.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

extern char** environ;

namespace nnremote::emulator {
namespace {

// Loading npu_emulator with every symbol bound: once, in the zygote, not in every host.
constexpr std::chrono::seconds kStartupWait{30};
constexpr std::chrono::seconds kSpawnWait{30};  // the zygote and its forks run at the lowest weight

// One spawn at a time in this process: the subreaper flag below is the whole process's. Spawns
// are rare (a host's start or restart), so nobody waits long.
std::mutex& spawning() {
  static auto* mutex = new std::mutex;
  return *mutex;
}

// This process as a child subreaper while it lasts (and as it was after): a host orphaned by the
// zygote's intermediate comes to us; library helpers orphaned at other times go to init as usual.
class Subreaper {
 public:
  Subreaper() {
    int was = 0;
    wasAlready_ = ::prctl(PR_GET_CHILD_SUBREAPER, &was) == 0 && was != 0;
    active_ = wasAlready_ || ::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
  }
  ~Subreaper() {
    if (active_ && !wasAlready_) ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  }
  Subreaper(const Subreaper&) = delete;
  Subreaper& operator=(const Subreaper&) = delete;

  // False where the kernel, or an emulator such as qemu-user, refuses it.
  bool active() const { return active_; }

 private:
  bool wasAlready_ = false;
  bool active_ = false;
};

// posix_spawn of `executable` with `channel` on fd 3 and `flag`, a session of its own with no
// signal blocked (the server's threads block SIGINT and SIGTERM for its signal thread) and no
// other descriptor of ours: not our listening socket, not our clients'.
hal::Result<pid_t> spawnWithChannel(const std::string& executable, const std::string& flag, int channel,
                                    char* const environment[]) {
  int childEnd = channel;
  if (childEnd == kChildChannelFd) {  // dup2 onto itself would keep FD_CLOEXEC
    childEnd = ::fcntl(channel, F_DUPFD_CLOEXEC, kChildChannelFd + 1);
    if (childEnd < 0) return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "fcntl: " << std::strerror(errno);
  }
  char* argv[] = {const_cast<char*>(executable.c_str()), const_cast<char*>(flag.c_str()), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, childEnd, kChildChannelFd);
  posix_spawn_file_actions_addclosefrom_np(&actions, kChildChannelFd + 1);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, executable.c_str(), &actions, &attributes, argv, environment);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (childEnd != channel) ::close(childEnd);
  if (spawned != 0) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
           << "cannot start " << executable << " " << flag << ": " << std::strerror(spawned);
  }
  return pid;
}

// Our environment with LD_BIND_NOW=1 (the zygote unsets it again, for the hosts).
std::vector<std::string> zygoteEnvironment() {
  std::vector<std::string> environment;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    if (std::strncmp(*variable, "LD_BIND_NOW=", 12) != 0) environment.emplace_back(*variable);
  }
  environment.emplace_back("LD_BIND_NOW=1");
  return environment;
}

}  // namespace

HostZygote& HostZygote::of(const std::string& executable) {
  static auto* zygotes = new std::map<std::string, std::unique_ptr<HostZygote>>;
  std::lock_guard<std::mutex> lock(spawning());
  auto& zygote = (*zygotes)[executable];
  if (zygote == nullptr) zygote.reset(new HostZygote(executable));
  return *zygote;
}

hal::Result<pid_t> HostZygote::spawn(int channel) {
  std::lock_guard<std::mutex> lock(spawning());
  const Subreaper subreaper;  // before the zygote starts too: its descendants look for it
  if (!subreaper.active()) {
    // A forked host would be orphaned to init: start it afresh, a session of its own (so no
    // probation at the zygote's weight either).
    return spawnWithChannel(executable_, "--backend-host=" + std::to_string(kChildChannelFd), channel, environ);
  }
  // A zygote that died since the last spawn is noticed as the request is sent, and started again.
  for (int attempt = 0;; ++attempt) {
    if (pid_ == 0) NN_RETURN_IF_ERROR(start());
    auto sent = sendHostDescriptor(channel_, HostMessageType::kSpawn, "", channel);
    if (sent.ok()) break;
    stop();
    if (attempt == 1) return hal::withContext(sent.error(), "the backend hosts' zygote");
  }
  auto answer = receiveHostMessage(channel_, kSpawnWait);
  if (!answer.ok() || !answer->has_value()) {
    // Gone, or stuck, with our request: start afresh next time. A host it may have forked finds
    // its channel closed by our caller and exits.
    stop();
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
           << "the backend hosts' zygote " << (answer.ok() ? "did not answer" : "died") << " while forking a host";
  }
  if ((*answer)->type == HostMessageType::kFailed) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << (*answer)->payload;
  }
  const pid_t host = static_cast<pid_t>(std::strtol((*answer)->payload.c_str(), nullptr, 10));
  if ((*answer)->type != HostMessageType::kSpawned || host <= 0) {
    stop();
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "the backend hosts' zygote answered nonsense";
  }
  return host;
}

hal::Status HostZygote::start() {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "zygote: socketpair: " << std::strerror(errno);
  }
  const std::vector<std::string> environment = zygoteEnvironment();
  std::vector<char*> envp;
  for (const auto& variable : environment) envp.push_back(const_cast<char*>(variable.c_str()));
  envp.push_back(nullptr);
  auto spawned = spawnWithChannel(executable_, "--backend-zygote=" + std::to_string(kChildChannelFd), ends[1],
                                  envp.data());
  ::close(ends[1]);
  if (!spawned.ok()) {
    ::close(ends[0]);
    return spawned.error();
  }
  pid_ = *spawned;
  channel_ = ends[0];
  auto hello = receiveHostMessage(channel_, kStartupWait);
  if (hello.ok() && hello->has_value() && (*hello)->type == HostMessageType::kReady) return {};
  const std::string why = !hello.ok()             ? "it ended before serving"
                          : !hello->has_value()   ? "it did not start within " + std::to_string(kStartupWait.count()) + " s"
                          : (*hello)->payload;
  stop();
  return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "cannot start the backend hosts' zygote: " << why;
}

void HostZygote::stop() {
  if (pid_ == 0) return;
  ::kill(pid_, SIGKILL);
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  ::close(channel_);
  pid_ = 0;
  channel_ = -1;
}

}  // namespace nnremote::emulator
