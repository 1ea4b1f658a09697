// A request/response channel in POSIX shared memory between a client and a server on one host,
// for bursts: one request in flight at a time, each side writing its message in place and waking
// the other through a futex on a word in the shared region (the idea of Android's FMQ with its
// event flag). Saves the gRPC frames, HTTP/2 and socket hops of a stream message.
//
// The server creates the region under an unguessable name and tells the client the name over
// the burst's gRPC stream; the stream also stays the liveness signal: when it ends, the server
// stops serving the queue and removes the region.
//
// A server may park an idle queue, so an idle burst holds no thread: it stops waiting on the
// futex and marks the queue parked; a client that then finds a request of its own waiting in a
// parked queue claims the wake-up (exactly one side does) and asks the server over the stream
// to serve the queue again.
#ifndef NNREMOTE_WIRE_SHARED_QUEUE_H_
#define NNREMOTE_WIRE_SHARED_QUEUE_H_

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "hal/memory.h"
#include "hal/result.h"

namespace nnremote::wire {

class SharedQueue {
 public:
  // Room for one message each way.
  static constexpr size_t kDefaultCapacity = 256 << 10;
  // How long a client spins for its answer before it sleeps, unless told otherwise: long enough
  // to catch a tiny execution's answer without a wake-up, short enough not to burn a core.
  static constexpr std::chrono::microseconds kDefaultClientSpin{50};

  // Server side: creates a region with `capacity` bytes for each direction, parked if
  // `startParked` (the first request then wakes the server through the client's callback).
  static hal::Result<std::unique_ptr<SharedQueue>> create(size_t capacity = kDefaultCapacity,
                                                          bool startParked = false);
  // Client side: maps the region the server created.
  static hal::Result<std::unique_ptr<SharedQueue>> open(const std::string& name, uint64_t size);

  const std::string& name() const { return memory_->sharedName(); }
  uint64_t size() const { return memory_->size(); }
  size_t capacity() const { return capacity_; }
  // The peer shrank the region under this side's mapping (hal/truncation_guard.h, where armed):
  // it now holds zeros of this side's own, so nothing more can pass through it.
  bool truncated() const { return memory_->truncated(); }

  // ---- Client ----
  // Where to write the next request (capacity() bytes).
  uint8_t* requestBuffer() { return data_ + sizeof(Header); }
  // Sends the `size` bytes written to requestBuffer() and waits for the response, asking
  // `peerAlive` every `pollInterval` while it sleeps; false from it ends the wait with
  // DEAD_OBJECT. If the server parked the queue, `wakeParkedServer` asks it to come back (false
  // if it could not: DEAD_OBJECT). On success, the response is at responseBuffer() for the
  // returned size.
  // It spins for `spin` before it sleeps.
  hal::Result<size_t> call(size_t size, const std::function<bool()>& peerAlive,
                           std::chrono::milliseconds pollInterval = std::chrono::milliseconds(100),
                           const std::function<bool()>& wakeParkedServer = nullptr,
                           std::chrono::microseconds spin = kDefaultClientSpin);
  const uint8_t* responseBuffer() const { return data_ + sizeof(Header) + capacity_; }
  // Whether each call() hands its CPU to the server for the wait: the server's thread is moved
  // to the CPU the calling thread is on, so the request and the answer each wake a thread on the
  // CPU the waker is about to leave, rather than one idle elsewhere (where a wake-up costs an
  // interrupt to the other CPU: on a virtual machine some 40 us each way). `serverProcess` is
  // the server's process id, in the caller's PID namespace (a backend host the caller started),
  // or 0 for no hand-off (the default). The server names its serving thread in the queue, and
  // the name is the server's word: a server whose memory is corrupt may name any thread. So only
  // a thread of `serverProcess` is moved. The client also makes that thread SCHED_BATCH, so that
  // a request wakes it without it preempting the client, which would then be pulled to the other
  // CPU unless it kept to its own for the call (as it does when the thread could not be made so;
  // see the .cc). A move costs a syscall (some 2 us on a virtual machine), so a call moves the
  // thread only when it did not take the last request on the caller's CPU.
  void handOffCpu(pid_t serverProcess) { handOffTo_ = serverProcess; }
  // Tells the server no more requests will come.
  void close();

