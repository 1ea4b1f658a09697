// What the QoS tests run against: a slow simulated NPU (1 kHz, so every operation takes about a
// second of simulated time) behind its scheduler, on a clock the test moves by hand, used in
// process or through a real emulator on loopback TCP and the proxy driver.
#ifndef NNREMOTE_TESTS_SCHEDULER_QOS_STACK_H_
#define NNREMOTE_TESTS_SCHEDULER_QOS_STACK_H_

#include <memory>
#include <ostream>
#include <string>

#include "drivers/sim/npu_config.h"
#include "emulator/server_config.h"
#include "hal/i_device.h"
#include "middleware/device_scheduler.h"
#include "middleware/time_source.h"

namespace nnremote::testing {

enum class Path { IN_PROCESS, THROUGH_PROXY };
std::ostream& operator<<(std::ostream& out, Path path);

struct QosStackOptions {
  bool paced = false;
  emulator::ServerLimits limits;
  sim::NpuConfig npu;  // default: slowNpu()
};

struct QosStack {
  std::shared_ptr<void> keepAlive;  // the server and connection, destroyed last
  std::shared_ptr<middleware::ManualTimeSource> time;
  const middleware::DeviceScheduler* scheduler = nullptr;  // the device's, wherever it runs
  hal::SharedDevice device;                               // what the test calls
};

// edge16 clocked at 1 kHz.
sim::NpuConfig slowNpu();
QosStack makeQosStack(Path path, const QosStackOptions& options = QosStackOptions());

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTS_SCHEDULER_QOS_STACK_H_
