// Accepting a connection must never stop a listener. gRPC 1.51's TCP listener gives up for good
// on any accept4 error but EAGAIN and ECONNABORTED (grpc/grpc#20418): one moment without a free
// descriptor, say while a client leaks connections, and the server accepts no one again, even
// after the descriptors come back. A listener of our own that retries at once instead spins a
// core, because the connection it cannot take stays pending.
//
// acceptGuarded() is accept4 for listeners. Out of descriptors, it takes each pending connection
// with a descriptor held in reserve and closes it, so the client is refused at once instead of
// waiting for a timeout, and reports EAGAIN: the caller waits for the next connection, and the
// listener lives on. Errors that belong to one connection (it was reset, its network failed) are
// skipped, as accept(2) advises; a lack of kernel memory is reported as EAGAIN.
#ifndef NNREMOTE_EMULATOR_ACCEPT_GUARD_H_
#define NNREMOTE_EMULATOR_ACCEPT_GUARD_H_

#include <sys/socket.h>

#include <cstdint>

namespace nnremote::emulator {

// Opens the reserve descriptor, so that it exists before the descriptors run out. Idempotent;
// acceptGuarded() arms it too, but only once descriptors are free again.
void armAcceptGuard();

// accept4(2), with the policy above. A blocking listener is refused the pending connections that
// one look finds (civetweb's, behind --metrics, polls before it accepts).
int acceptGuarded(int listener, sockaddr* address, socklen_t* length, int flags);

// Connections refused for want of a descriptor since the process started.
uint64_t connectionsRefusedWithoutDescriptors();

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_ACCEPT_GUARD_H_
