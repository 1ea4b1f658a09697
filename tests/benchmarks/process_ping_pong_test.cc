// The floor's ping-pong answers each round trip from a process of its own, keeps both sides to
// the caller's CPU only while asked, notices a dead peer, and leaves no process behind.
#include "benchmarks/process_ping_pong.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace nnremote::benchmarks {
namespace {

std::vector<int> cpusOf(pid_t pid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(::sched_getaffinity(pid, sizeof(set), &set), 0);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

TEST(ProcessPingPongTest, RoundTripsGoToAnotherProcessKeptToTheCallersCpuMeanwhile) {
  const std::vector<int> ownBefore = cpusOf(0);
  auto pingPong = ProcessPingPong::start();
  ASSERT_NE(pingPong, nullptr);
  const pid_t other = pingPong->otherSide();
  EXPECT_NE(other, ::getpid());
  {
    const auto onOneCpu = pingPong->keepToOneCpu();
    const std::vector<int> own = cpusOf(0);
    ASSERT_EQ(own.size(), 1u);
    EXPECT_EQ(cpusOf(other), own);
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE(pingPong->roundTrip()) << "round trip " << i;
    EXPECT_EQ(::sched_getscheduler(other), SCHED_BATCH);
  }
  EXPECT_EQ(cpusOf(0), ownBefore) << "the caller did not get its CPUs back";
  pingPong.reset();
  errno = 0;
  EXPECT_EQ(::kill(other, 0), -1) << "the other side outlived its ProcessPingPong";
  EXPECT_EQ(errno, ESRCH);
}

TEST(ProcessPingPongTest, ARoundTripToADeadPeerFails) {
  auto pingPong = ProcessPingPong::start();
  ASSERT_NE(pingPong, nullptr);
  ASSERT_TRUE(pingPong->roundTrip());
  ASSERT_EQ(::kill(pingPong->otherSide(), SIGKILL), 0);
  // Dead before the next ping, which it could otherwise still answer; left for it to reap.
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, pingPong->otherSide(), &info, WEXITED | WNOWAIT), 0);
  EXPECT_FALSE(pingPong->roundTrip());
  EXPECT_FALSE(pingPong->roundTrip());
}

}  // namespace
}  // namespace nnremote::benchmarks
