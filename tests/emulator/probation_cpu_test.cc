#include "emulator/probation_cpu.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "testing/waiting_thread.h"

namespace nnremote::emulator {
namespace {

using testing::WaitingThread;

cpu_set_t affinityOf(pid_t thread) {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(::sched_getaffinity(thread, sizeof(set), &set), 0);
  return set;
}

// Confining happens in a thread of the test's own, so the test process keeps its CPUs.
TEST(ProbationCpuTest, ConfinesToOneAllowedCpuThenGivesEveryConfinedThreadItsSetBack) {
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
    WaitingThread started([] {});
    const cpu_set_t inherited = affinityOf(started.id());
    EXPECT_TRUE(CPU_EQUAL(&inherited, &one));
    // A thread the library gives a set of its own (another CPU) keeps it.
    cpu_set_t other;
    CPU_XOR(&other, &allowed, &one);
    WaitingThread ownSet([&] { ASSERT_EQ(::sched_setaffinity(0, sizeof(other), &other), 0); });

    probation.release();
    EXPECT_FALSE(probation.confined());
    const cpu_set_t mine = affinityOf(0);
    const cpu_set_t theirs = affinityOf(started.id());
    const cpu_set_t itsOwn = affinityOf(ownSet.id());
    EXPECT_TRUE(CPU_EQUAL(&mine, &allowed));
    EXPECT_TRUE(CPU_EQUAL(&theirs, &allowed));
    EXPECT_TRUE(CPU_EQUAL(&itsOwn, &other)) << "a set the library chose is left alone";
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
