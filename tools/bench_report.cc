#include "tools/bench_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include "hal/operand_types.h"
#include "hal/text_escape.h"
#include "tools/svg_charts.h"

namespace nnremote::tools {
namespace {

const std::pair<const char*, double> kPercentiles[] = {
    {"p50", 0.50}, {"p90", 0.90}, {"p95", 0.95}, {"p99", 0.99}, {"p99.9", 0.999}, {"max", 1.0}};

// The numbers both formats show, computed once.
struct BenchStats {
  std::vector<int64_t> latencyUs, deviceUs;  // sorted
  uint64_t errors = 0;
  double throughput = 0;
  double bucketSeconds = 1;
  struct Bucket {
    double start = 0;
    uint64_t completed = 0;
    double meanLatencyUs = 0, meanDeviceUs = 0;
  };
  std::vector<Bucket> overTime;
  struct Bin {
    double fromUs = 0, toUs = 0;
    uint64_t count = 0;
  };
  std::vector<Bin> histogram;
  struct OperationTime {
    std::string type;
    double ms = 0;
    double share = 0;
  };
  std::vector<OperationTime> operations;
  double profileMs = 0;
};

BenchStats statsOf(const BenchRun& run) {
  BenchStats stats;
  const auto& samples = run.tally.samples;
  for (const auto& sample : samples) {
    stats.latencyUs.push_back(sample.latencyUs);
    if (sample.deviceUs >= 0) stats.deviceUs.push_back(sample.deviceUs);
  }
  std::sort(stats.latencyUs.begin(), stats.latencyUs.end());
  std::sort(stats.deviceUs.begin(), stats.deviceUs.end());
  for (const auto& [status, count] : run.tally.errors) stats.errors += count;
  stats.throughput = run.seconds > 0 ? static_cast<double>(samples.size()) / run.seconds : 0;

  // About 50 buckets over the run, at least 100 ms each.
  stats.bucketSeconds = std::max(0.1, run.seconds / 50);
  const size_t buckets = static_cast<size_t>(std::ceil(std::max(run.seconds, stats.bucketSeconds) / stats.bucketSeconds));
  stats.overTime.resize(buckets);
  for (size_t i = 0; i < buckets; ++i) stats.overTime[i].start = stats.bucketSeconds * static_cast<double>(i);
  std::vector<double> deviceSums(buckets), deviceCounts(buckets);
  for (const auto& sample : samples) {
    const double end = sample.startSeconds + static_cast<double>(sample.latencyUs) / 1e6;
    auto& bucket = stats.overTime[std::min(buckets - 1, static_cast<size_t>(end / stats.bucketSeconds))];
    ++bucket.completed;
    bucket.meanLatencyUs += static_cast<double>(sample.latencyUs);
    if (sample.deviceUs >= 0) {
      const size_t index = static_cast<size_t>(&bucket - stats.overTime.data());
      deviceSums[index] += static_cast<double>(sample.deviceUs);
      ++deviceCounts[index];
    }
  }
  for (size_t i = 0; i < buckets; ++i) {
    auto& bucket = stats.overTime[i];
    if (bucket.completed > 0) bucket.meanLatencyUs /= static_cast<double>(bucket.completed);
    if (deviceCounts[i] > 0) bucket.meanDeviceUs = deviceSums[i] / deviceCounts[i];
  }

  // 24 bins, evenly spaced in log(latency) from the fastest to the slowest.
  if (!stats.latencyUs.empty()) {
    const double low = std::max<double>(1, static_cast<double>(stats.latencyUs.front()));
    const double high = std::max(low * 1.0001, static_cast<double>(stats.latencyUs.back()) + 1);
    const int bins = 24;
    const double ratio = std::pow(high / low, 1.0 / bins);
    for (int i = 0; i < bins; ++i) stats.histogram.push_back({low * std::pow(ratio, i), low * std::pow(ratio, i + 1), 0});
    for (int64_t latency : stats.latencyUs) {
      const double position = std::log(std::max<double>(low, static_cast<double>(latency)) / low) / std::log(ratio);
      ++stats.histogram[std::min<size_t>(bins - 1, static_cast<size_t>(position))].count;
    }
  }

  // One execution's device time by operation type, largest first.
  if (run.tally.profile && run.tally.profile->clockHz > 0) {
    const hal::ExecutionProfile& profile = *run.tally.profile;
    std::map<std::string, double> byType;
    for (const auto& operation : profile.operations) {
      byType[hal::toString(operation.type)] += static_cast<double>(operation.totalCycles) / profile.clockHz * 1e3;
    }
    stats.profileMs = static_cast<double>(profile.totalCycles) / profile.clockHz * 1e3;
    for (const auto& [type, ms] : byType) {
      stats.operations.push_back({type, ms, stats.profileMs > 0 ? ms / stats.profileMs : 0});
    }
    std::sort(stats.operations.begin(), stats.operations.end(),
              [](const auto& a, const auto& b) { return a.ms > b.ms; });
  }
  return stats;
}

std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}

std::string percentilesJson(const std::vector<int64_t>& sorted) {
  std::ostringstream json;
  json << "{";
  bool first = true;
  for (const auto& [name, p] : kPercentiles) {
    json << (first ? "" : ", ") << jsonString(name) << ": " << percentile(sorted, p);
    first = false;
  }
  return json.str() + "}";
}

std::string microseconds(int64_t us) {
  std::ostringstream out;
  if (us >= 10000) {
    out << std::fixed << std::setprecision(2) << static_cast<double>(us) / 1000 << " ms";
  } else {
    out << us << " µs";
  }
  return out.str();
}

}  // namespace

