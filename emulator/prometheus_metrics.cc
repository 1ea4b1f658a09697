#include "emulator/prometheus_metrics.h"

#include <prometheus/collectable.h>
#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <chrono>
#include <optional>

#include "emulator/accept_guard.h"
#include "emulator/tcp_listen_check.h"
#include "emulator/wire_traffic.h"
#include "hal/operand_types.h"
#include "middleware/device_health.h"
#include "middleware/scheduled_device.h"
#include "wire/address.h"

namespace nnremote::emulator {
namespace {

double seconds(hal::Duration duration) { return std::chrono::duration<double>(duration).count(); }

// 50 us to about 13 s, doubling: sample-model round trips to MobileNet under load.
prometheus::Histogram::BucketBoundaries latencyBuckets() {
  prometheus::Histogram::BucketBoundaries bounds;
  for (double bound = 50e-6; bound < 15.0; bound *= 2) bounds.push_back(bound);
  return bounds;
}

prometheus::ClientMetric gauge(double value, std::vector<prometheus::ClientMetric::Label> labels = {}) {
  prometheus::ClientMetric metric;
  metric.label = std::move(labels);
  metric.gauge.value = value;
  return metric;
}

}  // namespace

// The metrics that are read when Prometheus scrapes rather than counted as they happen.
class MetricsExporter::Snapshot final : public prometheus::Collectable {
 public:
  Snapshot(std::vector<hal::SharedDevice> devices, const AcceleratorService& service)
      : devices_(std::move(devices)), service_(service) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    prometheus::MetricFamily depth{"nnremote_queue_depth",
                                   "Jobs on the device now: running, preempted or waiting",
                                   prometheus::MetricType::Gauge,
                                   {}};
    prometheus::MetricFamily ahead{"nnremote_jobs_ahead",
                                   "Jobs placed to arrive later: unpaced clients' work queued ahead of the clock "
                                   "(their next call waits while queue_depth jobs are still to end)",
                                   prometheus::MetricType::Gauge,
                                   {}};
    prometheus::MetricFamily prepared{
        "nnremote_prepared_models", "Prepared models alive on the device", prometheus::MetricType::Gauge, {}};
    for (const auto& device : devices_) {
      const middleware::DeviceScheduler* scheduler = middleware::findScheduler(device);
      if (scheduler == nullptr) continue;
      const auto load = scheduler->load();
      depth.metric.push_back(gauge(static_cast<double>(load.jobsNow), {{"device", device->getName()}}));
      ahead.metric.push_back(gauge(static_cast<double>(load.jobsAhead), {{"device", device->getName()}}));
      prepared.metric.push_back(gauge(static_cast<double>(load.preparedModels), {{"device", device->getName()}}));
    }
    prometheus::MetricFamily sessions{"nnremote_sessions",
                                      "Client sessions open",
                                      prometheus::MetricType::Gauge,
                                      {gauge(static_cast<double>(service_.sessions().size()))}};
    prometheus::MetricFamily bytes{"nnremote_transfer_bytes_total",
                                   "Bytes of models, requests and results moved, by direction and transport",
                                   prometheus::MetricType::Counter,
                                   {}};
    for (const Direction direction : {Direction::IN, Direction::OUT}) {
      for (const Transport transport : {Transport::INLINE, Transport::BULK, Transport::SHARED_MEMORY}) {
        prometheus::ClientMetric metric;
        metric.label = {{"direction", toString(direction)}, {"transport", toString(transport)}};
        metric.counter.value = static_cast<double>(trafficSoFar(direction, transport));
        bytes.metric.push_back(std::move(metric));
      }
    }
    prometheus::ClientMetric refusedSoFar;
    refusedSoFar.counter.value = static_cast<double>(connectionsRefusedWithoutDescriptors());
    prometheus::MetricFamily refused{"nnremote_connections_refused_total",
                                     "Connections closed unserved because the server had no file descriptor left "
                                     "(RLIMIT_NOFILE)",
                                     prometheus::MetricType::Counter,
                                     {refusedSoFar}};
    std::vector<prometheus::MetricFamily> families{std::move(depth),    std::move(ahead), std::move(prepared),
                                                   std::move(sessions), std::move(bytes), std::move(refused)};
    addBackendHosts(&families);
    return families;
  }

