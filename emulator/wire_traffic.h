// The bytes requests, models and results moved through the server, by direction and transport,
// counted where memories are resolved and outputs collected (npu_emulator --metrics).
#ifndef NNREMOTE_EMULATOR_WIRE_TRAFFIC_H_
#define NNREMOTE_EMULATOR_WIRE_TRAFFIC_H_

#include <cstdint>

namespace nnremote::emulator {

enum class Direction { IN, OUT };
// INLINE: inside the call's message; BULK: a bulk upload or download stream; SHARED_MEMORY: a
// pool registered by a client on this host, read and written in place.
enum class Transport { INLINE, BULK, SHARED_MEMORY };

void countTraffic(Direction direction, Transport transport, uint64_t bytes);
// Since the process started.
uint64_t trafficSoFar(Direction direction, Transport transport);
const char* toString(Direction direction);
const char* toString(Transport transport);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_WIRE_TRAFFIC_H_
