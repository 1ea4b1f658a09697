// sim_backend.so: the simulator as a backend library, for npu_emulator --backend=sim_backend.so[:DEVICES].
// DEVICES is what --config takes (presets or NpuConfig textproto paths, comma-separated);
// without it, the default set. Serving it this way gives the same devices as --config does, and
// keeps the backend ABI exercised by the tests.
#include "drivers/sim/npu_config.h"
#include "drivers/sim/sim_device.h"
#include "hal/backend_abi.h"

namespace nnremote::sim {
namespace {

hal::Result<std::vector<hal::BackendDevice>> createSimBackendDevices(const hal::BackendArguments& arguments) {
  NN_ASSIGN_OR_RETURN(auto npus, npuConfigsFromList(arguments.argument.empty() ? "default" : arguments.argument));
  std::vector<hal::BackendDevice> devices;
  for (const auto& npu : npus) devices.push_back(simBackendDevice(npu, arguments.cacheSecret));
  return devices;
}

}  // namespace
}  // namespace nnremote::sim

NNREMOTE_DEFINE_BACKEND(nnremote::sim::createSimBackendDevices)