 private:
  // Devices whose library runs in a backend host (docs/backends.md#isolation): is it up, given
  // up on, how often restarted, and how the last one ended.
  void addBackendHosts(std::vector<prometheus::MetricFamily>* families) const {
    prometheus::MetricFamily up{
        "nnremote_backend_host_up", "1 while a backend host serves the device", prometheus::MetricType::Gauge, {}};
    prometheus::MetricFamily unavailable{
        "nnremote_backend_host_unavailable",
        "1 once the device's backend host crash-looped and was given up on; the reason is a label",
        prometheus::MetricType::Gauge,
        {}};
    prometheus::MetricFamily restarts{"nnremote_backend_host_restarts_total",
                                      "Backend hosts started for the device after the first",
                                      prometheus::MetricType::Counter,
                                      {}};
    prometheus::MetricFamily lastExit{"nnremote_backend_host_last_exit_info",
                                      "How the device's last backend host ended (the cause is a label)",
                                      prometheus::MetricType::Gauge,
                                      {}};
    for (const auto& device : devices_) {
      const std::optional<middleware::DeviceHealth> health = middleware::supervisedHealthOf(*device);
      if (!health.has_value()) continue;
      const std::string name = device->getName();
      up.metric.push_back(gauge(health->running ? 1 : 0, {{"device", name}}));
      unavailable.metric.push_back(
          gauge(health->unavailable.empty() ? 0 : 1, {{"device", name}, {"reason", health->unavailable}}));
      prometheus::ClientMetric count;
      count.label = {{"device", name}};
      count.counter.value = static_cast<double>(health->restarts);
      restarts.metric.push_back(std::move(count));
      if (!health->lastExit.empty())
        lastExit.metric.push_back(gauge(1, {{"device", name}, {"cause", health->lastExit}}));
    }
    if (up.metric.empty()) return;
    for (auto* family : {&up, &unavailable, &restarts, &lastExit}) families->push_back(std::move(*family));
  }

  const std::vector<hal::SharedDevice> devices_;
  const AcceleratorService& service_;
};

hal::Result<std::unique_ptr<MetricsExporter>> MetricsExporter::start(const std::string& address,
                                                                     const std::vector<hal::SharedDevice>& devices,
                                                                     const AcceleratorService& service) {
  NN_ASSIGN_OR_RETURN(const wire::Address where, wire::parseAddress(address, wire::AddressUse::kListen));
  if (where.isUnix()) return hal::invalidArgument() << "'" << address << "' is not HOST:PORT";
  if (auto usable = checkCanListen(where); !usable.ok()) {
    return hal::withContext(usable.error(), "cannot serve metrics at " + address);
  }
  std::unique_ptr<MetricsExporter> exporter(new MetricsExporter());
  exporter->devices_ = devices;
  exporter->registry_ = std::make_shared<prometheus::Registry>();
  auto& executions = prometheus::BuildCounter()
                         .Name("nnremote_executions_total")
                         .Help("Executions by device, priority and how they ended (HAL status; NONE: success)")
                         .Register(*exporter->registry_);
  auto& latency = prometheus::BuildHistogram()
                      .Name("nnremote_execution_latency_seconds")
                      .Help("Host wall clock of each execution on the device, queueing included")
                      .Register(*exporter->registry_);
  auto& queueWait = prometheus::BuildHistogram()
                        .Name("nnremote_queue_wait_seconds")
                        .Help("Time each execution waited on the simulated device before it started")
                        .Register(*exporter->registry_);
  auto& deviceTime = prometheus::BuildCounter()
                         .Name("nnremote_device_time_seconds_total")
                         .Help("Simulated device time of every execution")
                         .Register(*exporter->registry_);
  for (const auto& device : devices) {
    const middleware::DeviceScheduler* scheduler = middleware::findScheduler(device);
    if (scheduler == nullptr) continue;
    const std::string name = device->getName();
    prometheus::Histogram* latencyOfDevice = &latency.Add({{"device", name}}, latencyBuckets());
    prometheus::Histogram* waitOfDevice = &queueWait.Add({{"device", name}}, latencyBuckets());
    prometheus::Counter* timeOfDevice = &deviceTime.Add({{"device", name}});
    scheduler->observeExecutions(
        [&executions, name, latencyOfDevice, waitOfDevice, timeOfDevice](const middleware::ExecutionReport& report) {
          executions
              .Add({{"device", name},
                    {"priority", hal::priorityName(report.priority)},
                    {"status", hal::toString(report.status)}})
              .Increment();
          latencyOfDevice->Observe(seconds(report.latency));
          if (report.deviceTime > hal::Duration::zero()) {
            waitOfDevice->Observe(seconds(report.queueWait));
            timeOfDevice->Increment(seconds(report.deviceTime));
          }
        });
  }
  exporter->snapshot_ = std::make_shared<Snapshot>(devices, service);
  try {
    exporter->exposer_ = std::make_unique<prometheus::Exposer>(address, /*num_threads=*/1);
  } catch (const std::exception& error) {
    // civetweb, as Debian builds it, has no IPv6, and says only that it has no context.
    const bool ipv6 = where.name.find(':') != std::string::npos;
    return hal::invalidArgument() << "cannot serve metrics at " << address << ": " << error.what()
                                  << (ipv6 ? " (the metrics server, this machine's civetweb, may listen on IPv4 "
                                             "only: give an IPv4 address, e.g. 127.0.0.1:PORT or 0.0.0.0:PORT)"
                                           : "");
  }
  exporter->exposer_->RegisterCollectable(exporter->registry_);
  exporter->exposer_->RegisterCollectable(exporter->snapshot_);
  return exporter;
}

MetricsExporter::~MetricsExporter() {
  // Executions that end after this must not reach the families about to go.
  for (const auto& device : devices_) {
    if (const auto* scheduler = middleware::findScheduler(device)) scheduler->observeExecutions(nullptr);
  }
}

int MetricsExporter::port() const {
  const auto ports = exposer_->GetListeningPorts();
  return ports.empty() ? 0 : ports.front();
}

}  // namespace nnremote::emulator
