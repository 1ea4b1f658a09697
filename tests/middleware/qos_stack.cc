#include "tests/middleware/qos_stack.h"

#include "emulator/simulated_npus.h"
#include "middleware/scheduled_device.h"
#include "tests/hal/device_factories.h"

namespace nnremote::testing {

std::ostream& operator<<(std::ostream& out, Path path) {
  return out << (path == Path::IN_PROCESS ? "InProcess" : "ThroughProxy");
}

sim::NpuConfig slowNpu() {
  sim::NpuConfig npu = sim::edgeNpuConfig();
  npu.set_clock_mhz(0.001);
  return npu;
}

QosStack makeQosStack(Path path, const QosStackOptions& options) {
  QosStack stack;
  stack.time = std::make_shared<middleware::ManualTimeSource>(hal::TimePoint(std::chrono::hours(1)));
  emulator::SimulatedNpuOptions npuOptions;
  npuOptions.paceRealtime = options.paced;
  npuOptions.scheduling = options.limits.scheduling;
  npuOptions.time = stack.time;
  const sim::NpuConfig npu = options.npu.clock_mhz() > 0 ? options.npu : slowNpu();
  hal::SharedDevice device = emulator::createSimulatedNpu(npu, npuOptions);
  stack.scheduler = &dynamic_cast<const middleware::ScheduledDevice&>(*device).scheduler();
  if (path == Path::IN_PROCESS) {
    stack.keepAlive = std::const_pointer_cast<hal::IDevice>(device);
    stack.device = device;
    return stack;
  }
  DeviceUnderTest served = serveThroughProxy(device, options.limits.session);
  stack.keepAlive = served.keepAlive;
  stack.device = served.device;
  return stack;
}

}  // namespace nnremote::testing
