// The same-host shared-memory queue between two real processes, and its ways of ending: the
// client closing, the server shutting down, a peer that is gone, an oversized message, an answer
// that does not fit or answers another request; and a client handing its CPU to the server for a
// call.
#include "wire/shared_queue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace nnremote::wire {
namespace {

using ::testing::HasSubstr;

// Server side of the echo used below: answers each request with its bytes reversed.
void serveReversed(SharedQueue& queue, const std::atomic<bool>& stop, int* served) {
  size_t size = 0;
  while (queue.awaitRequest(&size, stop)) {
    const uint8_t* in = queue.receivedRequest();
    uint8_t* out = queue.responseBufferForWriting();
    for (size_t i = 0; i < size; ++i) out[i] = in[size - 1 - i];
    queue.respond(size);
    ++*served;
  }
}

// Spinning for the answer, and (a relay's client, as a backend host's parent is) sleeping at
// once, so every answer comes through the futex wake-up.
class SharedQueueSpinTest : public ::testing::TestWithParam<std::chrono::microseconds> {};

INSTANTIATE_TEST_SUITE_P(ClientSpins, SharedQueueSpinTest,
                         ::testing::Values(SharedQueue::kDefaultClientSpin, std::chrono::microseconds(0)),
                         [](const auto& info) { return info.param.count() > 0 ? "Spinning" : "SleepingAtOnce"; });

TEST_P(SharedQueueSpinTest, ExchangesMessagesWithAnotherProcess) {
  const std::chrono::microseconds spin = GetParam();
  auto queue = SharedQueue::create(/*capacity=*/4096);
  ASSERT_TRUE(queue.ok()) << queue.error().message;
  const std::string name = (*queue)->name();
  const uint64_t size = (*queue)->size();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The client: 1000 round trips, then close. Exit code 0 means every answer was right.
    auto client = SharedQueue::open(name, size);
    if (!client.ok()) ::_exit(2);
    for (int i = 0; i < 1000; ++i) {
      const std::string message = "message " + std::to_string(i);
      std::memcpy((*client)->requestBuffer(), message.data(), message.size());
      auto length = (*client)->call(message.size(), [] { return true; }, std::chrono::milliseconds(100), nullptr, spin);
      if (!length.ok() || *length != message.size()) ::_exit(3);
      const std::string answer(reinterpret_cast<const char*>((*client)->responseBuffer()), *length);
      if (answer != std::string(message.rbegin(), message.rend())) ::_exit(4);
    }
    (*client)->close();
    ::_exit(0);
  }
  std::atomic<bool> stop{false};
  int served = 0;
  serveReversed(**queue, stop, &served);  // returns when the client closes
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(served, 1000);
}

