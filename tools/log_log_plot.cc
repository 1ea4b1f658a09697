#include "tools/log_log_plot.h"

#include <algorithm>
#include <cmath>
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

// One marker, centred on (x, y): shape 0 a circle, 1 a square, 2 a triangle, 3 a diamond, then
// again. Markers of the points have class "model"; `title` (escaped) shows on hover.
void marker(std::ostringstream& svg, size_t shape, double x, double y, const char* fill, const std::string& cssClass,
            const std::string& title) {
  const std::string style = "class=\"" + cssClass + "\" fill=\"" + fill + "\" fill-opacity=\"0.7\"";
  const std::string tooltip = title.empty() ? "" : "<title>" + title + "</title>";
  switch (shape % 4) {
    case 0:
      svg << "<circle " << style << " cx=\"" << x << "\" cy=\"" << y << "\" r=\"4\">";
      svg << tooltip << "</circle>\n";
      return;
    case 1:
      svg << "<rect " << style << " x=\"" << x - 4 << "\" y=\"" << y - 4 << "\" width=\"8\" height=\"8\">";
      svg << tooltip << "</rect>\n";
      return;
    case 2:  // a triangle
      svg << "<polygon " << style << " points=\"" << x << "," << y - 5 << " " << x - 5 << "," << y + 4 << " " << x + 5
          << "," << y + 4 << "\">";
      break;
    default:  // a diamond
      svg << "<polygon " << style << " points=\"" << x << "," << y - 5 << " " << x + 5 << "," << y << " " << x << ","
          << y + 5 << " " << x - 5 << "," << y << "\">";
      break;
  }
  svg << tooltip << "</polygon>\n";
}

}  // namespace

std::string logLogPlot(const std::vector<PlotPoint>& points, const PlotOptions& options) {
  constexpr int kSize = 420, kMargin = 70;
  double low = 1e300, high = 0;
  for (const auto& point : points) {
    for (double us : {point.xUs, point.yUs}) {
      low = std::min(low, std::max(us, 0.01));
      high = std::max(high, us);
    }
  }
  std::ostringstream svg;
  svg << "<svg id=\"" << options.id << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kSize + 2 * kMargin
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
  // y = factor * x is a line of slope 1 on log axes, shifted by log10(factor). Lines above 1x are
  // labelled where they start (bottom left), the others where they end (top right), so that the
  // labels of a narrow band do not overlap.
  const auto diagonal = [&](double factor, const char* dash, const std::string& label) {
    const double shift = std::log10(factor) / (last - first) * kSize;
    const double x0 = std::max(0.0, -shift), x1 = std::min(double(kSize), kSize - shift);
    if (x1 <= x0) return;
    svg << "<line x1=\"" << kMargin + x0 << "\" y1=\"" << kMargin + kSize - (x0 + shift) << "\" x2=\"" << kMargin + x1
        << "\" y2=\"" << kMargin + kSize - (x1 + shift) << "\" stroke=\"#c33\" stroke-dasharray=\"" << dash << "\"/>\n";
    if (factor > 1) {
      svg << "<text x=\"" << kMargin + x0 + 4 << "\" y=\"" << kMargin + kSize - (x0 + shift) - 6
          << "\" text-anchor=\"start\" fill=\"#c33\">" << label << "</text>\n";
    } else {
      svg << "<text x=\"" << kMargin + x1 - 4 << "\" y=\"" << kMargin + kSize - (x1 + shift) + 14
          << "\" text-anchor=\"end\" fill=\"#c33\">" << label << "</text>\n";
    }
  };
  diagonal(1.0, "6 4", "1×");
  for (double band : options.bands) {
    std::ostringstream label;
    label << band << "×";
    diagonal(band, "2 4", label.str());
  }
  svg << "<text x=\"" << kMargin + kSize / 2 << "\" y=\"" << kMargin + kSize + 40 << "\" text-anchor=\"middle\">"
      << hal::xmlEscape(options.xLabel) << "</text>\n"
      << "<text transform=\"translate(14," << kMargin + kSize / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
      << hal::xmlEscape(options.yLabel) << "</text>\n";
  std::vector<std::string> series;  // in order of first appearance
  for (const PlotPoint& point : points) {
    if (std::find(series.begin(), series.end(), point.series) == series.end()) series.push_back(point.series);
  }
  for (const PlotPoint& point : points) {
    const size_t shape = std::find(series.begin(), series.end(), point.series) - series.begin();
    marker(svg, shape, kMargin + position(point.xUs), kMargin + kSize - position(point.yUs),
           point.highlighted ? "#d62728" : "#1f77b4", "model", hal::xmlEscape(point.tip));
  }
  if (series.size() > 1) {  // the legend, in the plot's top left corner
    for (size_t i = 0; i < series.size(); ++i) {
      const double y = kMargin + 16 + 18 * double(i);
      marker(svg, i, kMargin + 14, y, "#555", "legend", "");
      svg << "<text x=\"" << kMargin + 26 << "\" y=\"" << y + 4 << "\">" << hal::xmlEscape(series[i]) << "</text>\n";
    }
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace nnremote::tools
