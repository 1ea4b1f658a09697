// The nnremote wire version, one number for the client and the server: a session is opened only
// when both speak the same one. Raise it with any change to proto/nnremote.proto that an older
// peer would misread (version 2: every executor's answer is one ExecutionOutcome).
#ifndef NNREMOTE_PROTO_WIRE_VERSION_H_
#define NNREMOTE_PROTO_WIRE_VERSION_H_

#include <cstdint>

namespace nnremote::wire_conv {

constexpr uint32_t kWireVersion = 2;

}  // namespace nnremote::wire_conv

#endif  // NNREMOTE_PROTO_WIRE_VERSION_H_
