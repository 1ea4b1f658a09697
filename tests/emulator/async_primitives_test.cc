// What the server's waiting calls are built on: threads lent only while there is work
// (WorkPool), executions placed inline or on the pool (QuickExecutions), timers on one thread
// (TimerQueue), and fence waits completed by callback (SyncFence::onSignal, FenceWait,
// awaitAllFences). Waits in these tests are bounded; they
// assert order and outcomes, not durations.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <thread>

#include "emulator/fence_waits.h"
#include "emulator/quick_executions.h"
#include "emulator/timer_queue.h"
#include "emulator/work_pool.h"

namespace nnremote::emulator {
namespace {

using ::testing::HasSubstr;
using State = hal::SyncFence::State;
using namespace std::chrono_literals;

// Polls `done` for up to 10 s.
template <typename Done>
bool eventually(Done&& done) {
  for (int i = 0; i < 1000 && !done(); ++i) std::this_thread::sleep_for(10ms);
  return done();
}

TEST(WorkPoolTest, TasksNeverQueueBehindRunningOnes) {
  WorkPool pool;
  // Each task waits for all the others to start: only possible if each has its own thread.
  constexpr int kTasks = 16;
  std::atomic<int> started{0};
  std::atomic<int> finished{0};
  for (int i = 0; i < kTasks; ++i) {
    pool.submit([&] {
      ++started;
      eventually([&] { return started.load() == kTasks; });
      ++finished;
    });
  }
  EXPECT_TRUE(eventually([&] { return finished.load() == kTasks; }));
  EXPECT_GE(pool.threads(), static_cast<size_t>(kTasks));
}

TEST(WorkPoolTest, IdleThreadsAreReusedThenGiveThemselvesBack) {
  WorkPool pool(/*idleGrace=*/100ms);
  std::atomic<int> ran{0};
  pool.submit([&] { ++ran; });
  ASSERT_TRUE(eventually([&] { return ran.load() == 1 && pool.idleThreads() == 1; }));
  pool.submit([&] { ++ran; });  // taken by the idle thread
  ASSERT_TRUE(eventually([&] { return ran.load() == 2; }));
  EXPECT_EQ(pool.threads(), 1u);
  EXPECT_TRUE(eventually([&] { return pool.threads() == 0; })) << "an idle thread outlived its grace";
}

TEST(WorkPoolTest, DestructionWaitsForRunningTasks) {
  std::atomic<bool> done{false};
  {
    WorkPool pool;
    pool.submit([&] {
      std::this_thread::sleep_for(50ms);
      done = true;
    });
  }
  EXPECT_TRUE(done.load());
}

// Ended when its thread ends, after the task that made it returned: as OpenSSL's per-thread state
// is, whose cleanup must not race the process's exit.
struct EndsWithItsThread {
  std::atomic<bool>* ended = nullptr;
  ~EndsWithItsThread() {
    std::this_thread::sleep_for(50ms);  // widens the window a pool that did not join would leave
    if (ended != nullptr) *ended = true;
  }
};

TEST(WorkPoolTest, DestructionJoinsItsThreads) {
  std::atomic<bool> ended{false};
  {
    WorkPool pool;
    pool.submit([&] {
      thread_local EndsWithItsThread state;
      state.ended = &ended;
    });
  }
  EXPECT_TRUE(ended.load()) << "the pool was gone while one of its threads was still ending";
}

TEST(WorkPoolTest, ThreadsThatGaveThemselvesBackAreJoined) {
  std::atomic<bool> ended{false};
  WorkPool pool(/*idleGrace=*/10ms);
  pool.submit([&] {
    thread_local EndsWithItsThread state;
    state.ended = &ended;
  });
  ASSERT_TRUE(eventually([&] { return pool.threads() == 0; }));
  std::atomic<bool> ran{false};
  pool.submit([&] { ran = true; });  // joins the ended thread
  EXPECT_TRUE(ended.load());
  EXPECT_TRUE(eventually([&] { return ran.load(); }));
}

// Runs one execution under `key` and returns the thread it ran on, once it has run.
std::thread::id runOn(QuickExecutions& quick, QuickExecutions::Key key, std::function<void()> body = [] {}) {
  std::promise<std::thread::id> ran;
  auto where = ran.get_future();
  quick.run(key, [&ran, body] {
    body();
    ran.set_value(std::this_thread::get_id());
  });
  return where.get();
}

// Held as AcceleratorService holds them: a pool task reports its time to `quick` after the
// execution, so `quick` is declared first and destroyed after the pool has waited for its tasks.
struct QuickOnPool {
  explicit QuickOnPool(std::chrono::microseconds quickUpTo) : quick(pool, quickUpTo) {}
  QuickExecutions quick;
  WorkPool pool;
};

TEST(QuickExecutionsTest, AKeyRunsOnThePoolFirstThenInlineOnceItWasQuick) {
  QuickOnPool held(/*quickUpTo=*/std::chrono::hours(1));  // everything counts as quick
  QuickExecutions& quick = held.quick;
  const auto here = std::this_thread::get_id();
  EXPECT_NE(runOn(quick, {1, 10}), here) << "an unknown key goes to the pool";
  // The pool thread records the time after the task, so the second run waits for that record.
  ASSERT_TRUE(eventually([&] { return runOn(quick, {1, 10}) == here; }));
  EXPECT_EQ(runOn(quick, {1, 10}), here);
  EXPECT_NE(runOn(quick, {1, 11}), here) << "another prepared model of the session is another key";
  EXPECT_NE(runOn(quick, {2, 10}), here) << "another session is another key";
}

TEST(QuickExecutionsTest, ASlowKeyStaysOnThePool) {
  QuickOnPool held(/*quickUpTo=*/std::chrono::microseconds(0));  // nothing is quick
  QuickExecutions& quick = held.quick;
  const auto here = std::this_thread::get_id();
  for (int i = 0; i < 5; ++i) EXPECT_NE(runOn(quick, {1, 10}, [] { std::this_thread::sleep_for(1ms); }), here);
}

TEST(QuickExecutionsTest, OneLateRunKeepsAKeyInlineTwoInARowSendItToThePool) {
  // Quick: an empty body (it would have to be held off a CPU for 200 ms to count as slow);
  // late: one that sleeps past that.
  QuickOnPool held(/*quickUpTo=*/std::chrono::milliseconds(200));
  QuickExecutions& quick = held.quick;
  const auto here = std::this_thread::get_id();
  const auto late = [] { std::this_thread::sleep_for(250ms); };
  (void)runOn(quick, {1, 10});
  ASSERT_TRUE(eventually([&] { return runOn(quick, {1, 10}) == here; }));
  EXPECT_EQ(runOn(quick, {1, 10}, late), here);
  EXPECT_EQ(runOn(quick, {1, 10}, late), here) << "one late run among quick ones keeps the key inline";
  EXPECT_NE(runOn(quick, {1, 10}), here) << "after two late runs in a row the next goes to the pool";
  // That pool run was quick: the key comes back inline once the pool thread has recorded it.
  ASSERT_TRUE(eventually([&] { return runOn(quick, {1, 10}) == here; }));
}

TEST(QuickExecutionsTest, OnlyOneRunsInlineAtATime) {
  QuickOnPool held(std::chrono::hours(1));
  QuickExecutions& quick = held.quick;
  for (const uint64_t model : {10, 11}) {  // both keys known to be quick
    (void)runOn(quick, {1, model});
    ASSERT_TRUE(eventually([&] { return runOn(quick, {1, model}) == std::this_thread::get_id(); }));
  }
  // One thread holds the inline slot while another runs the other quick key.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> holding{false};
  std::thread holder([&] {
    (void)runOn(quick, {1, 10}, [&] {
      holding = true;
      released.wait();
    });
  });
  ASSERT_TRUE(eventually([&] { return holding.load(); }));
  std::thread other([&] { EXPECT_NE(runOn(quick, {1, 11}), std::this_thread::get_id()) << "the slot was taken"; });
  other.join();
  release.set_value();
  holder.join();
  EXPECT_EQ(runOn(quick, {1, 11}), std::this_thread::get_id()) << "the slot is free again";
}

TEST(TimerQueueTest, RunsCallbacksInTimeOrderAndNotCancelledOnes) {
  TimerQueue timers;
  std::mutex mutex;
  std::vector<int> order;
  std::promise<void> last;
  const auto now = TimerQueue::Clock::now();
  auto record = [&](int i) {
    std::lock_guard<std::mutex> lock(mutex);
    order.push_back(i);
  };
  timers.schedule(now + 60ms, [&] {
    record(3);
    last.set_value();
  });
  timers.schedule(now + 20ms, [&] { record(1); });
  const uint64_t cancelled = timers.schedule(now + 30ms, [&] { record(99); });
  timers.schedule(now - 1s, [&] { record(0); });  // already due
  timers.schedule(now + 40ms, [&] { record(2); });
  EXPECT_TRUE(timers.cancel(cancelled));
  EXPECT_FALSE(timers.cancel(cancelled));
  ASSERT_EQ(last.get_future().wait_for(10s), std::future_status::ready);
  std::lock_guard<std::mutex> lock(mutex);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(timers.pending(), 0u);
}

TEST(SyncFenceCallbackTest, RunsOnceWithTheFinalStateOrAtOnceWhenAlreadySignaled) {
  auto fence = hal::SyncFence::create();
  std::vector<State> seen;
  fence.onSignal([&](State state) { seen.push_back(state); });
  const uint64_t dropped = fence.onSignal([&](State) { seen.push_back(State::ACTIVE); });
  EXPECT_TRUE(fence.cancelOnSignal(dropped));
  EXPECT_TRUE(seen.empty());
  fence.signal(/*error=*/true);
  fence.signal();  // no effect
  EXPECT_EQ(seen, (std::vector<State>{State::ERROR}));
  EXPECT_EQ(fence.onSignal([&](State state) { seen.push_back(state); }), 0u);
  EXPECT_EQ(seen, (std::vector<State>{State::ERROR, State::ERROR}));
}

TEST(FenceWaitTest, EndsOnceBySignalDeadlineOrCancel) {
  TimerQueue timers;
  {  // signaled
    auto fence = hal::SyncFence::create();
    std::promise<State> outcome;
    FenceWait::start(fence, hal::Clock::now() + 10s, timers, [&](State state) { outcome.set_value(state); });
    fence.signal();
    EXPECT_EQ(outcome.get_future().get(), State::SIGNALED);
    EXPECT_EQ(timers.pending(), 0u) << "the deadline's timer outlived the wait";
  }
  {  // the deadline passes first
    auto fence = hal::SyncFence::create();
    std::promise<State> outcome;
    FenceWait::start(fence, hal::Clock::now() + 20ms, timers, [&](State state) { outcome.set_value(state); });
    auto future = outcome.get_future();
    ASSERT_EQ(future.wait_for(10s), std::future_status::ready);
    EXPECT_EQ(future.get(), State::ACTIVE);
    fence.signal();  // too late: nothing more happens (a second set_value would throw)
  }
  {  // cancelled
    auto fence = hal::SyncFence::create();
    std::atomic<int> calls{0};
    auto wait = FenceWait::start(fence, hal::Clock::now() + 10s, timers, [&](State) { ++calls; });
    EXPECT_TRUE(wait->cancel());
    EXPECT_FALSE(wait->cancel());
    fence.signal();
    EXPECT_EQ(calls.load(), 0);
    EXPECT_EQ(timers.pending(), 0u);
  }
}

TEST(FenceWaitTest, AwaitAllNamesTheFenceThatFailedOrWasLate) {
  TimerQueue timers;
  auto a = hal::SyncFence::create(), b = hal::SyncFence::create(), c = hal::SyncFence::create();
  {
    std::promise<hal::Status> outcome;
    awaitAllFences({{1, a}, {2, b}, {1, a}}, std::nullopt, timers, [&](hal::Status s) { outcome.set_value(s); });
    b.signal();
    a.signal();
    EXPECT_TRUE(outcome.get_future().get().ok());
  }
  {
    std::promise<hal::Status> outcome;
    awaitAllFences({{1, a}, {3, c}}, std::nullopt, timers, [&](hal::Status s) { outcome.set_value(s); });
    c.signal(/*error=*/true);
    const hal::Status status = outcome.get_future().get();
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, hal::ErrorStatus::GENERAL_FAILURE);
    EXPECT_THAT(status.error().message, HasSubstr("fence 3 signaled an error"));
  }
  {
    auto never = hal::SyncFence::create();
    std::promise<hal::Status> outcome;
    awaitAllFences({{1, a}, {4, never}}, hal::Clock::now() + 20ms, timers,
                   [&](hal::Status s) { outcome.set_value(s); });
    const hal::Status status = outcome.get_future().get();
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, hal::ErrorStatus::MISSED_DEADLINE_TRANSIENT);
    EXPECT_THAT(status.error().message, HasSubstr("fence 4 did not signal"));
  }
  {  // the same signaled fence a great many times: no recursion per entry
    std::vector<std::pair<uint64_t, hal::SyncFence>> many(200000, {1, a});
    bool ok = false;
    awaitAllFences(std::move(many), std::nullopt, timers, [&](hal::Status s) { ok = s.ok(); });
    EXPECT_TRUE(ok);
  }
}

}  // namespace
}  // namespace nnremote::emulator
