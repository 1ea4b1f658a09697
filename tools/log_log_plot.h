// A self-contained SVG log-log scatter of times against times, with a 1x line: replay's recorded
// vs replayed device time, calibration's published vs simulated latency.
#ifndef NNREMOTE_TOOLS_LOG_LOG_PLOT_H_
#define NNREMOTE_TOOLS_LOG_LOG_PLOT_H_

#include <string>
#include <vector>

namespace nnremote::tools {

struct PlotPoint {
  double xUs = 0, yUs = 0;  // microseconds
  std::string tip;          // shown on hover
  bool highlighted = false; // drawn red
  // Points of one series share a marker (circle, square, triangle, diamond, in order of first
  // appearance); with two series or more, a legend names them.
  std::string series;
};

struct PlotOptions {
  std::string id;  // the <svg> element's id
  std::string xLabel, yLabel;
  // Dashed lines at these multiples besides 1x (e.g. 0.75 and 1.25 for a ±25% band).
  std::vector<double> bands;
};

std::string logLogPlot(const std::vector<PlotPoint>& points, const PlotOptions& options);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_LOG_LOG_PLOT_H_
