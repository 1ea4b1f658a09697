// crashing_backend.so (tests only): vendor code that fails. It serves the simulator's edge16 NPU
// as "crashtest-edge16", with a fault injected inside the library: ARG is an npu_emulator --fault
// plan without the device, e.g. segfault:op=CONV_2D (every execution of a model with a CONV_2D
// segfaults), abort:5 (the 6th execution aborts), overflow:0 (its stack), thread_overflow:0 (the
// stack of a thread of its own), hang:0, kernel_hang:0 (asleep in the kernel, state D), spin:0
// (burns CPU), allocate:0. hang:load hangs while the library is loaded, before it serves.
// Served isolated, each of these ends (or, for hang, stalls) only its backend host.
#include <unistd.h>

#include "drivers/sim/npu_config.h"
#include "drivers/sim/sim_device.h"
#include "middleware/fault_injection.h"
#include "hal/backend_abi.h"

namespace {

using nnremote::hal::BackendArguments;
using nnremote::hal::BackendDevice;
using nnremote::hal::Result;

Result<std::vector<BackendDevice>> createCrashingDevices(const BackendArguments& arguments) {
  if (arguments.argument == "hang:load") {
    for (;;) ::pause();  // until killed
  }
  NN_ASSIGN_OR_RETURN(auto plan, nnremote::middleware::parseFaultPlan(arguments.argument));
  NN_ASSIGN_OR_RETURN(auto npu, nnremote::sim::npuPreset("edge16"));
  npu.set_vendor("crashtest");
  BackendDevice device = nnremote::sim::simBackendDevice(npu, arguments.cacheSecret);
  // Lives as long as the process: the devices it wraps may be used until the very end.
  auto* injector = new nnremote::middleware::FaultInjector(plan);
  device.device = injector->wrap({device.device}).front();
  return std::vector<BackendDevice>{device};
}

}  // namespace

NNREMOTE_DEFINE_BACKEND(createCrashingDevices)