// A server spins for the next request of a client calling back to back, unless that client
// sleeps at once for its answers (a relay, whose next request comes after work of its own, which
// the spinner would take a core from): then the server sleeps at once too. Whether a spinning
// client's later requests came back to back depends on the machine's timing, so only its first
// request's spin is asserted (the first counts as back to back); a sleeping client's hold
// whatever the timing.
TEST(SharedQueueTest, TheServerSpinsForTheNextRequestOnlyWhileItsClientSpinsForAnswers) {
  using std::chrono::microseconds;
  // Each call's client spin, and the server's spin for the next request as set by that call.
  auto spinsAfterCalls = [](const std::vector<microseconds>& clientSpins) {
    std::vector<std::chrono::nanoseconds> spins;
    auto server = SharedQueue::create(/*capacity=*/64);
    EXPECT_TRUE(server.ok()) << server.error().message;
    if (!server.ok()) return spins;
    auto client = SharedQueue::open((*server)->name(), (*server)->size());
    EXPECT_TRUE(client.ok()) << client.error().message;
    if (!client.ok()) return spins;
    std::atomic<bool> stop{false};
    // Read by the serving thread as it takes each request, and by this one after the join: the
    // answer orders it too, but through the queue's other mapping, which ThreadSanitizer cannot
    // tell is the same memory.
    std::thread serving([&] {
      size_t size = 0;
      while ((*server)->awaitRequest(&size, stop)) {
        spins.push_back((*server)->spinForNextRequest());
        (*server)->respond(0);
      }
    });
    for (const microseconds clientSpin : clientSpins) {
      (*client)->requestBuffer()[0] = 'x';
      auto answered = (*client)->call(
          1, [] { return true; }, std::chrono::milliseconds(100), nullptr, clientSpin);
      EXPECT_TRUE(answered.ok()) << answered.error().message;
      // What the next request tells the server: the client's latest wait.
      EXPECT_EQ((*client)->header().clientSleepsAtOnce.load(), clientSpin.count() == 0 ? 1u : 0u);
    }
    (*client)->close();
    serving.join();
    EXPECT_EQ(spins.size(), clientSpins.size());
    return spins;
  };
  const auto spinning = spinsAfterCalls({SharedQueue::kDefaultClientSpin});
  ASSERT_EQ(spinning.size(), 1u);
  EXPECT_GT(spinning[0].count(), 0);
  const auto sleeping = spinsAfterCalls({microseconds(0), microseconds(0), microseconds(0)});
  ASSERT_EQ(sleeping.size(), 3u);
  for (const auto spin : sleeping) EXPECT_EQ(spin.count(), 0);
  // A relay that spins again clears the word, so its server may spin again.
  spinsAfterCalls({microseconds(0), SharedQueue::kDefaultClientSpin});
}

TEST(SharedQueueTest, AServerThatShutsDownAnswersWaitingAndLaterCallsWithDeadObject) {
  auto server = SharedQueue::create(1024);
  ASSERT_TRUE(server.ok());
  auto client = SharedQueue::open((*server)->name(), (*server)->size());
  ASSERT_TRUE(client.ok()) << client.error().message;
  // Nobody serves; the server shuts down while the client waits.
  std::thread shutdown([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    (*server)->shutDown();
  });
  auto waiting = (*client)->call(3, [] { return true; });
  shutdown.join();
  ASSERT_FALSE(waiting.ok());
  EXPECT_EQ(waiting.error().code, hal::ErrorStatus::DEAD_OBJECT);
  auto later = (*client)->call(3, [] { return true; });
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(later.error().code, hal::ErrorStatus::DEAD_OBJECT);
}

TEST(SharedQueueTest, AClientStopsWaitingWhenItsPeerIsGone) {
  auto server = SharedQueue::create(1024);
  auto client = SharedQueue::open((*server)->name(), (*server)->size());
  ASSERT_TRUE(client.ok());
  int polls = 0;
  auto outcome = (*client)->call(1, [&] { return ++polls < 3; }, std::chrono::milliseconds(5));
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, hal::ErrorStatus::DEAD_OBJECT);
  EXPECT_EQ(polls, 3);
}

TEST(SharedQueueTest, OversizedMessagesAndBadRegionsAreRefused) {
  auto server = SharedQueue::create(64);
  auto wrongSize = SharedQueue::open((*server)->name(), (*server)->size() - 8);
  ASSERT_FALSE(wrongSize.ok());
  auto client = SharedQueue::open((*server)->name(), (*server)->size());
  ASSERT_TRUE(client.ok());
  auto tooBig = (*client)->call(65, [] { return true; });
  ASSERT_FALSE(tooBig.ok());
  EXPECT_THAT(tooBig.error().message, HasSubstr("exceeds the shared queue's 64 bytes"));
  auto missing = SharedQueue::open("/nnremote-no-such-queue", 4096);
  EXPECT_FALSE(missing.ok());
}

