// npu_emulator --metrics=HOST:PORT: the server's metrics in Prometheus' text format on
// http://HOST:PORT/metrics, served by prometheus-cpp (docs/farm.md#metrics):
//   nnremote_executions_total{device,priority,status}   executions, by how they ended
//   nnremote_execution_latency_seconds{device}          host wall clock per execution
//   nnremote_queue_wait_seconds{device}                 time queued on the simulated device
//   nnremote_device_time_seconds_total{device}          simulated device time
//   nnremote_queue_depth{device}                        jobs on the device now
//   nnremote_jobs_ahead{device}                         jobs queued ahead of the clock (unpaced)
//   nnremote_prepared_models{device}                    prepared models alive
//   nnremote_sessions                                   client sessions open
//   nnremote_transfer_bytes_total{direction,transport}  bytes moved: inline, bulk, shared_memory
// Executions are counted by each device's scheduler, so every executor is (sync, async,
// reusable, burst, fenced); devices without one (remote:) have no execution metrics.
#ifndef NNREMOTE_EMULATOR_PROMETHEUS_METRICS_H_
#define NNREMOTE_EMULATOR_PROMETHEUS_METRICS_H_

#include <memory>
#include <string>
#include <vector>

#include "emulator/accelerator_service.h"
#include "hal/i_device.h"
#include "hal/result.h"

namespace prometheus {
class Exposer;
class Registry;
}  // namespace prometheus

namespace nnremote::emulator {

class MetricsExporter {
 public:
  // Serves at `address` (HOST:PORT; port 0 picks one) the metrics of `devices` and `service`,
  // which must outlive the exporter.
  static hal::Result<std::unique_ptr<MetricsExporter>> start(const std::string& address,
                                                             const std::vector<hal::SharedDevice>& devices,
                                                             const AcceleratorService& service);
  ~MetricsExporter();

  // The port it listens on.
  int port() const;

 private:
  MetricsExporter() = default;
  class Snapshot;  // what is read at each scrape

  std::vector<hal::SharedDevice> devices_;
  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<Snapshot> snapshot_;
  std::unique_ptr<prometheus::Exposer> exposer_;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_PROMETHEUS_METRICS_H_
