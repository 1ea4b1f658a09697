// npu_emulator --backend=PATH.so[:ARG]: loads a backend library (hal/backend_abi.h), checks
// that it speaks this server's ABI, and takes the devices it serves. Every way a library can be
// wrong (missing, not a backend, another ABI, a failing or throwing factory, no devices) is an
// error here, at startup, and the devices it returns are guarded so that an exception from them
// later fails the call instead of the server.
#ifndef NNREMOTE_EMULATOR_BACKEND_LOADER_H_
#define NNREMOTE_EMULATOR_BACKEND_LOADER_H_

#include <string>
#include <vector>

#include "hal/backend_abi.h"
#include "hal/result.h"

namespace nnremote::emulator {

struct BackendSpec {
  std::string path;
  std::string argument;  // after the first ':' that follows the library's file name
  // How errors name this library: "--backend=PATH[:ARG]" as given.
  std::string label;
};

// Splits "PATH[:ARG]". The path must name a file ending in .so (optionally versioned, .so.1).
hal::Result<BackendSpec> parseBackendSpec(const std::string& text);

// Loads the library (it stays loaded for the life of the process: its devices' code lives there)
// and returns its devices, each behind guardBackendDevice.
hal::Result<std::vector<hal::BackendDevice>> loadBackend(const BackendSpec& spec, const hal::CacheSecret& cacheSecret);

// The simulator's backend library (drivers/sim/sim_backend.so) that npu_emulator serves for
// --config: $NNREMOTE_SIM_BACKEND if set, else found next to the running binary, as Bazel lays
// them out (bin/emulator/npu_emulator, bin/drivers/sim/sim_backend.so) or installed side by
// side.
hal::Result<std::string> bundledSimulatorBackend();

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_BACKEND_LOADER_H_
