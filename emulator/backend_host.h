// The child side of backend isolation: `npu_emulator --backend-host=FD` serves one backend
// library on a private unix socket for the npu_emulator that started it, which reaches it through
// the proxy driver (backend_process.h). FD is the host channel (host_channel.h) the parent
// passed; the setup, readiness and health checks travel on it. Nothing is printed to stdout.
#ifndef NNREMOTE_EMULATOR_BACKEND_HOST_H_
#define NNREMOTE_EMULATOR_BACKEND_HOST_H_

namespace nnremote::emulator {

// Runs the backend host until the parent closes the channel or dies; returns the exit status.
int runBackendHost(int channelFd);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_BACKEND_HOST_H_
