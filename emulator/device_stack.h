// How npu_emulator stacks each device it serves, innermost first:
//   1. the driver: a --backend library in a supervised backend host process of its own
//      (isolated_backend.h), or loaded here behind the guard (backend_loader.h) with
//      --backend-in-process and for --config's simulator; or another emulator's device
//      (--config=remote:ADDR, remote_devices.h);
//   2. a scheduler of its own (device_scheduling.h), except remote devices: the far server
//      schedules them;
//   3. --fault (middleware/fault_injection.h), unless it strikes inside a backend host;
//   4. --dump-graphs (middleware/graph_dump_device.h);
//   5. --record (middleware/recording_device.h), outermost: the recording holds what clients saw,
//      injected faults included.
#ifndef NNREMOTE_EMULATOR_DEVICE_STACK_H_
#define NNREMOTE_EMULATOR_DEVICE_STACK_H_

#include <memory>
#include <string>
#include <vector>

#include "drivers/proxy/connection.h"
#include "emulator/backend_loader.h"
#include "emulator/device_scheduling.h"
#include "emulator/server_config.h"
#include "hal/i_device.h"
#include "hal/result.h"
#include "middleware/fault_injection.h"
#include "middleware/recording_device.h"

namespace nnremote::emulator {

struct DeviceStackOptions {
  std::string config;                 // --config: presets, NpuConfig textprotos, remote:ADDR entries
  std::vector<BackendSpec> backends;  // --backend
  // Each backend host's limits; null: --backend-in-process.
  const ServerLimits* isolation = nullptr;
  DeviceServingOptions serving;     // scheduling, pacing, the cache secret
  proxy::ConnectionOptions remote;  // how remote:ADDR is reached
  std::string fault;                // --fault, unparsed
  std::string dumpGraphs;           // --dump-graphs
  std::string record;               // --record
};

struct DeviceStack {
  std::vector<hal::SharedDevice> devices;  // what the server serves, in --config then --backend order
  // --fault injected here (released at shutdown, so that a hung execution cannot hold it).
  std::unique_ptr<middleware::FaultInjector> faults;
  // The device whose backend host injects --fault instead; empty if none does.
  std::string faultInBackendHost;
  std::shared_ptr<middleware::Recorder> recorder;  // --record's
};

// Every error names the flag or device at fault; two devices may not share a name (clients pick
// devices by name).
hal::Result<DeviceStack> stackDevices(const DeviceStackOptions& options);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_DEVICE_STACK_H_