// The server may be a backend host whose library corrupts its memory: an answer that claims more
// than the queue holds, or answers another request, is an error, never bytes to read.
TEST(SharedQueueTest, AnAnswerBeyondTheQueueOrToAnotherRequestIsAnError) {
  auto server = SharedQueue::create(64);
  auto client = SharedQueue::open((*server)->name(), (*server)->size());
  ASSERT_TRUE(client.ok());
  std::atomic<bool> stop{false};
  std::thread serving([&] {
    size_t size = 0;
    if (!(*server)->awaitRequest(&size, stop)) return;
    (*server)->respond(65);  // one byte past the response area
    if (!(*server)->awaitRequest(&size, stop)) return;
    SharedQueue::Header& header = (*server)->header();
    header.responseSize.store(1);
    header.responseSequence.store(header.requestSequence.load() + 7);  // not the request's number
  });
  auto oversized = (*client)->call(1, [] { return true; });
  ASSERT_FALSE(oversized.ok());
  EXPECT_EQ(oversized.error().code, hal::ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(oversized.error().message, HasSubstr("does not answer request 1"));
  auto misnumbered = (*client)->call(
      1, [] { return true; }, std::chrono::milliseconds(5));
  serving.join();
  ASSERT_FALSE(misnumbered.ok());
  EXPECT_THAT(misnumbered.error().message, HasSubstr("does not answer request 2"));
}

TEST(SharedQueueTest, TheQueueIsPrivateAndItsNameGoesOnceBothSidesHaveIt) {
  auto server = SharedQueue::create(64);
  ASSERT_TRUE(server.ok());
  const std::string file = "/dev/shm" + (*server)->name();
  struct stat status {};
  ASSERT_EQ(::stat(file.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0600u);
  auto client = SharedQueue::open((*server)->name(), (*server)->size());
  ASSERT_TRUE(client.ok());
  EXPECT_NE(::stat(file.c_str(), &status), 0) << "the queue can still be opened by name";
  EXPECT_FALSE(SharedQueue::open((*server)->name(), (*server)->size()).ok());
}

TEST(SharedQueueTest, ClosingWakesAWaitingServer) {
  auto server = SharedQueue::create(64);
  auto client = SharedQueue::open((*server)->name(), (*server)->size());
  ASSERT_TRUE(client.ok());
  std::atomic<bool> stop{false};
  std::thread closer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    (*client)->close();
  });
  size_t size = 0;
  EXPECT_FALSE((*server)->awaitRequest(&size, stop));
  closer.join();
}

// A server that parks after `parkAfter` idle and serves again only when the client's wake
// callback says so, as the emulator does over a burst's stream. Every call must be answered,
// and the client must wake the server only when it had parked (never twice for one park).
TEST(SharedQueueTest, AParkedServerIsWokenExactlyOncePerParkAndAnswersEveryRequest) {
  for (const auto parkAfter : {std::chrono::nanoseconds(0), std::chrono::nanoseconds(20000)}) {
    SCOPED_TRACE("park after " + std::to_string(parkAfter.count()) + " ns");
    auto server = SharedQueue::create(/*capacity=*/64, /*startParked=*/true);
    ASSERT_TRUE(server.ok());
    auto client = SharedQueue::open((*server)->name(), (*server)->size());
    ASSERT_TRUE(client.ok());

    std::mutex mutex;
    std::condition_variable woken;
    int wakesPending = 0, wakes = 0, parks = 0, served = 0;
    bool parked = true;  // as created
    bool wokenTwice = false;
    std::atomic<bool> stop{false};
    std::thread serving([&] {
      while (true) {
        {
          // Parked: wait for a wake-up, as the emulator waits for the stream's message.
          std::unique_lock<std::mutex> lock(mutex);
          woken.wait(lock, [&] { return wakesPending > 0 || stop.load(); });
          if (wakesPending == 0) return;
          --wakesPending;
          parked = false;
        }
        size_t size = 0;
        SharedQueue::Awaited awaited;
        while ((awaited = (*server)->awaitRequestOrPark(&size, stop, parkAfter)) == SharedQueue::Awaited::REQUEST) {
          std::memcpy((*server)->responseBufferForWriting(), (*server)->receivedRequest(), size);
          (*server)->respond(size);
          ++served;
        }
        if (awaited == SharedQueue::Awaited::FINISHED) return;
        std::lock_guard<std::mutex> lock(mutex);
        parked = true;
        ++parks;
      }
    });
    auto wake = [&] {
      std::lock_guard<std::mutex> lock(mutex);
      // A wake for a server that is still serving would be a second wake for one park.
      if (wakesPending > 0) wokenTwice = true;
      ++wakesPending;
      ++wakes;
      woken.notify_all();
      return true;
    };
    constexpr int kCalls = 3000;
    const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    int answered = 0;
    for (int i = 0; i < kCalls && std::chrono::steady_clock::now() < giveUp; ++i) {
      const uint32_t value = static_cast<uint32_t>(i);
      std::memcpy((*client)->requestBuffer(), &value, sizeof(value));
      auto length = (*client)->call(sizeof(value), [] { return true; }, std::chrono::milliseconds(100), wake);
      ASSERT_TRUE(length.ok()) << length.error().message;
      uint32_t echoed = 0;
      std::memcpy(&echoed, (*client)->responseBuffer(), sizeof(echoed));
      ASSERT_EQ(echoed, value);
      ++answered;
      // Now and then idle long enough for the server to park.
      if (i % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(60));
    }
    EXPECT_EQ(answered, kCalls);
    (*client)->close();
    stop.store(true);
    (*server)->wakeServer();
    {
      std::lock_guard<std::mutex> lock(mutex);
      woken.notify_all();
    }
    serving.join();
    EXPECT_EQ(served, kCalls);
    EXPECT_FALSE(wokenTwice);
    EXPECT_GE(wakes, 1) << "it started parked";
    // Every wake but the first followed a park.
    EXPECT_LE(wakes, parks + 1);
    if (parkAfter.count() == 0) {
      EXPECT_GT(parks, 10) << "a server that parks at once parked rarely";
    }
  }
}

