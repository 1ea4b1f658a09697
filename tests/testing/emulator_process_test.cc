// A server started by a test process must not outlive it: a benchmark or test killed by its pid
// alone (a watchdog, `kill PID`) left its npu_emulator running, and the leftovers skewed the
// next measurements on that machine.
#include "testing/emulator_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace nnremote::testing {
namespace {

// Gone, or a zombie that nobody has reaped yet: either way it no longer runs.
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

TEST(EmulatorProcessTest, AServerDiesWithTheProcessThatStartedIt) {
  int pipeFds[2];
  ASSERT_EQ(::pipe(pipeFds), 0);
  const std::string address = EmulatorProcess::uniqueAddress("owned");
  const pid_t owner = ::fork();
  ASSERT_GE(owner, 0);
  if (owner == 0) {
    ::close(pipeFds[0]);
    // Started on this process's main thread, as tests and benchmarks start their servers.
    EmulatorProcess server(address);
    const pid_t serverPid = server.pid();
    if (::write(pipeFds[1], &serverPid, sizeof serverPid) != sizeof serverPid) ::_exit(2);
    ::pause();  // until killed; the destructor never runs
    ::_exit(0);
  }
  ::close(pipeFds[1]);
  pid_t serverPid = -1;
  ASSERT_EQ(::read(pipeFds[0], &serverPid, sizeof serverPid), static_cast<ssize_t>(sizeof serverPid));
  ::close(pipeFds[0]);
  ASSERT_GT(serverPid, 0);
  ASSERT_TRUE(running(serverPid));

  ::kill(owner, SIGKILL);
  ASSERT_EQ(::waitpid(owner, nullptr, 0), owner);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (running(serverPid) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(running(serverPid)) << "npu_emulator " << serverPid << " outlived the process that started it";
  if (running(serverPid)) ::kill(serverPid, SIGKILL);
  // The killed server's socket file and its lock file (no one holds that lock any more).
  std::filesystem::remove(address.substr(std::strlen("unix:")));
  std::filesystem::remove(address.substr(std::strlen("unix:")) + ".lock");
}

}  // namespace
}  // namespace nnremote::testing
