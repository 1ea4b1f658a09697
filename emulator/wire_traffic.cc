#include "emulator/wire_traffic.h"

#include <atomic>

namespace nnremote::emulator {
namespace {

std::atomic<uint64_t> counters[2][3];

}  // namespace

void countTraffic(Direction direction, Transport transport, uint64_t bytes) {
  counters[static_cast<int>(direction)][static_cast<int>(transport)].fetch_add(bytes, std::memory_order_relaxed);
}

uint64_t trafficSoFar(Direction direction, Transport transport) {
  return counters[static_cast<int>(direction)][static_cast<int>(transport)].load(std::memory_order_relaxed);
}

const char* toString(Direction direction) { return direction == Direction::IN ? "in" : "out"; }

const char* toString(Transport transport) {
  switch (transport) {
    case Transport::INLINE: return "inline";
    case Transport::BULK: return "bulk";
    case Transport::SHARED_MEMORY: return "shared_memory";
  }
  return "unknown";
}

}  // namespace nnremote::emulator