TEST(SharedQueueTest, AClientThatCannotWakeAParkedServerGetsDeadObject) {
  auto server = SharedQueue::create(/*capacity=*/64, /*startParked=*/true);
  ASSERT_TRUE(server.ok());
  auto client = SharedQueue::open((*server)->name(), (*server)->size());
  ASSERT_TRUE(client.ok());
  auto noWake = (*client)->call(1, [] { return true; });
  ASSERT_FALSE(noWake.ok());
  EXPECT_EQ(noWake.error().code, hal::ErrorStatus::DEAD_OBJECT);
  auto streamGone = (*client)->call(1, [] { return true; }, std::chrono::milliseconds(100), [] { return false; });
  ASSERT_FALSE(streamGone.ok());
  EXPECT_EQ(streamGone.error().code, hal::ErrorStatus::DEAD_OBJECT);
}

// What the server's thread may use while it answers, as the client reads it from the answer.
struct ServerPlace {
  cpu_set_t allowed;
  int cpu;
  int policy;  // its scheduling policy
};

std::vector<int> cpusIn(const cpu_set_t& set) {
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

cpu_set_t ownCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(::sched_getaffinity(0, sizeof(set), &set), 0);
  return set;
}

void keepTo(const cpu_set_t& set) { ASSERT_EQ(::sched_setaffinity(0, sizeof(set), &set), 0); }

cpu_set_t only(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return set;
}

// A queue whose server, a thread of this process, answers each request with where the serving
// thread may run and runs, until stop() or the end of the scope.
class WhereaboutsQueue {
 public:
  WhereaboutsQueue() {
    auto server = SharedQueue::create(1024);
    if (!server.ok()) {
      ADD_FAILURE() << server.error().message;
      return;
    }
    auto client = SharedQueue::open((*server)->name(), (*server)->size());
    if (!client.ok()) {
      ADD_FAILURE() << client.error().message;
      return;
    }
    server_ = std::move(server).value();
    client_ = std::move(client).value();
    serving_ = std::thread([this] {
      size_t size = 0;
      while (server_->awaitRequest(&size, stop_)) {
        ServerPlace place{ownCpus(), ::sched_getcpu(), ::sched_getscheduler(0)};
        std::memcpy(server_->responseBufferForWriting(), &place, sizeof(place));
        server_->respond(sizeof(place));
      }
    });
  }
  ~WhereaboutsQueue() { stop(); }
  bool ok() const { return client_ != nullptr; }
  SharedQueue& client() { return *client_; }

