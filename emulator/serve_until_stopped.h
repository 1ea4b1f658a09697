// npu_emulator's life once its devices are stacked: serve them, optionally export metrics and
// join a farm's pool, and shut down cleanly on SIGINT or SIGTERM (takeStopSignals).
#ifndef NNREMOTE_EMULATOR_SERVE_UNTIL_STOPPED_H_
#define NNREMOTE_EMULATOR_SERVE_UNTIL_STOPPED_H_

#include <chrono>
#include <string>

#include "emulator/device_stack.h"
#include "emulator/emulator_server.h"

namespace nnremote::emulator {

struct RunOptions {
  std::string listen;   // --listen
  ServerOptions server;  // security, quotas, access
  bool paceRealtime = false;
  std::string fault;    // --fault, to say so
  std::string metrics;  // --metrics=HOST:PORT; empty: none
  // --etcd: the pool the devices are registered in once serving; empty endpoints: none.
  std::string etcd;
  std::string advertise;
  std::string pool;
  std::chrono::seconds etcdTtl{5};
};

// Blocks SIGINT and SIGTERM in the calling thread, and so in every thread it starts afterwards,
// and starts the one thread that takes them. Call it before anything starts a thread (a backend
// host's supervisor, gRPC's pollers): a thread with them unblocked would take the signal's
// default action, ending the server without its clean stop. Until serveUntilStopped serves, a
// stop signal ends the process at once (stacking the devices can take a backend host's whole
// startup timeout); from then on it stops the server cleanly.
void takeStopSignals();

// Returns the process's exit status: 0 after a clean stop, 1 if the server cannot start, 2 for
// a --metrics or --etcd that cannot be used (the message names the flag).
int serveUntilStopped(DeviceStack stack, const RunOptions& options);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_SERVE_UNTIL_STOPPED_H_