std::string benchReportJson(const BenchRun& run) {
  const BenchStats stats = statsOf(run);
  std::ostringstream json;
  json << "{\n  \"model\": " << jsonString(run.model) << ",\n  \"device\": " << jsonString(run.device)
       << ",\n  \"target\": " << jsonString(run.target) << ",\n  \"executor\": " << jsonString(run.executor)
       << ",\n  \"priority\": " << jsonString(run.priority) << ",\n  \"clients\": " << run.clients
       << ",\n  \"seconds\": " << run.seconds << ",\n  \"executions\": " << run.tally.executions
       << ",\n  \"succeeded\": " << run.tally.samples.size() << ",\n  \"errors\": {";
  bool first = true;
  for (const auto& [status, count] : run.tally.errors) {
    json << (first ? "" : ", ") << jsonString(status) << ": " << count;
    first = false;
  }
  json << "},\n  \"throughput_per_s\": " << stats.throughput << ",\n  \"latency_us\": " << percentilesJson(stats.latencyUs)
       << ",\n  \"device_time_us\": " << percentilesJson(stats.deviceUs) << ",\n  \"histogram\": [";
  for (size_t i = 0; i < stats.histogram.size(); ++i) {
    const auto& bin = stats.histogram[i];
    json << (i ? ", " : "") << "{\"from_us\": " << bin.fromUs << ", \"to_us\": " << bin.toUs << ", \"count\": " << bin.count << "}";
  }
  json << "],\n  \"over_time\": [";
  for (size_t i = 0; i < stats.overTime.size(); ++i) {
    const auto& bucket = stats.overTime[i];
    json << (i ? ", " : "") << "{\"start_s\": " << bucket.start
         << ", \"throughput_per_s\": " << static_cast<double>(bucket.completed) / stats.bucketSeconds
         << ", \"mean_latency_us\": " << bucket.meanLatencyUs << ", \"mean_device_us\": " << bucket.meanDeviceUs << "}";
  }
  json << "],\n  \"operations\": [";
  for (size_t i = 0; i < stats.operations.size(); ++i) {
    const auto& operation = stats.operations[i];
    json << (i ? ", " : "") << "{\"type\": " << jsonString(operation.type) << ", \"ms\": " << operation.ms
         << ", \"share\": " << operation.share << "}";
  }
  json << "]\n}\n";
  return json.str();
}

