// A decorator for devices from backend libraries: an exception thrown by any call into the
// backend (its device, prepared models, executions, bursts, buffers, fence callbacks) becomes a
// GENERAL_FAILURE naming the library, instead of unwinding through the server and ending it.
#ifndef NNREMOTE_MIDDLEWARE_BACKEND_GUARD_H_
#define NNREMOTE_MIDDLEWARE_BACKEND_GUARD_H_

#include <string>

#include "hal/i_device.h"

namespace nnremote::middleware {

hal::SharedDevice guardBackendDevice(hal::SharedDevice device, std::string libraryName);

}  // namespace nnremote::middleware

#endif  // NNREMOTE_MIDDLEWARE_BACKEND_GUARD_H_
