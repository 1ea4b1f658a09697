#include "tools/replay_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "hal/text_escape.h"
#include "tools/log_log_plot.h"

namespace nnremote::tools {
namespace {

double meanRecordedUs(const ModelReplay& model) { return model.recordedDeviceUs / model.timedExecutions; }
double meanReplayedUs(const ModelReplay& model) { return model.replayedDeviceUs / model.timedExecutions; }

// Log-log scatter: x recorded, y replayed, one point per model with timing on both sides.
std::string timingPlot(const ReplaySummary& summary) {
  std::vector<PlotPoint> points;
  for (const auto& model : summary.models) {
    if (model.timedExecutions == 0) continue;
    std::ostringstream tip;
    tip << model.label << ": " << meanRecordedUs(model) << " µs recorded, " << meanReplayedUs(model) << " µs replayed";
    points.push_back({meanRecordedUs(model), meanReplayedUs(model), tip.str(), model.differed > 0});
  }
  if (points.empty()) return "<p>No model has device timing on both sides: the replay device does not report it.</p>\n";
  return logLogPlot(points, {"timing-plot", "device time as recorded (mean per execution)", "device time as replayed", {}});
}

}  // namespace

std::string renderReplayHtml(const ReplaySummary& summary, const std::string& recording, const std::string& target) {
  std::ostringstream html;
  html << std::fixed << std::setprecision(1);
  html << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>nnremote replay</title>\n<style>\n"
       << "body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;font-size:13px}\n"
       << "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}\n"
       << "tr.differed td{background:#fde8e8}.summary{font-size:18px;font-weight:bold}\n"
       << "</style></head><body>\n<h1>nnremote replay</h1>\n"
       << "<p>Recording <code>" << hal::xmlEscape(recording) << "</code> replayed on <code>" << hal::xmlEscape(target)
       << "</code>.</p>\n<p class=\"summary\" id=\"summary\">" << hal::xmlEscape(summaryLine(summary)) << "</p>\n";
  for (const auto& warning : summary.warnings) html << "<p>Warning: " << hal::xmlEscape(warning) << "</p>\n";
  html << "<h2>Device time, recorded and replayed</h2>\n" << timingPlot(summary);
  html << "<h2>Models</h2>\n<table id=\"models\"><tr><th>model</th><th>recorded on</th><th>replayed on</th>"
       << "<th>executions</th><th>matched</th><th>differed</th><th>recorded µs</th><th>replayed µs</th>"
       << "<th>ratio</th></tr>\n";
  for (const auto& model : summary.models) {
    html << "<tr" << (model.differed > 0 ? " class=\"differed\"" : "") << "><td>" << hal::xmlEscape(model.label)
         << (model.refused.empty() ? "" : "<br><small>refused: " + hal::xmlEscape(model.refused) + "</small>") << "</td><td>"
         << hal::xmlEscape(model.recordedDevice) << "</td><td>" << hal::xmlEscape(model.replayDevice) << "</td><td>"
         << model.executions << "</td><td>" << model.matched << "</td><td>" << model.differed << "</td>";
    if (model.timedExecutions > 0) {
      html << "<td>" << meanRecordedUs(model) << "</td><td>" << meanReplayedUs(model) << "</td><td>"
           << std::setprecision(2) << meanReplayedUs(model) / std::max(meanRecordedUs(model), 1e-9)
           << std::setprecision(1) << "×</td>";
    } else {
      html << "<td>–</td><td>–</td><td>–</td>";
    }
    html << "</tr>\n";
  }
  html << "</table>\n<h2>Differences</h2>\n";
  if (summary.differences.empty()) html << "<p>None.</p>\n";
  html << "<ul id=\"differences\">\n";
  for (const auto& difference : summary.differences) html << "<li>" << hal::xmlEscape(difference) << "</li>\n";
  if (summary.differed > summary.differences.size()) {
    html << "<li>… and " << summary.differed - summary.differences.size() << " more</li>\n";
  }
  html << "</ul>\n</body></html>\n";
  return html.str();
}

}  // namespace nnremote::tools
