#include "wire/shared_queue.h"

#include <sched.h>
#include <sys/mman.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <ctime>
#include <optional>
#include <thread>

#include "wire/futex.h"

namespace nnremote::wire {
namespace {

using hal::ErrorStatus;
using hal::makeError;
using Clock = std::chrono::steady_clock;

// How long the server spins before it sleeps: long enough to catch the next request of a busy
// burst without a wake-up, short enough not to burn a core (the client's: kDefaultClientSpin).
constexpr auto kServerSpin = std::chrono::microseconds(50);
// The server spins for the next request only while requests follow answers within this: a
// client calling back to back. A client with work between its calls (a server relaying its own
// clients' executions, as a backend host's parent does) would find the spinner holding a core
// that the work between needs: on a 2-core machine that cost a sync execution through a
// backend host a fifth more than sleeping at once. Measured from the answer to the server's
// wake-up, so a sleeping server's wake-up time counts in; twice the spin leaves room for it.
// A relay whose own clients call back to back on bursts calls within that too, so a client that
// sleeps at once for its answers (Header::clientSleepsAtOnce) never has the server spin: with
// the client, the relay and a spinning server on 2 cores, a burst execution through a backend
// host took 94.5 us against 39.3 us (11.9 us in process; isolation_benchmark's burst case).
constexpr auto kBackToBack = 2 * kServerSpin;

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Waits until `word` differs from `unchanged` (or `done` says stop): spins for `spin`, then
// sleeps on the futex in slices of `slice`, announcing itself in `sleeping` so the other side
// knows to wake it. `done` is asked between slices.
template <typename Done>
bool waitForChange(std::atomic<uint32_t>& word, uint32_t unchanged, std::atomic<uint32_t>& sleeping,
                   Clock::duration spin, std::chrono::nanoseconds slice, Done&& done) {
  const auto spinUntil = Clock::now() + spin;
  while (word.load(std::memory_order_acquire) == unchanged) {
    if (Clock::now() < spinUntil) {
      for (int i = 0; i < 32; ++i) relax();
      continue;
    }
    sleeping.store(1, std::memory_order_seq_cst);
    if (word.load(std::memory_order_seq_cst) == unchanged) futexWait(&word, unchanged, slice);
    sleeping.store(0, std::memory_order_relaxed);
    if (word.load(std::memory_order_acquire) == unchanged && done()) return false;
  }
  return true;
}

// Publishes `value` in `word` and wakes the other side if it sleeps. The seq_cst store and
// load pair with the waiter's, so either the waiter sees the new value or we see it sleeping.
void publish(std::atomic<uint32_t>& word, uint32_t value, std::atomic<uint32_t>& sleeping) {
  word.store(value, std::memory_order_seq_cst);
  if (sleeping.load(std::memory_order_seq_cst) != 0) futexWake(&word);
}

std::atomic<bool> acceptingCpuHandOffs{true};

// What a server names itself in the header: its thread, or 0 (none to move) when it does not
// accept hand-offs.
int32_t threadToHandOffTo() {
  if (!acceptingCpuHandOffs.load(std::memory_order_relaxed)) return 0;
  thread_local const int32_t id = static_cast<int32_t>(::syscall(SYS_gettid));
  return id;
}

// Whether thread `thread` is one of process `process`'s (both ids in our PID namespace).
bool isThreadOf(pid_t process, int32_t thread) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/task/%d", static_cast<int>(process), static_cast<int>(thread));
  return ::access(path, F_OK) == 0;
}

// Has thread `thread` not preempt the thread that wakes it, so the waker can go to sleep first
// (SCHED_BATCH: the same share of the CPU, no wake-up preemption). Whether it now does.
bool makeWakeWithoutPreempting(int32_t thread) {
  const sched_param none{};
  return ::sched_setscheduler(thread, SCHED_BATCH, &none) == 0;
}

// For the length of one call: has the server's thread `server` on `cpu`, the CPU the caller is
// on, so that both wake-ups of the call stay on that CPU: the request wakes the server where the
// caller is about to sleep, and the answer wakes the caller where the server is about to sleep.
// The thread is moved there (`moveServer`) unless it took the last request there: moving a
// sleeping thread costs a syscall. Whatever else set its CPUs meanwhile (a backend host ending
// its probation) costs one call, which the server then takes elsewhere, and the next moves it.
// A server thread that preempts its waker (`serverPreempts`) would take the CPU while the caller
// is still on it, and the other CPU, idle, would pull the waiting caller over (seen on 97% of
// calls), its wake-up then costing an interrupt to that CPU. Against such a server the caller
// keeps to its CPU for the call, and gets back the CPUs it had at the end: two more syscalls,
// some 4 us on a virtual machine, which a server that does not preempt saves.
class CpuHandOff {
 public:
  CpuHandOff(int cpu, int32_t server, bool serverPreempts, bool moveServer) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (serverPreempts) {
      if (::sched_getaffinity(0, sizeof(allowed_), &allowed_) != 0 || ::sched_setaffinity(0, sizeof(one), &one) != 0) {
        return;
      }
      pinned_ = true;
    }
    if (moveServer) (void)::sched_setaffinity(server, sizeof(one), &one);
  }
  ~CpuHandOff() {
    if (pinned_) (void)::sched_setaffinity(0, sizeof(allowed_), &allowed_);
  }
  CpuHandOff(const CpuHandOff&) = delete;
  CpuHandOff& operator=(const CpuHandOff&) = delete;

