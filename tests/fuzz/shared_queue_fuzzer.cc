// Fuzz target: the shared-memory burst queue's framing, against a client that misbehaves. A real
// server (wire::SharedQueue::awaitRequest, then parsing a BurstRequest from a private copy, as
// emulator/accelerator_service.cc does) serves one queue on a thread of its own; each input
// plays the client: it writes any bytes into the request area, declares any request size (up
// to 4 GiB, beyond the queue), and bumps the request sequence by any amount. The server must
// answer every request with a response that fits the queue, and never read past it.
//
// Input: 4 bytes declared size, 1 byte sequence step, then the request bytes.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "wire/nnremote.pb.h"
#include "wire/shared_queue.h"
#include "tests/fuzz/fuzz_target.h"

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

void wake(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5) return 0;
  Served& queue = served();
  SharedQueue::Header& header = queue.client->header();
  uint32_t declared = 0;
  std::memcpy(&declared, data, 4);
  const uint32_t step = 1 + data[4] % 4;
  const size_t payload = std::min(size - 5, queue.client->capacity());
  std::memcpy(queue.client->requestBuffer(), data + 5, payload);
  const uint32_t answered = header.responseSequence.load();
  header.requestSize = declared;
  header.requestSequence.fetch_add(step);
  wake(&header.requestSequence);
  // The server answers every request, a malformed one with nothing; 2 s without an answer is a
  // hang.
  const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (header.responseSequence.load() == answered) {
    if (std::chrono::steady_clock::now() > giveUp) {
      std::fprintf(stderr, "the shared queue's server did not answer\n");
      std::abort();
    }
    std::this_thread::yield();
  }
  if (header.responseSize > queue.client->capacity()) std::abort();
  return 0;
}
