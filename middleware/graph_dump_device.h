// npu_emulator --dump-graphs=DIR: a device decorator that writes every model it is asked to
// prepare as DIR/<device>-<n>.dot and .html (hal/graph_dump.h), before preparing it, so a model
// that crashes or hangs a backend is on disk already.
#ifndef NNREMOTE_MIDDLEWARE_GRAPH_DUMP_DEVICE_H_
#define NNREMOTE_MIDDLEWARE_GRAPH_DUMP_DEVICE_H_

#include <string>
#include <vector>

#include "hal/i_device.h"
#include "hal/result.h"

namespace nnremote::middleware {

// Creates DIR if needed; fails if it cannot be written.
hal::Result<std::vector<hal::SharedDevice>> dumpGraphsOf(std::vector<hal::SharedDevice> devices,
                                                         const std::string& directory);

}  // namespace nnremote::middleware

#endif  // NNREMOTE_MIDDLEWARE_GRAPH_DUMP_DEVICE_H_
