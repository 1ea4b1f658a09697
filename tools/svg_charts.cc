#include "tools/svg_charts.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "hal/text_escape.h"

namespace nnremote::tools {
namespace {

constexpr int kLeft = 64, kRight = 16, kTop = 16, kBottom = 52;

// A round step for about `ticks` ticks up to `max`.
double tickStep(double max, int ticks) {
  if (max <= 0) return 1;
  const double raw = max / ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double multiple : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= multiple * magnitude) return multiple * magnitude;
  }
  return 10 * magnitude;
}

std::string number(double value) {
  std::ostringstream out;
  if (std::fabs(value) >= 1000) {
    out << std::fixed << std::setprecision(0) << value;  // 40000, not 4e+04
  } else {
    out.precision(value != 0 && std::fabs(value) < 0.01 ? 2 : 4);
    out << value;
  }
  return out.str();
}

// The frame, the y grid with its labels, and both axis titles; returns the y scale's top.
double frame(std::ostringstream& svg, const ChartOptions& options, double maxY) {
  const int plotWidth = options.width - kLeft - kRight, plotHeight = options.height - kTop - kBottom;
  const double step = tickStep(maxY, 5);
  const double top = std::max(step, std::ceil(maxY / step) * step);
  svg << "<svg id=\"" << hal::xmlEscape(options.id) << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
      << options.width << "\" height=\"" << options.height << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  for (double y = 0; y <= top + step / 2; y += step) {
    const double py = kTop + plotHeight - y / top * plotHeight;
    svg << "<line x1=\"" << kLeft << "\" x2=\"" << kLeft + plotWidth << "\" y1=\"" << py << "\" y2=\"" << py
        << "\" stroke=\"#e3e3e3\"/><text x=\"" << kLeft - 6 << "\" y=\"" << py + 4
        << "\" text-anchor=\"end\">" << number(y) << "</text>\n";
  }
  svg << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << plotWidth << "\" height=\"" << plotHeight
      << "\" fill=\"none\" stroke=\"#888\"/>\n"
      << "<text x=\"" << kLeft + plotWidth / 2 << "\" y=\"" << options.height - 8 << "\" text-anchor=\"middle\">"
      << hal::xmlEscape(options.xLabel) << "</text>\n"
      << "<text transform=\"translate(14," << kTop + plotHeight / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
      << hal::xmlEscape(options.yLabel) << "</text>\n";
  return top;
}

}  // namespace

std::string barChart(const std::vector<Bar>& bars, const ChartOptions& options) {
  std::ostringstream svg;
  double maxY = 0;
  for (const Bar& bar : bars) maxY = std::max(maxY, bar.value);
  const double top = frame(svg, options, maxY);
  const int plotWidth = options.width - kLeft - kRight, plotHeight = options.height - kTop - kBottom;
  const double slot = bars.empty() ? 0 : static_cast<double>(plotWidth) / static_cast<double>(bars.size());
  const size_t labelEvery = std::max<size_t>(1, static_cast<size_t>(std::ceil(60.0 / std::max(slot, 1.0))));
  for (size_t i = 0; i < bars.size(); ++i) {
    const double height = bars[i].value / top * plotHeight;
    const double x = kLeft + slot * static_cast<double>(i);
    svg << "<rect class=\"bar\" x=\"" << x + slot * 0.1 << "\" y=\"" << kTop + plotHeight - height << "\" width=\""
        << slot * 0.8 << "\" height=\"" << height << "\" fill=\"#4878d0\"><title>" << hal::xmlEscape(bars[i].tip)
        << "</title></rect>\n";
    if (i % labelEvery == 0) {
      svg << "<text x=\"" << x + slot / 2 << "\" y=\"" << kTop + plotHeight + 14 << "\" text-anchor=\"middle\">"
          << hal::xmlEscape(bars[i].label) << "</text>\n";
    }
  }
  svg << "</svg>\n";
  return svg.str();
}

std::string horizontalBarChart(const std::vector<Bar>& bars, const ChartOptions& options,
                               const std::string& valueSuffix) {
  std::ostringstream svg;
  const int rowHeight = 22, labelWidth = 190, valueWidth = 110;
  const int height = kTop + rowHeight * static_cast<int>(bars.size()) + 8;
  double maxValue = 0;
  for (const Bar& bar : bars) maxValue = std::max(maxValue, bar.value);
  svg << "<svg id=\"" << hal::xmlEscape(options.id) << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
      << options.width << "\" height=\"" << height << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  const double span = options.width - labelWidth - valueWidth;
  for (size_t i = 0; i < bars.size(); ++i) {
    const double y = kTop + rowHeight * static_cast<double>(i);
    const double width = maxValue > 0 ? bars[i].value / maxValue * span : 0;
    svg << "<text x=\"" << labelWidth - 8 << "\" y=\"" << y + 14 << "\" text-anchor=\"end\">"
        << hal::xmlEscape(bars[i].label) << "</text>\n"
        << "<rect class=\"bar\" x=\"" << labelWidth << "\" y=\"" << y + 3 << "\" width=\"" << width
        << "\" height=\"" << rowHeight - 6 << "\" fill=\"#ee854a\"><title>" << hal::xmlEscape(bars[i].tip)
        << "</title></rect>\n"
        << "<text x=\"" << labelWidth + width + 6 << "\" y=\"" << y + 14 << "\">" << number(bars[i].value)
        << hal::xmlEscape(valueSuffix) << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

std::string lineChart(const std::vector<Series>& series, const ChartOptions& options) {
  std::ostringstream svg;
  double maxX = 0, maxY = 0;
  for (const Series& s : series) {
    for (const auto& [x, y] : s.points) {
      maxX = std::max(maxX, x);
      maxY = std::max(maxY, y);
    }
  }
  const double top = frame(svg, options, maxY);
  const int plotWidth = options.width - kLeft - kRight, plotHeight = options.height - kTop - kBottom;
  const double right = std::max(maxX, 1e-9);
  for (double x = 0, step = tickStep(right, 8); x <= right + step / 2; x += step) {
    svg << "<text x=\"" << kLeft + x / right * plotWidth << "\" y=\"" << kTop + plotHeight + 14
        << "\" text-anchor=\"middle\">" << number(x) << "</text>\n";
  }
  for (size_t i = 0; i < series.size(); ++i) {
    svg << "<polyline class=\"series\" fill=\"none\" stroke-width=\"1.8\" stroke=\"" << series[i].color
        << "\" points=\"";
    for (const auto& [x, y] : series[i].points) {
      svg << kLeft + x / right * plotWidth << "," << kTop + plotHeight - y / top * plotHeight << " ";
    }
    svg << "\"><title>" << hal::xmlEscape(series[i].name) << "</title></polyline>\n";
    const int legendY = kTop + 12 + 16 * static_cast<int>(i);
    svg << "<line x1=\"" << kLeft + 12 << "\" x2=\"" << kLeft + 32 << "\" y1=\"" << legendY - 4 << "\" y2=\""
        << legendY - 4 << "\" stroke=\"" << series[i].color << "\" stroke-width=\"2\"/><text x=\"" << kLeft + 38
        << "\" y=\"" << legendY << "\">" << hal::xmlEscape(series[i].name) << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace nnremote::tools
