#include "emulator/probation_cpu.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <thread>

namespace nnremote::emulator {
namespace {

cpu_set_t affinityOf(pid_t thread) {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(::sched_getaffinity(thread, sizeof(set), &set), 0);
  return set;
}

pid_t threadId() { return static_cast<pid_t>(::syscall(SYS_gettid)); }

// Confining happens in a thread of the test's own, so the test process keeps its CPUs.
TEST(ProbationCpuTest, ConfinesToOneAllowedCpuThenGivesEveryThreadItsSetBack) {
  const cpu_set_t allowed = affinityOf(0);
  if (CPU_COUNT(&allowed) < 2) GTEST_SKIP() << "this process may use only one CPU: there is nothing to confine";

  std::thread confined([&] {
    ProbationCpu probation = ProbationCpu::confine(1);
    ASSERT_TRUE(probation.confined());
    const cpu_set_t one = affinityOf(0);
    ASSERT_EQ(CPU_COUNT(&one), 1);
    cpu_set_t within;
    CPU_AND(&within, &one, &allowed);
    EXPECT_TRUE(CPU_EQUAL(&within, &one)) << "the CPU is one the thread was allowed";

    // A thread started while confined inherits the one CPU; release() must find it too.
    std::mutex mutex;
    std::condition_variable changed;
    pid_t startedId = 0;
    bool released = false;
    std::thread started([&] {
      std::unique_lock<std::mutex> lock(mutex);
      startedId = threadId();
      changed.notify_all();
      changed.wait(lock, [&] { return released; });
    });
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return startedId != 0; });
    }
    const cpu_set_t inherited = affinityOf(startedId);
    EXPECT_TRUE(CPU_EQUAL(&inherited, &one));

    probation.release();
    EXPECT_FALSE(probation.confined());
    const cpu_set_t mine = affinityOf(0);
    const cpu_set_t theirs = affinityOf(startedId);
    EXPECT_TRUE(CPU_EQUAL(&mine, &allowed));
    EXPECT_TRUE(CPU_EQUAL(&theirs, &allowed));
    {
      std::lock_guard<std::mutex> lock(mutex);
      released = true;
    }
    changed.notify_all();
    started.join();
  });
  confined.join();
}

TEST(ProbationCpuTest, SpreadPicksDifferentCpus) {
  const cpu_set_t allowed = affinityOf(0);
  if (CPU_COUNT(&allowed) < 2) GTEST_SKIP() << "this process may use only one CPU: there is nothing to spread over";
  cpu_set_t picked;
  CPU_ZERO(&picked);
  for (unsigned spread = 0; spread < 2; ++spread) {
    std::thread confined([&] {
      ProbationCpu probation = ProbationCpu::confine(spread);
      const cpu_set_t one = affinityOf(0);
      CPU_OR(&picked, &picked, &one);
      probation.release();
    });
    confined.join();
  }
  EXPECT_EQ(CPU_COUNT(&picked), 2) << "two consecutive spreads pick two CPUs";
}

}  // namespace
}  // namespace nnremote::emulator
