// What the client and the server agree on besides the schema, defined once for both.
#ifndef NNREMOTE_WIRE_WIRE_CONSTANTS_H_
#define NNREMOTE_WIRE_WIRE_CONSTANTS_H_

#include <cstdint>

namespace nnremote::wire {

// The wire version: a session is opened only when both speak the same one. Raise it with any
// change to wire/nnremote.proto that an older peer would misread (version 2: every executor's
// answer is one ExecutionOutcome).
constexpr uint32_t kWireVersion = 2;

// Where npu_emulator listens, and clients look, when nobody says otherwise.
constexpr const char* kDefaultServerAddress = "unix:/tmp/nnremote.sock";

}  // namespace nnremote::wire

#endif  // NNREMOTE_WIRE_WIRE_CONSTANTS_H_