 private:
  cpu_set_t allowed_{};
  bool pinned_ = false;
};

}  // namespace

SharedQueue::SharedQueue(hal::SharedMemory memory, size_t capacity)
    : memory_(std::move(memory)), data_(memory_->data()), capacity_(capacity), serverSpin_(kServerSpin) {}

void SharedQueue::takeRequest() {
  Header& h = header();
  lastRequest_ = h.requestSequence.load(std::memory_order_acquire);
  learnPace();
  h.serverCpu.store(::sched_getcpu(), std::memory_order_relaxed);
}

void SharedQueue::learnPace() {
  const bool backToBack = answeredAt_ == Clock::time_point{} || Clock::now() - answeredAt_ <= kBackToBack;
  const bool clientSpins = header().clientSleepsAtOnce.load(std::memory_order_relaxed) == 0;
  serverSpin_ = backToBack && clientSpins ? std::chrono::nanoseconds(kServerSpin) : std::chrono::nanoseconds::zero();
}

hal::Result<std::unique_ptr<SharedQueue>> SharedQueue::create(size_t capacity, bool startParked) {
  NN_ASSIGN_OR_RETURN(hal::SharedMemory memory, hal::createSharedMemory(sizeof(Header) + 2 * capacity));
  std::unique_ptr<SharedQueue> queue(new SharedQueue(std::move(memory), capacity));
  Header& header = *new (queue->data_) Header();
  header.capacity = static_cast<uint32_t>(capacity);
  header.serverCpu.store(-1);
  header.serverParked.store(startParked ? 1 : 0);
  return queue;
}

hal::Result<std::unique_ptr<SharedQueue>> SharedQueue::open(const std::string& name, uint64_t size) {
  if (size < sizeof(Header)) {
    return makeError(ErrorStatus::INVALID_ARGUMENT) << "shared queue " << name << " is too small (" << size << " bytes)";
  }
  NN_ASSIGN_OR_RETURN(hal::SharedMemory memory, hal::mapSharedMemory(name, size));
  // Both sides have it mapped now: the name goes, so no other process can open the queue.
  ::shm_unlink(name.c_str());
  const uint32_t capacity = reinterpret_cast<const Header*>(memory->data())->capacity;
  if (sizeof(Header) + 2 * uint64_t(capacity) != size) {
    return makeError(ErrorStatus::INVALID_ARGUMENT)
           << "shared queue " << name << " declares " << capacity << " bytes per direction in " << size << " bytes";
  }
  return std::unique_ptr<SharedQueue>(new SharedQueue(std::move(memory), capacity));
}

