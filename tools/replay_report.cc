#include "tools/replay_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "hal/text_escape.h"

namespace nnremote::tools {
namespace {

// 0.1 µs, 10 µs, 1 ms, 100 ms, 10 s: a decade's label in the unit it reads best in.
std::string decadeLabel(double decade) {
  const double us = std::pow(10.0, decade);
  std::ostringstream label;
  if (us < 1e3) {
    label << us << " µs";
  } else if (us < 1e6) {
    label << us / 1e3 << " ms";
  } else {
    label << us / 1e6 << " s";
  }
  return label.str();
}

double meanRecordedUs(const ModelReplay& model) { return model.recordedDeviceUs / model.timedExecutions; }
double meanReplayedUs(const ModelReplay& model) { return model.replayedDeviceUs / model.timedExecutions; }

// Log-log scatter: x recorded, y replayed, one point per model with timing on both sides.
std::string timingPlot(const ReplaySummary& summary) {
  constexpr int kSize = 420, kMargin = 70;
  std::vector<const ModelReplay*> timed;
  double low = 1e300, high = 0;
  for (const auto& model : summary.models) {
    if (model.timedExecutions == 0) continue;
    timed.push_back(&model);
    for (double us : {meanRecordedUs(model), meanReplayedUs(model)}) {
      low = std::min(low, std::max(us, 0.01));
      high = std::max(high, us);
    }
  }
  if (timed.empty()) return "<p>No model has device timing on both sides: the replay device does not report it.</p>\n";
  std::ostringstream svg;
  svg << "<svg id=\"timing-plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kSize + 2 * kMargin
      << "\" height=\"" << kSize + 2 * kMargin << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  // Whole decades around the data, so the 1x line and the grid are easy to read.
  const double first = std::floor(std::log10(low)), last = std::max(std::ceil(std::log10(high)), first + 1);
  const auto position = [&](double us) {
    return (std::log10(std::max(us, 0.01)) - first) / (last - first) * kSize;
  };
  svg << "<rect x=\"" << kMargin << "\" y=\"" << kMargin << "\" width=\"" << kSize << "\" height=\"" << kSize
      << "\" fill=\"#fafafa\" stroke=\"#999\"/>\n";
  for (double decade = first; decade <= last; ++decade) {
    const double offset = (decade - first) / (last - first) * kSize;
    const std::string label = decadeLabel(decade);
    svg << "<line x1=\"" << kMargin + offset << "\" y1=\"" << kMargin << "\" x2=\"" << kMargin + offset << "\" y2=\""
        << kMargin + kSize << "\" stroke=\"#ddd\"/>\n"
        << "<line x1=\"" << kMargin << "\" y1=\"" << kMargin + kSize - offset << "\" x2=\"" << kMargin + kSize
        << "\" y2=\"" << kMargin + kSize - offset << "\" stroke=\"#ddd\"/>\n"
        << "<text x=\"" << kMargin + offset << "\" y=\"" << kMargin + kSize + 16 << "\" text-anchor=\"middle\">"
        << label << "</text>\n"
        << "<text x=\"" << kMargin - 6 << "\" y=\"" << kMargin + kSize - offset + 4 << "\" text-anchor=\"end\">"
        << label << "</text>\n";
  }
  svg << "<line x1=\"" << kMargin << "\" y1=\"" << kMargin + kSize << "\" x2=\"" << kMargin + kSize << "\" y2=\""
      << kMargin << "\" stroke=\"#c33\" stroke-dasharray=\"6 4\"/>\n"
      << "<text x=\"" << kMargin + kSize - 4 << "\" y=\"" << kMargin + 14 << "\" text-anchor=\"end\" fill=\"#c33\">1×</text>\n"
      << "<text x=\"" << kMargin + kSize / 2 << "\" y=\"" << kMargin + kSize + 40
      << "\" text-anchor=\"middle\">device time as recorded (mean per execution)</text>\n"
      << "<text transform=\"translate(14," << kMargin + kSize / 2
      << ") rotate(-90)\" text-anchor=\"middle\">device time as replayed</text>\n";
  for (const ModelReplay* model : timed) {
    const double x = kMargin + position(meanRecordedUs(*model));
    const double y = kMargin + kSize - position(meanReplayedUs(*model));
    std::ostringstream tip;
    tip << model->label << ": " << meanRecordedUs(*model) << " µs recorded, " << meanReplayedUs(*model) << " µs replayed";
    svg << "<circle class=\"model\" cx=\"" << x << "\" cy=\"" << y << "\" r=\"4\" fill=\""
        << (model->differed > 0 ? "#d62728" : "#1f77b4") << "\" fill-opacity=\"0.7\"><title>" << hal::xmlEscape(tip.str())
        << "</title></circle>\n";
  }
  svg << "</svg>\n";
  return svg.str();
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