  // ---- Server ----
  // Waits for the next request; false once the client closed the queue or `stop` is set (check
  // it after waking the queue with wakeServer()). On true, the request is at
  // receivedRequest() for `*size` bytes.
  bool awaitRequest(size_t* size, const std::atomic<bool>& stop);
  // awaitRequest for a server that parks: after `parkAfterIdle` without a request it parks the
  // queue and returns PARKED; serve again (call this) once the client asks over the stream.
  enum class Awaited { REQUEST, PARKED, FINISHED };
  Awaited awaitRequestOrPark(size_t* size, const std::atomic<bool>& stop, std::chrono::nanoseconds parkAfterIdle);
  const uint8_t* receivedRequest() const { return data_ + sizeof(Header); }
  uint8_t* responseBufferForWriting() { return data_ + sizeof(Header) + capacity_; }
  // Publishes the `size` bytes written to responseBufferForWriting().
  void respond(size_t size);
  // Whether clients handing off their CPU (handOffCpu) may move this process's serving threads,
  // from their next awaitRequest on. Yes unless told otherwise; no while the process keeps to
  // fewer CPUs on purpose (a backend host on probation), which a moved thread would leave.
  static void acceptCpuHandOffs(bool accept);
  // How long the server's next awaitRequest spins before it sleeps (set as each request is taken).
  std::chrono::nanoseconds spinForNextRequest() const { return serverSpin_; }
  // Wakes a server waiting in awaitRequest, so it can see `stop`.
  void wakeServer();
  // Tells a client waiting in call(), or calling later, that no answer will come. Also for the
  // client's side, on behalf of a server it has seen die (proxy::Connection::serverDied).
  void shutDown();

  // The region's layout, which both processes read and write: at the start of the region; the
  // futex words must be 32-bit and naturally aligned. Public so tests can play a misbehaving
  // peer; everything else goes through the methods above.
  struct Header {
    std::atomic<uint32_t> requestSequence;   // bumped by the client per request
    std::atomic<uint32_t> responseSequence;  // set by the server to the answered request
    std::atomic<uint32_t> serverSleeping;    // the server is (about to be) in a futex wait
    std::atomic<uint32_t> clientSleeping;
    std::atomic<uint32_t> closed;            // by the client: no more requests
    std::atomic<uint32_t> shutDown;          // by the server: no more responses
    std::atomic<uint32_t> serverParked;      // 1: the server serves again only when woken
    uint32_t capacity;
    // Atomic too, though the sequences order them: the peer may be a process whose memory is
    // corrupt and rewrites them at any time, and each is read once.
    std::atomic<uint32_t> requestSize;
    std::atomic<uint32_t> responseSize;
    // The thread id of the thread serving the queue, while one serves it (0: none).
    std::atomic<int32_t> serverThread;
    // The CPU the server took the last request on (-1: none yet), so a client handing off its
    // CPU moves the server's thread only when it is not already where the client calls from.
    std::atomic<int32_t> serverCpu;
    // 1 while the client sleeps at once for its answers (call()'s spin is 0): a relay, whose next
    // request comes only after work of its own. The server then sleeps at once too.
    std::atomic<uint32_t> clientSleepsAtOnce;
  };
  static_assert(std::atomic<uint32_t>::is_always_lock_free);
  Header& header() { return *reinterpret_cast<Header*>(data_); }

 private:
  SharedQueue(hal::SharedMemory memory, size_t capacity);

  hal::SharedMemory memory_;
  uint8_t* data_;
  size_t capacity_;
  uint32_t lastRequest_ = 0;  // server: the last request sequence served
  pid_t handOffTo_ = 0;       // client: the server process whose thread a call may move
  int32_t verifiedThread_ = 0;  // client: the last thread the server named found to be its own
  bool verifiedThreadYields_ = false;  // client: whether it was made to wake without preempting
  int32_t handedOffTo_ = 0;            // client: the thread the last call handed its CPU to
  // Client: the thread the server names, if it is one of handOffTo_'s; else 0.
  int32_t serverThreadToMove();
  // Server: how long it spins for the next request, and when it last answered. learnPace(),
  // called as each request arrives, spins only for a client calling back to back (see the .cc).
  std::chrono::nanoseconds serverSpin_;
  std::chrono::steady_clock::time_point answeredAt_{};
  void learnPace();
  // Server: takes the request the client published (its sequence, pace and where it is taken).
  void takeRequest();
  // Server: returns `result` after unnaming the serving thread, which leaves the queue (its id
  // may later be another process's, which a hand-off must not move).
  template <typename T>
  T stopServing(T result) {
    header().serverThread.store(0, std::memory_order_release);
    return result;
  }
};

}  // namespace nnremote::wire

#endif  // NNREMOTE_WIRE_SHARED_QUEUE_H_
