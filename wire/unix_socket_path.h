// What is at a unix socket address's path, as both ends of the wire need to know it: the server
// before it binds there (replace a stale socket, refuse a live one or a file), the client when
// nothing answered there (to say why).
#ifndef NNREMOTE_WIRE_UNIX_SOCKET_PATH_H_
#define NNREMOTE_WIRE_UNIX_SOCKET_PATH_H_

#include <string>

namespace nnremote::wire {

enum class UnixSocketPathState {
  kMissing,     // nothing at the path
  kNotASocket,  // a file of another kind
  kStale,       // a socket nothing listens on (a connect is refused): what a killed server leaves
  kListening,   // a socket something listens on (a connect succeeds, or its backlog is full)
  kUnknown,     // cannot tell (e.g. another user's socket); `error` says why
};

struct UnixSocketPath {
  UnixSocketPathState state = UnixSocketPathState::kUnknown;
  int error = 0;  // the errno behind kUnknown
};

// Looks at `path` and, for a socket, tries a non-blocking connect (closed at once).
UnixSocketPath probeUnixSocketPath(const std::string& path);

}  // namespace nnremote::wire

#endif  // NNREMOTE_WIRE_UNIX_SOCKET_PATH_H_
