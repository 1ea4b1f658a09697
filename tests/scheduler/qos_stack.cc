#include "tests/scheduler/qos_stack.h"

#include <cstdlib>

#include "emulator/emulator_server.h"
#include "emulator/simulated_npus.h"
#include "proxy_driver/proxy_device.h"
#include "scheduler/scheduled_device.h"

namespace nnremote::testing {

std::ostream& operator<<(std::ostream& out, Path path) {
  return out << (path == Path::IN_PROCESS ? "InProcess" : "ThroughProxy");
}

sim::NpuConfig slowNpu() {
  sim::NpuConfig npu = sim::edgeNpuConfig();
  npu.set_clock_mhz(0.001);
  return npu;
}

QosStack makeQosStack(Path path, QosStackOptions options) {
  QosStack stack;
  stack.time = std::make_shared<scheduler::ManualTimeSource>(hal::TimePoint(std::chrono::hours(1)));
  emulator::SimulatedNpuOptions npuOptions;
  npuOptions.paceRealtime = options.paced;
  npuOptions.scheduling = options.limits.scheduling;
  npuOptions.time = stack.time;
  const sim::NpuConfig npu = options.npu.clock_mhz() > 0 ? options.npu : slowNpu();
  hal::SharedDevice device = emulator::createSimulatedNpu(npu, npuOptions);
  stack.scheduler = &dynamic_cast<const scheduler::ScheduledDevice&>(*device).scheduler();
  if (path == Path::IN_PROCESS) {
    stack.keepAlive = std::const_pointer_cast<hal::IDevice>(device);
    stack.device = device;
    return stack;
  }
  struct Remote {
    hal::SharedDevice served;
    std::unique_ptr<emulator::EmulatorServer> server;
    std::shared_ptr<proxy::Connection> connection;
  };
  auto remote = std::make_shared<Remote>();
  remote->served = device;
  auto server = emulator::EmulatorServer::start({device}, "127.0.0.1:0", options.limits.session);
  if (!server.ok()) std::abort();
  remote->server = std::move(server).value();
  auto connection = proxy::Connection::connect(remote->server->address());
  if (!connection.ok()) std::abort();
  remote->connection = *connection;
  auto devices = proxy::ProxyDevice::discover(remote->connection);
  if (!devices.ok() || devices->size() != 1) std::abort();
  stack.keepAlive = remote;
  stack.device = devices->front();
  return stack;
}

}  // namespace nnremote::testing
