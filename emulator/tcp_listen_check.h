// Why a TCP address cannot be listened on, found before gRPC or the metrics server try: both say
// only that they could not ("address in use, malformed, or a bad certificate?"; civetweb's "null
// context"), and gRPC logs a line of its own first. The host may not resolve, the port may be
// taken or privileged, or no interface of this host may have the address.
#ifndef NNREMOTE_EMULATOR_TCP_LISTEN_CHECK_H_
#define NNREMOTE_EMULATOR_TCP_LISTEN_CHECK_H_

#include "hal/result.h"
#include "wire/address.h"

namespace nnremote::emulator {

// Binds a socket to the addresses `where` resolves to, closing each at once, until one binds; if
// none does, the error for the first, naming the cause. A port is taken for good only by the
// listener that follows, so another process may still take it in between: the listener's own
// failure is then what is said.
hal::Status checkCanListen(const wire::Address& where);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_TCP_LISTEN_CHECK_H_
