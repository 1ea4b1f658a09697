#include "benchmarks/calibration.h"

#include <cstdio>
#include <iomanip>
#include <sstream>

#include "drivers/sim/npu_config.h"
#include "emulator/simulated_npus.h"
#include "hal/model_builder.h"
#include "hal/text_escape.h"
#include "tools/log_log_plot.h"
#include "tools/models/built_in.h"

namespace nnremote::benchmarks {

const std::vector<PublishedLatency>& publishedLatencies() {
  constexpr const char* kCoral = "Coral Edge TPU benchmarks, Dev Board";
  constexpr const char* kSynap = "SyNAP documentation, VS680, offline NPU infer";
  static const auto* latencies = new std::vector<PublishedLatency>{
      {"edgetpu", "MobileNet v1 224", "mobilenet-quant8", 2.4, kCoral},
      {"edgetpu", "MobileNet v2 224", "mobilenet-v2-quant8", 2.6, kCoral},
      {"edgetpu", "Inception v1 224", "inception-v1-quant8", 4.1, kCoral},
      {"edgetpu", "SqueezeNet", "squeezenet-quant8", 2.0, kCoral},
      {"edgetpu", "ResNet-50 V1 299", "resnet50-quant8", 56, kCoral},
      {"edgetpu", "MobileNet v1 SSD", "mobilenet-ssd-quant8", 11, kCoral},
      {"edgetpu", "MobileNet v2 SSD", "mobilenet-v2-ssd-quant8", 14, kCoral},
      {"vs680", "MobileNet v2 224", "mobilenet-v2-quant8", 1.79, kSynap},
      {"vs680", "MobileNet v1 0.25 224", "mobilenet-0.25-quant8", 0.77, kSynap},
      {"vs680", "Inception v4 299", "inception-v4-quant8", 19.59, kSynap},
  };
  return *latencies;
}

hal::Result<hal::ExecutionProfile> simulatedProfile(const std::string& model, const sim::NpuConfig& npu) {
  NN_ASSIGN_OR_RETURN(const tools::BuiltModel built, tools::builtInModel(model));
  const auto device = emulator::createSimulatedNpu(npu);
  NN_ASSIGN_OR_RETURN(auto prepared, device->prepareModel(built.model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                                          hal::Priority::MEDIUM, std::nullopt, {}, {}, {}));
  NN_ASSIGN_OR_RETURN(auto io, hal::makeRequest({built.input}, built.outputSizes));
  NN_ASSIGN_OR_RETURN(auto outcome, prepared->execute(io.request, hal::MeasureTiming::YES, std::nullopt, std::nullopt));
  if (!outcome.profile) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << model << " returned no profile";
  }
  return *outcome.profile;
}

hal::Result<uint64_t> simulatedCycles(const std::string& model, const sim::NpuConfig& npu) {
  NN_ASSIGN_OR_RETURN(const hal::ExecutionProfile profile, simulatedProfile(model, npu));
  return profile.totalCycles;
}

hal::Result<std::vector<CalibrationRow>> calibrate() {
  std::vector<CalibrationRow> rows;
  for (const PublishedLatency& published : publishedLatencies()) {
    NN_ASSIGN_OR_RETURN(const sim::NpuConfig npu, sim::npuPreset(published.preset));
    NN_ASSIGN_OR_RETURN(const uint64_t cycles, simulatedCycles(published.model, npu));
    rows.push_back({published, double(cycles) / (npu.clock_mhz() * 1e3)});
  }
  return rows;
}

std::string calibrationTable(const std::vector<CalibrationRow>& rows) {
  std::ostringstream out;
  char line[200];
  std::snprintf(line, sizeof line, "%-10s %-22s %14s %14s %7s\n", "preset", "network", "simulated ms", "published ms",
                "ratio");
  out << line;
  for (const CalibrationRow& row : rows) {
    std::snprintf(line, sizeof line, "%-10s %-22s %14.3f %14.3f %7.2f%s\n", row.published.preset.c_str(),
                  row.published.network.c_str(), row.simulatedMilliseconds, row.published.milliseconds, row.ratio(),
                  outsideCalibrationBand(row.ratio()) ? "  outside ±25%" : "");
    out << line;
  }
  return out.str();
}

std::string calibrationHtml(const std::vector<CalibrationRow>& rows) {
  std::vector<tools::PlotPoint> points;
  std::ostringstream table;
  table << std::fixed << std::setprecision(2);
  for (const CalibrationRow& row : rows) {
    const bool outside = outsideCalibrationBand(row.ratio());
    std::ostringstream tip;
    tip << row.published.network << " on " << row.published.preset << ": " << row.simulatedMilliseconds
        << " ms simulated, " << row.published.milliseconds << " ms published";
    points.push_back(
        {row.published.milliseconds * 1e3, row.simulatedMilliseconds * 1e3, tip.str(), outside, row.published.preset});
    table << "<tr" << (outside ? " class=\"outside\"" : "") << "><td>" << hal::xmlEscape(row.published.preset)
          << "</td><td>" << hal::xmlEscape(row.published.network) << "</td><td>" << row.simulatedMilliseconds
          << "</td><td>" << row.published.milliseconds << "</td><td>" << row.ratio() << "</td></tr>\n";
  }
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>nnremote calibration</title><style>"
          "body{font-family:sans-serif;margin:24px}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
          "padding:4px 8px;text-align:right}td:nth-child(-n+2){text-align:left}tr.outside{background:#fde8e8}"
          "</style></head><body>\n<h1>Simulated vs published latency</h1>\n"
       << tools::logLogPlot(points, {"calibration-plot", "published latency", "simulated latency", {0.75, 1.25}})
       << "<table><tr><th>preset</th><th>network</th><th>simulated ms</th><th>published ms</th><th>ratio</th></tr>\n"
       << table.str() << "</table>\n<p>Red: outside ±25% of the published figure.</p>\n</body></html>\n";
  return html.str();
}

}  // namespace nnremote::benchmarks
