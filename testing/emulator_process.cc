#include "testing/emulator_process.h"
#include "testing/socket_address.h"
#include "testing/unique_names.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <thread>

namespace nnremote::testing {
namespace {

// Whether a client can connect to `address`.
bool accepts(const std::string& address) {
  const std::optional<SocketAddress> name = socketAddress(address);
  if (!name) return false;
  const int probe = ::socket(name->name.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const bool connected = ::connect(probe, name->get(), name->length) == 0;
  ::close(probe);
  return connected;
}

// Connecting before the server listens would cost the client gRPC's reconnect backoff.
void waitUntilListening(const std::string& address) {
  for (int attempt = 0; attempt < 500 && !accepts(address); ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

EmulatorProcess::EmulatorProcess(const std::string& address, const std::vector<std::string>& extraFlags,
                                 const std::string& stderrFile)
    : EmulatorProcess(address, extraFlags, stderrFile, /*awaitListening=*/true) {}

std::unique_ptr<EmulatorProcess> EmulatorProcess::starting(const std::string& address,
                                                           const std::vector<std::string>& extraFlags) {
  return std::unique_ptr<EmulatorProcess>(new EmulatorProcess(address, extraFlags, "", /*awaitListening=*/false));
}

EmulatorProcess::EmulatorProcess(const std::string& address, const std::vector<std::string>& extraFlags,
                                 const std::string& stderrFile, bool awaitListening) {
  std::vector<std::string> arguments = {"npu_emulator", "--listen=" + address};
  bool devicesNamed = false;
  for (const auto& flag : extraFlags) {
    devicesNamed = devicesNamed || flag.rfind("--config=", 0) == 0 || flag.rfind("--backend=", 0) == 0;
  }
  if (!devicesNamed) arguments.push_back("--config=edge16");
  arguments.insert(arguments.end(), extraFlags.begin(), extraFlags.end());
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  // A test or benchmark killed by its pid alone (not its process group) takes its servers along.
  // The death signal follows the forking thread, not the process, so only a server started on
  // the main thread (which ends with the process) gets it: one started on a helper thread that
  // then ends (reconnect_test's restart) must live on.
  const bool onMainThread = ::gettid() == parent;
  pid_ = ::fork();
  if (pid_ == 0) {
    if (onMainThread) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);  // the parent died before the signal was asked for
    }
    if (!stderrFile.empty()) {
      const int log = ::open(stderrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (log < 0 || ::dup2(log, STDERR_FILENO) < 0) ::_exit(126);
    }
    ::execv("emulator/npu_emulator", argv.data());
    std::perror("emulator/npu_emulator");
    ::_exit(127);
  }
  if (address.rfind("unix:", 0) == 0) socketPath_ = address.substr(std::strlen("unix:"));
  if (!awaitListening) return;
  waitUntilListening(address);
  struct stat info;
  if (!socketPath_.empty() && ::stat(socketPath_.c_str(), &info) == 0) socketInode_ = info.st_ino;
}

EmulatorProcess::~EmulatorProcess() { kill(); }

void EmulatorProcess::kill() {
  if (pid_ > 0 && !exited_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    ended();
  }
}

void EmulatorProcess::ended() {
  exited_ = true;
  // A server that could not clean up (SIGKILL, a crash) leaves its socket file in /tmp. Only
  // its own: a server started since on the same address has made a new one.
  struct stat info;
  if (socketInode_ != 0 && ::stat(socketPath_.c_str(), &info) == 0 && info.st_ino == socketInode_) {
    ::unlink(socketPath_.c_str());
  }
  // And its path's lock file (emulator/unix_listener.h), unless a server holds it.
  const int lock = socketPath_.empty() ? -1 : ::open((socketPath_ + ".lock").c_str(), O_RDWR | O_CLOEXEC);
  if (lock >= 0 && ::flock(lock, LOCK_EX | LOCK_NB) == 0) ::unlink((socketPath_ + ".lock").c_str());
  if (lock >= 0) ::close(lock);
}

void EmulatorProcess::terminate() {
  if (pid_ > 0 && !exited_) ::kill(pid_, SIGTERM);
}

int EmulatorProcess::waitForExit(std::chrono::milliseconds within) {
  const auto until = std::chrono::steady_clock::now() + within;
  int status = 0;
  while (std::chrono::steady_clock::now() < until) {
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      ended();
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

std::string EmulatorProcess::uniqueAddress(const std::string& name) {
  return "unix:/tmp/nnremote-" + name + "-" + uniqueToken() + ".sock";
}

}  // namespace nnremote::testing