  ServerPlace ask() {
    auto length = client_->call(
        1, [] { return true; }, std::chrono::milliseconds(100), nullptr, std::chrono::microseconds(0));
    EXPECT_TRUE(length.ok());
    ServerPlace place{};
    if (length.ok() && *length == sizeof(place)) std::memcpy(&place, client_->responseBuffer(), sizeof(place));
    return place;
  }

  void stop() {
    if (!serving_.joinable()) return;
    stop_ = true;
    server_->wakeServer();
    serving_.join();
  }

 private:
  std::unique_ptr<SharedQueue> server_, client_;
  std::atomic<bool> stop_{false};
  std::thread serving_;
};

TEST(SharedQueueTest, AClientHandingOffItsCpuHasTheServerAnswerOnThatCpuAndGetsItsOwnCpusBack) {
  WhereaboutsQueue queue;
  ASSERT_TRUE(queue.ok());
  queue.client().handOffCpu(::getpid());
  const cpu_set_t all = ownCpus();
  // The server names its thread as it starts waiting, which a first call may come before.
  (void)queue.ask();
  // Wherever the client is, the server follows, and nowhere else while it answers.
  for (int cpu : cpusIn(all)) {
    keepTo(only(cpu));
    const ServerPlace place = queue.ask();
    EXPECT_EQ(cpusIn(place.allowed), std::vector<int>{cpu});
    EXPECT_EQ(place.cpu, cpu);
    const cpu_set_t own = ownCpus(), one = only(cpu);
    EXPECT_TRUE(CPU_EQUAL(&own, &one) != 0) << "the client did not get its CPU back";
  }
  // A client free to run anywhere keeps to one CPU for the call only.
  keepTo(all);
  const ServerPlace place = queue.ask();
  EXPECT_EQ(cpusIn(place.allowed).size(), 1u);
  const cpu_set_t after = ownCpus();
  EXPECT_TRUE(CPU_EQUAL(&after, &all) != 0) << "the client did not get its CPUs back";
  // And the server's thread, woken on the client's CPU, does not take it from the client.
  EXPECT_EQ(place.policy, SCHED_BATCH);
}

// A move costs a syscall, so a thread that took the last request on the caller's CPU is left
// where it is; moved elsewhere meanwhile, it takes one request there and the next call brings
// it back.
TEST(SharedQueueTest, AServerThreadMovedAwayIsBroughtBackAfterOneCall) {
  const std::vector<int> cpus = cpusIn(ownCpus());
  if (cpus.size() < 2) GTEST_SKIP() << "one CPU: the server's thread cannot be elsewhere";
  const cpu_set_t all = ownCpus();
  WhereaboutsQueue queue;
  ASSERT_TRUE(queue.ok());
  queue.client().handOffCpu(::getpid());
  keepTo(only(cpus.front()));
  // The server names its thread as it starts waiting, which a first call may come before.
  (void)queue.ask();
  EXPECT_EQ(queue.ask().cpu, cpus.front());
  const int32_t server = queue.client().header().serverThread.load();
  ASSERT_GT(server, 0);
  const cpu_set_t away = only(cpus.back());
  ASSERT_EQ(::sched_setaffinity(server, sizeof(away), &away), 0);
  EXPECT_EQ(queue.ask().cpu, cpus.back()) << "the client moved a thread it had already moved";
  const ServerPlace back = queue.ask();
  keepTo(all);
  EXPECT_EQ(back.cpu, cpus.front());
  EXPECT_EQ(cpusIn(back.allowed), std::vector<int>{cpus.front()});
}

