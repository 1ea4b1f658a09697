// Fuzz target: the shared-memory burst queue's framing, against a peer that misbehaves, in both
// directions.
//
// A misbehaving client: a real server (wire::SharedQueue::awaitRequest, then parsing a
// BurstRequest from a private copy, as emulator/burst_reactor.cc does) serves one queue on a
// thread of its own; the input writes any bytes into the request area, declares any request size
// (up to 4 GiB, beyond the queue), and bumps the request sequence by any amount. The server must
// answer every request with a response that fits the queue, and never read past it.
//
// A misbehaving server (a backend host whose library corrupts its memory): a real client
// (SharedQueue::call, then parsing a BurstResponse from a private copy, as
// drivers/proxy/proxy_burst.cc does) calls a server thread that answers with any bytes, any
// declared size and any sequence number, and then keeps rewriting the size while the client
// reads it. The client must get an error or a size that fits the queue, never read past it.
//
// Input: 4 bytes declared size, 1 byte (bit 7: the server misbehaves; bits 0-1: the sequence
// step less one), then the request or response bytes.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "tests/fuzz/fuzz_target.h"
#include "wire/futex.h"
#include "wire/nnremote.pb.h"
#include "wire/shared_queue.h"

namespace {

using nnremote::wire::SharedQueue;

constexpr size_t kCapacity = 4096;

struct Served {
  std::unique_ptr<SharedQueue> server, client;  // two mappings of one region
  std::atomic<bool> stop{false};
  std::thread thread;
};

Served& served() {
  static Served* queue = [] {
    auto* made = new Served();
    made->server = std::move(SharedQueue::create(kCapacity)).value();
    made->client = std::move(SharedQueue::open(made->server->name(), made->server->size())).value();
    made->thread = std::thread([made] {
      size_t size = 0;
      nnremote::wire::BurstRequest message;
      std::string bytes;
      while (made->server->awaitRequest(&size, made->stop)) {
        if (size > made->server->capacity()) std::abort();  // awaitRequest must never hand this out
        bytes.assign(reinterpret_cast<const char*>(made->server->receivedRequest()), size);
        const bool parsed = message.ParseFromString(bytes);
        // Answer with as much as the parsed message would take, bounded like the real server.
        const size_t answer = parsed ? std::min(message.ByteSizeLong(), made->server->capacity()) : 0;
        std::memset(made->server->responseBufferForWriting(), 0x5a, answer);
        made->server->respond(answer);
      }
    });
    return made;
  }();
  return *queue;
}

// Bounds a wait for the other thread: 2 s without progress is a hang.
template <typename Condition>
void awaitOrAbort(Condition&& condition, const char* what) {
  const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > giveUp) {
      std::fprintf(stderr, "%s\n", what);
      std::abort();
    }
    std::this_thread::yield();
  }
}

// What the misbehaving server answers the next request with. Written before the client's call
// publishes its request, so the server's awaitRequest orders it.
struct Answer {
  std::string bytes;
  uint32_t declared = 0;
  uint32_t step = 1;  // the sequence it answers: the request's plus step - 1
};

struct Misserved {
  std::unique_ptr<SharedQueue> server, client;
  std::atomic<bool> stop{false};
  Answer answer;
  std::atomic<uint32_t> answered{0};  // answers written, the size's rewriting included
  std::thread thread;
};

// How often the server rewrites the size after answering: enough to land between a client's
// check of it and a use of it, bounded so that every input ends.
constexpr int kRewrites = 256;

Misserved& misserved() {
  static Misserved* queue = [] {
    auto* made = new Misserved();
    made->server = std::move(SharedQueue::create(kCapacity)).value();
    made->client = std::move(SharedQueue::open(made->server->name(), made->server->size())).value();
    made->thread = std::thread([made] {
      size_t size = 0;
      while (made->server->awaitRequest(&size, made->stop)) {
        const Answer& answer = made->answer;
        std::memcpy(made->server->responseBufferForWriting(), answer.bytes.data(),
                    std::min(answer.bytes.size(), made->server->capacity()));
        SharedQueue::Header& header = made->server->header();
        header.responseSize.store(answer.declared);
        header.responseSequence.store(header.requestSequence.load() + answer.step - 1);
        nnremote::wire::futexWake(&header.responseSequence);
        for (int i = 0; i < kRewrites; ++i) {
          header.responseSize.store(i % 2 == 0 ? UINT32_MAX : answer.declared, std::memory_order_relaxed);
        }
        made->answered.fetch_add(1);
      }
    });
    return made;
  }();
  return *queue;
}

// The client's side of one exchange with the misbehaving server.
void callAMisbehavingServer(uint32_t declared, uint32_t step, const uint8_t* bytes, size_t size) {
  Misserved& queue = misserved();
  queue.answer.bytes.assign(reinterpret_cast<const char*>(bytes), size);
  queue.answer.declared = declared;
  queue.answer.step = step;
  const uint32_t before = queue.answered.load();
  // An answer that repeats the last one's number is no answer: the client waits until its peer
  // is declared gone, as a backend host's health check would.
  const auto giveUp = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  auto length = queue.client->call(
      1, [&] { return std::chrono::steady_clock::now() < giveUp; }, std::chrono::milliseconds(1));
  if (length.ok()) {
    if (*length > queue.client->capacity()) std::abort();
    const std::string copy(reinterpret_cast<const char*>(queue.client->responseBuffer()), *length);
    nnremote::wire::BurstResponse response;
    (void)response.ParseFromString(copy);
  }
  // Its rewriting done before the next input, so that each input is one exchange.
  awaitOrAbort([&] { return queue.answered.load() != before; }, "the misbehaving server did not finish");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5) return 0;
  uint32_t declared = 0;
  std::memcpy(&declared, data, 4);
  const uint32_t step = 1 + data[4] % 4;
  if ((data[4] & 0x80) != 0) {
    callAMisbehavingServer(declared, step, data + 5, size - 5);
    return 0;
  }
  Served& queue = served();
  SharedQueue::Header& header = queue.client->header();
  const size_t payload = std::min(size - 5, queue.client->capacity());
  std::memcpy(queue.client->requestBuffer(), data + 5, payload);
  const uint32_t answered = header.responseSequence.load();
  header.requestSize = declared;
  header.requestSequence.fetch_add(step);
  nnremote::wire::futexWake(&header.requestSequence);
  // The server answers every request, a malformed one with nothing.
  awaitOrAbort([&] { return header.responseSequence.load() != answered; }, "the shared queue's server did not answer");
  if (header.responseSize > queue.client->capacity()) std::abort();
  return 0;
}
