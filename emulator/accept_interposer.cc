// Puts every listener of the process that links this under the accept guard (accept_guard.h):
// gRPC's TCP listeners call accept4, civetweb's (--metrics) accept. The executable's definitions
// come before libc's in the dynamic linker's search, so the libraries' calls land here. gRPC 1.51
// offers no hook for it, and its listener cannot be handed connections from outside over TLS.
// Linked into npu_emulator only; tests exercise it through that binary.
#include <sys/socket.h>

#include "emulator/accept_guard.h"

extern "C" int accept4(int listener, sockaddr* address, socklen_t* length, int flags) {
  return nnremote::emulator::acceptGuarded(listener, address, length, flags);
}

extern "C" int accept(int listener, sockaddr* address, socklen_t* length) {
  return nnremote::emulator::acceptGuarded(listener, address, length, 0);
}