// The serving thread's name is the server's word, in memory the server may have corrupted: a
// client moves no thread that is not the server process's, however named.
TEST(SharedQueueTest, AHandOffMovesNoThreadOfAnotherProcess) {
  const cpu_set_t all = ownCpus();
  if (cpusIn(all).size() < 2) GTEST_SKIP() << "one CPU: no thread can be kept to fewer";
  const pid_t other = ::fork();
  ASSERT_GE(other, 0);
  if (other == 0) {
    ::pause();  // until killed
    ::_exit(0);
  }
  struct Reap {
    pid_t pid;
    ~Reap() {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  } reap{other};
  WhereaboutsQueue queue;
  ASSERT_TRUE(queue.ok());
  queue.client().handOffCpu(::getpid());
  (void)queue.ask();
  auto& header = queue.client().header();
  // Once the server waits for the next request (having named its own thread again), its name
  // is overwritten with the other process's.
  const auto giveUpAt = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (header.serverSleeping.load() == 0 && std::chrono::steady_clock::now() < giveUpAt) std::this_thread::yield();
  ASSERT_NE(header.serverSleeping.load(), 0u) << "the server never waited";
  header.serverThread.store(other);
  keepTo(only(cpusIn(all).front()));
  (void)queue.ask();
  keepTo(all);
  cpu_set_t othersCpus;
  CPU_ZERO(&othersCpus);
  ASSERT_EQ(::sched_getaffinity(other, sizeof(othersCpus), &othersCpus), 0);
  EXPECT_TRUE(CPU_EQUAL(&othersCpus, &all) != 0)
      << "the other process was moved to " << ::testing::PrintToString(cpusIn(othersCpus));
  EXPECT_EQ(::sched_getscheduler(other), SCHED_OTHER) << "the other process's scheduling was changed";
}

// A server thread that stops serving the queue is no longer named in it: its id may be given to
// another process's thread later.
TEST(SharedQueueTest, AServerThreadThatStopsServingIsNoLongerNamed) {
  WhereaboutsQueue queue;
  ASSERT_TRUE(queue.ok());
  (void)queue.ask();
  EXPECT_GT(queue.client().header().serverThread.load(), 0);
  queue.stop();
  EXPECT_EQ(queue.client().header().serverThread.load(), 0);
  // And a server that parks its idle queue unnames its thread too.
  auto idle = SharedQueue::create(1024);
  ASSERT_TRUE(idle.ok());
  size_t size = 0;
  const std::atomic<bool> never{false};
  EXPECT_EQ((*idle)->awaitRequestOrPark(&size, never, std::chrono::milliseconds(1)), SharedQueue::Awaited::PARKED);
  EXPECT_EQ((*idle)->header().serverThread.load(), 0);
}

// Neither a client that does not hand its CPU off, nor one whose server does not accept it (a
// backend host on probation, keeping to one CPU), moves the server's thread.
class NoHandOffTest : public ::testing::TestWithParam<bool> {};

INSTANTIATE_TEST_SUITE_P(Who, NoHandOffTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "ServerRefuses" : "ClientKeepsIt"; });

TEST_P(NoHandOffTest, TheServerAnswersFromWhereItWas) {
  const bool serverRefuses = GetParam();
  SharedQueue::acceptCpuHandOffs(!serverRefuses);
  // Whatever fails below, later tests find the process accepting hand-offs again.
  struct AcceptAgain {
    ~AcceptAgain() { SharedQueue::acceptCpuHandOffs(true); }
  } acceptAgain;
  WhereaboutsQueue queue;
  ASSERT_TRUE(queue.ok());
  queue.client().handOffCpu(serverRefuses ? ::getpid() : 0);
  const cpu_set_t all = ownCpus();
  keepTo(only(cpusIn(all).back()));
  (void)queue.ask();  // after the server named itself (or did not)
  const ServerPlace place = queue.ask();
  keepTo(all);
  EXPECT_TRUE(CPU_EQUAL(&place.allowed, &all) != 0)
      << "the server was moved to " << ::testing::PrintToString(cpusIn(place.allowed));
  EXPECT_EQ(place.policy, SCHED_OTHER);
}

}  // namespace
}  // namespace nnremote::wire
