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

// A thread that waits, until the test lets it end, after running `first`; its id is known once
// the constructor returns.
class WaitingThread {
 public:
  template <typename First>
  explicit WaitingThread(First first)
      : thread_([this, first] {
          first();
          std::unique_lock<std::mutex> lock(mutex_);
          id_ = threadId();
          changed_.notify_all();
          changed_.wait(lock, [&] { return done_; });
        }) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return id_ != 0; });
  }
  ~WaitingThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  pid_t id() const { return id_; }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  pid_t id_ = 0;
  bool done_ = false;
  std::thread thread_;
};

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