hal::Result<size_t> SharedQueue::call(size_t size, const std::function<bool()>& peerAlive,
                                      std::chrono::milliseconds pollInterval,
                                      const std::function<bool()>& wakeParkedServer,
                                      std::chrono::microseconds spin) {
  if (size > capacity_) {
    return makeError(ErrorStatus::GENERAL_FAILURE) << "a " << size << "-byte request exceeds the shared queue's "
                                                   << capacity_ << " bytes";
  }
  Header& h = header();
  auto gone = []() -> hal::Error { return makeError(ErrorStatus::DEAD_OBJECT) << "the burst's server went away"; };
  if (h.shutDown.load() != 0) return gone();
  h.requestSize.store(static_cast<uint32_t>(size), std::memory_order_relaxed);
  h.clientSleepsAtOnce.store(spin.count() == 0 ? 1 : 0, std::memory_order_relaxed);
  const uint32_t sequence = h.requestSequence.load(std::memory_order_relaxed) + 1;
  const uint32_t previous = h.responseSequence.load(std::memory_order_acquire);
  std::optional<CpuHandOff> handOff;
  const int32_t server = handOffTo_ > 0 ? serverThreadToMove() : 0;
  if (const int cpu = server > 0 ? ::sched_getcpu() : -1; cpu >= 0) {
    const bool there = server == handedOffTo_ && h.serverCpu.load(std::memory_order_relaxed) == cpu;
    handOff.emplace(cpu, server, /*serverPreempts=*/!verifiedThreadYields_, /*moveServer=*/!there);
    handedOffTo_ = server;
  } else {
    handedOffTo_ = 0;
  }
  publish(h.requestSequence, sequence, h.serverSleeping);
  // Paired with the server's store of serverParked and load of requestSequence (both seq_cst):
  // either it saw this request, or we see the queue parked. Whoever clears the flag first
  // restarts the service, so exactly one wake-up is sent.
  if (uint32_t parked = 1; h.serverParked.load(std::memory_order_seq_cst) != 0 &&
                           h.serverParked.compare_exchange_strong(parked, 0, std::memory_order_seq_cst)) {
    if (!wakeParkedServer || !wakeParkedServer()) {
      h.serverParked.store(1, std::memory_order_seq_cst);  // still parked: a later call tries again
      return gone();
    }
  }
  const bool answered = waitForChange(h.responseSequence, previous, h.clientSleeping, spin, pollInterval,
                                      [&] { return h.shutDown.load() != 0 || truncated() || !peerAlive(); });
  if (truncated()) {  // no answer can come through pages only this side sees
    return makeError(ErrorStatus::DEAD_OBJECT) << "the burst's shared queue was shrunk under this side's mapping";
  }
  if (!answered || h.shutDown.load() != 0) return gone();
  // Read once: a server whose memory is corrupt could change it between a check and a use, and
  // the caller reads that many bytes.
  const uint32_t responseSize = h.responseSize.load(std::memory_order_relaxed);
  if (h.responseSequence.load(std::memory_order_acquire) != sequence || responseSize > capacity_) {
    return makeError(ErrorStatus::GENERAL_FAILURE) << "the shared queue's response does not answer request "
                                                   << sequence;
  }
  return size_t{responseSize};
}

int32_t SharedQueue::serverThreadToMove() {
  // Read once, and checked once per thread named: the server names its thread again at each
  // request, and a thread of its own stays its own until it ends, when the server stops naming
  // it (a thread id may then be given to another process). Once found its own, it is made to
  // wake without preempting (see CpuHandOff), once too.
  const int32_t named = header().serverThread.load(std::memory_order_acquire);
  if (named <= 0) return 0;
  if (named != verifiedThread_) {
    if (!isThreadOf(handOffTo_, named)) return 0;
    verifiedThread_ = named;
    verifiedThreadYields_ = makeWakeWithoutPreempting(named);
  }
  return named;
}

