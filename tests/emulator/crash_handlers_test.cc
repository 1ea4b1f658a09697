// emulator/crash_handlers.h: every other thread's stack, after a report's first thread, as a hang's
// report shows them. Each thread that can take the signal writes its own; one that cannot is
// named with why, and where the kernel says it waits.
#include "emulator/crash_handlers.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "emulator/crash_report.h"
#include "emulator/thread_wait.h"
#include "testing/waiting_thread.h"

namespace nnremote::emulator {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;

// A thread that names itself and waits; `blocksTheSignal`: it blocks the stack signal first.
auto named(const char* name, bool blocksTheSignal) {
  return [name, blocksTheSignal] {
    ::pthread_setname_np(::pthread_self(), name);
    if (!blocksTheSignal) return;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, threadStackSignal());
    ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
  };
}

// What reportOtherThreads wrote on stderr.
std::string reportOtherThreadsToAFile() {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/threads.txt";
  const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int savedStderr = ::dup(STDERR_FILENO);
  ::dup2(file, STDERR_FILENO);
  reportOtherThreads();
  ::dup2(savedStderr, STDERR_FILENO);
  ::close(savedStderr);
  ::close(file);
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(CrashHandlersTest, EveryOtherThreadWritesItsStackOrIsNamedWithWhyItCannot) {
  installCrashHandlers();
  prepareCrashReports("backend --backend=libvendor.so");
  testing::WaitingThread waiting(named("vendor_waiting", /*blocksTheSignal=*/false));
  testing::WaitingThread blocking(named("vendor_blocking", /*blocksTheSignal=*/true));
  // Once it sleeps in its condition variable (a futex), 10 s at most.
  for (int i = 0; i < 10000 && readThreadWait(blocking.id()).syscall != SYS_futex; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const std::string report = reportOtherThreadsToAFile();
  EXPECT_THAT(report, HasSubstr("npu_emulator: backend --backend=libvendor.so (pid " + std::to_string(::getpid()) +
                                "): its other threads:\n"));
  // Where it waits: in the condition variable (the waiter's own lambda may be inlined).
  const std::string section = "npu_emulator: thread " + std::to_string(waiting.id()) + " (vendor_waiting); its stack:\n";
  const size_t at = report.find(section);
  ASSERT_NE(at, std::string::npos) << report;
  const std::string stack = report.substr(at + section.size(), report.find("npu_emulator: thread", at + 1) - at);
  EXPECT_THAT(stack, HasSubstr("npu_emulator:   #00 pc 0x")) << report;
  EXPECT_THAT(stack, HasSubstr("(pthread_cond_wait)")) << report;
  // Named with why it has no stack, and where the kernel says it waits.
  EXPECT_THAT(report, HasSubstr("npu_emulator: thread " + std::to_string(blocking.id()) +
                                " (vendor_blocking) blocks the signal that asks for its stack: no stack; it is in "
                                "system call futex"));
  EXPECT_THAT(report, ContainsRegex("\\(vendor_blocking\\) [^\n]*; where it will go on:\nnpu_emulator:   #00 pc 0x"));
  // Not this thread, whose report came first.
  EXPECT_THAT(report, ::testing::Not(HasSubstr("thread " + std::to_string(::gettid()) + " (")));
}

}  // namespace
}  // namespace nnremote::emulator
