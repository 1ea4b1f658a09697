// emulator/thread_wait.h: where the kernel says a thread waits, for a crash report's thread that
// cannot write its own stack. Real threads, blocked in real system calls.
#include "emulator/thread_wait.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "middleware/fault_injection.h"
#include "testing/proc_status.h"
#include "testing/sanitizers.h"

namespace nnremote::emulator {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

std::string described(const ThreadWait& wait) {
  SignalSafeText<1023> line;
  describeThreadWait(wait, line);
  return line.c_str();
}

// Waits (10 s at most) until `thread` is in system call `number`, or any of `numbers`.
ThreadWait waitUntilIn(pid_t thread, std::initializer_list<long> numbers) {
  ThreadWait wait;
  const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    wait = readThreadWait(thread);
    for (const long number : numbers) {
      if (wait.known && wait.syscall == number) return wait;
    }
    if (std::chrono::steady_clock::now() > giveUp) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ADD_FAILURE() << "thread " << thread << " never reached the system call; last seen: " << described(wait);
  return wait;
}

char stateOf(pid_t thread) {
  const std::string state = testing::procStatusText("/proc/self/task/" + std::to_string(thread) + "/status", "State");
  return state.empty() ? '?' : state[0];
}

TEST(ThreadWaitTest, AThreadBlockedInAReadIsInThatCallOnItsFile) {
  int pipe[2];
  ASSERT_EQ(::pipe2(pipe, O_CLOEXEC), 0);
  std::atomic<pid_t> reader{0};
  std::thread thread([&] {
    reader = ::gettid();
    char byte;
    (void)!::read(pipe[0], &byte, 1);
  });
  while (reader.load() == 0) std::this_thread::yield();
  const ThreadWait wait = waitUntilIn(reader, {SYS_read});
  EXPECT_EQ(wait.arguments[0], static_cast<uint64_t>(pipe[0]));
  EXPECT_NE(wait.pc, 0u);
  EXPECT_THAT(described(wait), MatchesRegex("in system call read \\(fd " + std::to_string(pipe[0]) +
                                            ": pipe:\\[[0-9]+\\]\\)(, sleeping in the kernel in .+)?"));
  ASSERT_EQ(::write(pipe[1], "x", 1), 1);
  thread.join();
  ::close(pipe[0]);
  ::close(pipe[1]);
}

TEST(ThreadWaitTest, AThreadThatIsGoneIsNotKnownToWait) {
  std::atomic<pid_t> ended{0};
  std::thread([&] { ended = ::gettid(); }).join();
  const ThreadWait wait = readThreadWait(ended);
  EXPECT_FALSE(wait.known);
  EXPECT_EQ(described(wait), "");
}

TEST(ThreadWaitTest, AnInjectedKernelHangSleepsUninterruptiblyInVforkUntilReleased) {
  if (testing::kUnderThreadSanitizer) {
    GTEST_SKIP() << "ThreadSanitizer runs vfork as fork, whose caller waits in wait4, interruptibly";
  }
  auto plan = middleware::parseFaultPlan("kernel_hang:0");
  ASSERT_TRUE(plan.ok());
  middleware::FaultInjector injector(*plan);
  std::atomic<pid_t> hung{0};
  hal::Status status;
  std::thread thread([&] {
    hung = ::gettid();
    status = injector.beforeExecution("device", nullptr);
  });
  while (hung.load() == 0) std::this_thread::yield();
    // glibc's vfork is the vfork system call on x86-64, clone on aarch64.
#ifdef SYS_vfork
  const ThreadWait wait = waitUntilIn(hung, {SYS_vfork, SYS_clone});
#else
  const ThreadWait wait = waitUntilIn(hung, {SYS_clone});
#endif
  EXPECT_EQ(stateOf(hung), 'D');
  EXPECT_THAT(described(wait), AnyOf(HasSubstr("in system call vfork"), HasSubstr("in system call clone")));
  injector.releaseAll();
  thread.join();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, hal::ErrorStatus::DEAD_OBJECT);
  EXPECT_THAT(status.error().message, HasSubstr("hang in the kernel"));
}

TEST(ThreadWaitTest, ACallIsNamedWithItsFileAndRequestWhereItTakesThem) {
  const int file = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(file, 0);
  ThreadWait wait;
  wait.known = true;
  wait.syscall = SYS_ioctl;
  wait.arguments[0] = static_cast<uint64_t>(file);
  wait.arguments[1] = 0xc0184e01;
  std::strcpy(wait.kernelFunction, "npu_wait_done");
  EXPECT_EQ(described(wait), "in system call ioctl (fd " + std::to_string(file) +
                                 ": /dev/null, request 0xc0184e01), sleeping in the kernel in npu_wait_done");
  ::close(file);
  wait.syscall = SYS_futex;
  wait.kernelFunction[0] = '\0';
  EXPECT_EQ(described(wait), "in system call futex");
  wait.syscall = 999;
  EXPECT_EQ(described(wait), "in system call number 999");
  wait.syscall = -1;
  EXPECT_EQ(described(wait), "in user space");
}

}  // namespace
}  // namespace nnremote::emulator