// Closing and waking change the request word too, so a server spinning on it, or about to sleep
// on it, sees the change at once rather than at the end of its sleep.
void SharedQueue::close() {
  Header& h = header();
  h.closed.store(1, std::memory_order_seq_cst);
  h.requestSequence.fetch_add(1, std::memory_order_seq_cst);
  futexWake(&h.requestSequence);
}

bool SharedQueue::awaitRequest(size_t* size, const std::atomic<bool>& stop) {
  Header& h = header();
  h.serverThread.store(threadToHandOffTo(), std::memory_order_release);
  auto finished = [&] { return stop.load() || h.closed.load() != 0; };
  while (true) {
    if (finished()) return stopServing(false);
    const bool arrived = waitForChange(h.requestSequence, lastRequest_, h.serverSleeping, serverSpin_,
                                       std::chrono::milliseconds(100), finished);
    if (!arrived || finished()) return stopServing(false);
    takeRequest();
    *size = h.requestSize.load(std::memory_order_relaxed);
    if (*size <= capacity_) return true;
    respond(0);  // a malformed size from a misbehaving client: answer empty and go on
  }
}

SharedQueue::Awaited SharedQueue::awaitRequestOrPark(size_t* size, const std::atomic<bool>& stop,
                                                    std::chrono::nanoseconds parkAfterIdle) {
  Header& h = header();
  h.serverThread.store(threadToHandOffTo(), std::memory_order_release);
  auto finished = [&] { return stop.load() || h.closed.load() != 0; };
  const auto parkAt = Clock::now() + parkAfterIdle;
  while (true) {
    if (finished()) return stopServing(Awaited::FINISHED);
    const bool arrived =
        waitForChange(h.requestSequence, lastRequest_, h.serverSleeping, serverSpin_,
                      std::min<std::chrono::nanoseconds>(parkAfterIdle, std::chrono::milliseconds(100)),
                      [&] { return finished() || Clock::now() >= parkAt; });
    if (finished()) return stopServing(Awaited::FINISHED);
    if (!arrived) {
      h.serverParked.store(1, std::memory_order_seq_cst);
      if (h.requestSequence.load(std::memory_order_seq_cst) == lastRequest_) return stopServing(Awaited::PARKED);
      // A request came as we parked: serve it, unless its client already claimed the wake-up
      // (then its message on the stream brings us back).
      if (uint32_t parked = 1; !h.serverParked.compare_exchange_strong(parked, 0, std::memory_order_seq_cst)) {
        return stopServing(Awaited::PARKED);
      }
      continue;
    }
    takeRequest();
    *size = h.requestSize.load(std::memory_order_relaxed);
    if (*size <= capacity_) return Awaited::REQUEST;
    respond(0);  // a malformed size from a misbehaving client: answer empty and go on
  }
}

void SharedQueue::respond(size_t size) {
  Header& h = header();
  answeredAt_ = Clock::now();
  h.responseSize.store(static_cast<uint32_t>(size), std::memory_order_relaxed);
  publish(h.responseSequence, lastRequest_, h.clientSleeping);
}

void SharedQueue::shutDown() {
  Header& h = header();
  h.shutDown.store(1, std::memory_order_seq_cst);
  h.responseSequence.fetch_add(1, std::memory_order_seq_cst);
  futexWake(&h.responseSequence);
}

void SharedQueue::acceptCpuHandOffs(bool accept) { acceptingCpuHandOffs.store(accept, std::memory_order_relaxed); }

void SharedQueue::wakeServer() {
  header().requestSequence.fetch_add(1, std::memory_order_seq_cst);
  futexWake(&header().requestSequence);
}

}  // namespace nnremote::wire
