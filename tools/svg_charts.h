// Small self-contained SVG charts for the HTML reports (nnremote bench): bars and lines, drawn
// inline so a page needs no network and no script to show them.
#ifndef NNREMOTE_TOOLS_SVG_CHARTS_H_
#define NNREMOTE_TOOLS_SVG_CHARTS_H_

#include <string>
#include <vector>

namespace nnremote::tools {

struct Bar {
  std::string label;  // under the bar (vertical) or before it (horizontal)
  double value = 0;
  std::string tip;    // shown on hover
};

struct Series {
  std::string name;   // in the legend
  std::string color;  // CSS colour
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending
};

struct ChartOptions {
  std::string id;  // the <svg> element's id
  std::string xLabel, yLabel;
  int width = 720, height = 260;
};

// Vertical bars, one per entry, labelled underneath (every few labels when crowded).
std::string barChart(const std::vector<Bar>& bars, const ChartOptions& options);
// Horizontal bars with their labels on the left and values on the right.
std::string horizontalBarChart(const std::vector<Bar>& bars, const ChartOptions& options,
                               const std::string& valueSuffix);
// Lines through each series' points, on shared linear axes from 0, with a legend.
std::string lineChart(const std::vector<Series>& series, const ChartOptions& options);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_SVG_CHARTS_H_