std::string benchReportHtml(const BenchRun& run) {
  const BenchStats stats = statsOf(run);
  std::ostringstream html;
  const std::string title = "nnremote bench: " + run.model + " on " + run.device;
  html << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << hal::xmlEscape(title) << "</title>\n"
       << "<style>body{font-family:sans-serif;margin:24px;color:#222;max-width:980px}"
          "h1{font-size:20px}h2{font-size:15px;margin-top:28px}"
          "table{border-collapse:collapse}td,th{padding:4px 12px;border-bottom:1px solid #ddd;text-align:right}"
          "th:first-child,td:first-child{text-align:left}.kpi{display:inline-block;margin:0 28px 8px 0}"
          ".kpi b{display:block;font-size:22px}.note{color:#666;font-size:12px}</style></head><body>\n"
       << "<h1>" << hal::xmlEscape(title) << "</h1>\n<p class=\"note\">" << run.clients << " client"
       << (run.clients == 1 ? "" : "s") << " (" << hal::xmlEscape(run.executor) << ", " << hal::xmlEscape(run.priority)
       << " priority) at " << hal::xmlEscape(run.target) << " for " << std::fixed << std::setprecision(1) << run.seconds
       << " s. Latency is the client's wall clock through the proxy driver; device time is the simulated NPU's.</p>\n"
       << "<div><span class=\"kpi\"><b id=\"throughput\">" << std::setprecision(1) << stats.throughput
       << "/s</b>throughput</span><span class=\"kpi\"><b>" << microseconds(percentile(stats.latencyUs, 0.5))
       << "</b>p50 latency</span><span class=\"kpi\"><b>" << microseconds(percentile(stats.latencyUs, 0.99))
       << "</b>p99 latency</span><span class=\"kpi\"><b>" << microseconds(percentile(stats.deviceUs, 0.5))
       << "</b>p50 device time</span><span class=\"kpi\"><b>" << run.tally.samples.size() << "</b>executions</span>"
       << "<span class=\"kpi\"><b>" << stats.errors << "</b>errors</span></div>\n";
  if (stats.errors > 0) {
    html << "<p>Errors:";
    for (const auto& [status, count] : run.tally.errors) html << " " << hal::xmlEscape(status) << " &times; " << count;
    html << "</p>\n";
  }
  html << "<h2>Latency percentiles</h2>\n<table id=\"percentiles\"><tr><th></th>";
  for (const auto& [name, p] : kPercentiles) html << "<th>" << name << "</th>";
  html << "</tr>\n<tr><td>wall clock (client)</td>";
  for (const auto& [name, p] : kPercentiles) html << "<td>" << microseconds(percentile(stats.latencyUs, p)) << "</td>";
  html << "</tr>\n<tr><td>device time (simulated)</td>";
  for (const auto& [name, p] : kPercentiles) html << "<td>" << microseconds(percentile(stats.deviceUs, p)) << "</td>";
  html << "</tr></table>\n";

  std::vector<Bar> bins;
  for (const auto& bin : stats.histogram) {
    bins.push_back({microseconds(static_cast<int64_t>(bin.fromUs)), static_cast<double>(bin.count),
                    std::to_string(bin.count) + " executions from " + microseconds(static_cast<int64_t>(bin.fromUs)) +
                        " to " + microseconds(static_cast<int64_t>(bin.toUs))});
  }
  html << "<h2>Latency histogram</h2>\n"
       << barChart(bins, {"histogram", "client wall-clock latency (log-spaced bins)", "executions"});

  Series throughput{"completed executions per second", "#4878d0", {}};
  Series wall{"mean wall-clock latency (µs)", "#d65f5f", {}}, device{"mean simulated device time (µs)", "#6acc64", {}};
  for (const auto& bucket : stats.overTime) {
    const double middle = bucket.start + stats.bucketSeconds / 2;
    throughput.points.emplace_back(middle, static_cast<double>(bucket.completed) / stats.bucketSeconds);
    if (bucket.completed > 0) {
      wall.points.emplace_back(middle, bucket.meanLatencyUs);
      device.points.emplace_back(middle, bucket.meanDeviceUs);
    }
  }
  html << "<h2>Throughput over time</h2>\n"
       << lineChart({throughput}, {"throughput", "seconds into the run", "executions per second"})
       << "<h2>Simulated device time next to host wall time</h2>\n"
       << "<p class=\"note\">The gap is what the device time does not include: the proxy driver, gRPC, the "
          "host's simulation and, with several clients, queueing for the one device.</p>\n"
       << lineChart({wall, device}, {"device-vs-wall", "seconds into the run", "microseconds"});
  html << "<h2>Where the device time goes</h2>\n";
  if (stats.operations.empty()) {
    html << "<p>The device returned no timing profile.</p>\n";
  } else {
    std::vector<Bar> operations;
    for (const auto& operation : stats.operations) {
      std::ostringstream tip;
      tip << operation.type << ": " << std::setprecision(1) << operation.share * 100 << "% of the device time";
      operations.push_back({operation.type, operation.ms, tip.str()});
    }
    html << "<p class=\"note\">One execution's " << std::setprecision(3) << stats.profileMs
         << " ms on the simulated NPU, by operation type.</p>\n"
         << horizontalBarChart(operations, {"operations", "", "", 720, 0}, " ms");
  }
  html << "</body></html>\n";
  return html.str();
}

}  // namespace nnremote::tools
