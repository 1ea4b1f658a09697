#include "tools/trace_render.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "hal/operand_types.h"
#include "hal/text_escape.h"

namespace nnremote::tools {
namespace {

// Track ids: one per NPU unit and one for the host CPU's operations, as Perfetto shows threads;
// kHostTrack is the simulation's own wall time.
constexpr int kArrayTrack = 1, kVectorTrack = 2, kDramTrack = 3, kHostTrack = 4, kHostCpuTrack = 5;

std::string jsonEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out;
}


std::string number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  return buffer;
}

int trackOf(const hal::OperationProfile& op) {
  switch (op.unit) {
    case hal::ProfileUnit::ARRAY: return kArrayTrack;
    case hal::ProfileUnit::HOST: return kHostCpuTrack;
    default: return kVectorTrack;
  }
}

// The HTML timeline's row of an operation: array, vector unit, or host CPU (DMA is row 2).
int htmlRowOf(const hal::OperationProfile& op) {
  switch (trackOf(op)) {
    case kArrayTrack: return 0;
    case kHostCpuTrack: return 3;
    default: return 1;
  }
}

std::string sliceName(const hal::OperationProfile& op) {
  return hal::toString(op.type) + " #" + std::to_string(op.operationIndex);
}

// The slice arguments Perfetto shows when a slice is selected, and the HTML tooltip.
std::vector<std::pair<std::string, std::string>> sliceArguments(const hal::OperationProfile& op) {
  return {{"operation", std::to_string(op.operationIndex)},
          {"total_cycles", std::to_string(op.totalCycles)},
          {"compute_cycles", std::to_string(op.computeCycles)},
          {"stall_cycles", std::to_string(op.stallCycles)},
          {"overhead_cycles", std::to_string(op.overheadCycles)},
          {"macs", std::to_string(op.macs)},
          {"utilization_percent", number(op.overallUtilization)},
          {"compute_utilization_percent", number(op.computeUtilization)},
          {"mapping_efficiency_percent", number(op.mappingEfficiency)},
          {"dram_read_bytes", std::to_string(op.dramReadBytes)},
          {"dram_write_bytes", std::to_string(op.dramWriteBytes)},
          {"sram_read_bytes", std::to_string(op.sramReadBytes)},
          {"sram_write_bytes", std::to_string(op.sramWriteBytes)}};
}

}  // namespace

std::string toChromeTraceJson(const hal::ExecutionProfile& profile) {
  const double usPerCycle = profile.clockHz > 0 ? 1e6 / profile.clockHz : 0;
  std::ostringstream out;
  out << "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"device\":\"" << jsonEscape(profile.deviceName)
      << "\",\"clock_hz\":" << number(profile.clockHz) << ",\"total_cycles\":" << profile.totalCycles
      << ",\"host_wall_ns\":" << profile.hostWallNanoseconds << "},\"traceEvents\":[";
  bool first = true;
  auto event = [&](const std::string& body) {
    out << (first ? "\n" : ",\n") << "{" << body << "}";
    first = false;
  };
  event("\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"" +
        jsonEscape(profile.deviceName) + " (simulated device time)\"}");
  for (const auto& [tid, name] : {std::make_pair(kArrayTrack, "systolic array"),
                                  std::make_pair(kVectorTrack, "vector unit"),
                                  std::make_pair(kDramTrack, "DMA / DRAM"),
                                  std::make_pair(kHostCpuTrack, "host CPU")}) {
    event("\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":" + std::to_string(tid) +
          ",\"args\":{\"name\":\"" + name + "\"}");
  }
  event("\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"tid\":0,\"args\":{\"name\":\"host (simulation wall time)\"}");
  event("\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,\"tid\":" + std::to_string(kHostTrack) +
        ",\"args\":{\"name\":\"emulator\"}");

  for (const hal::OperationProfile& op : profile.operations) {
    std::ostringstream args;
    bool firstArg = true;
    for (const auto& [key, value] : sliceArguments(op)) {
      args << (firstArg ? "" : ",") << "\"" << key << "\":" << value;
      firstArg = false;
    }
    const double ts = double(op.startCycle) * usPerCycle;
    event("\"name\":\"" + sliceName(op) + "\",\"cat\":\"" +
          hal::toString(op.unit) + "\",\"ph\":\"X\",\"pid\":1,\"tid\":" +
          std::to_string(trackOf(op)) + ",\"ts\":" + number(ts) + ",\"dur\":" +
          number(double(op.totalCycles) * usPerCycle) + ",\"args\":{" + args.str() + "}");
    if (op.dramCycles > 0) {
      // Transfers overlap compute (double buffering); the slice shows how busy the interface is.
      event("\"name\":\"DRAM " + sliceName(op) + "\",\"cat\":\"dram\",\"ph\":\"X\",\"pid\":1,\"tid\":" +
            std::to_string(kDramTrack) + ",\"ts\":" + number(ts) + ",\"dur\":" +
            number(double(std::min(op.dramCycles, op.totalCycles)) * usPerCycle) +
            ",\"args\":{\"read_bytes\":" + std::to_string(op.dramReadBytes) + ",\"write_bytes\":" +
            std::to_string(op.dramWriteBytes) + ",\"busy_cycles\":" + std::to_string(op.dramCycles) + "}");
    }
  }
  event("\"name\":\"execution on host\",\"cat\":\"host\",\"ph\":\"X\",\"pid\":2,\"tid\":" +
        std::to_string(kHostTrack) + ",\"ts\":0,\"dur\":" + number(profile.hostWallNanoseconds / 1e3) +
        ",\"args\":{\"host_wall_ns\":" + std::to_string(profile.hostWallNanoseconds) + "}");
  out << "\n]}\n";
  return out.str();
}

std::string toHtmlTimeline(const hal::ExecutionProfile& profile, const std::string& title) {
  constexpr int kWidth = 1400, kLabel = 150, kRow = 46, kTop = 70;
  const int plot = kWidth - kLabel - 20;
  const double total = std::max<double>(1.0, double(profile.totalCycles));
  const double usPerCycle = profile.clockHz > 0 ? 1e6 / profile.clockHz : 0;
  auto x = [&](uint64_t cycle) { return kLabel + plot * double(cycle) / total; };
  constexpr int kRows = 4;
  const int height = kTop + kRows * kRow + 60;

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg << "<text x=\"10\" y=\"22\" font-size=\"16\" font-weight=\"bold\">" << hal::xmlEscape(title) << "</text>\n";
  svg << "<text x=\"10\" y=\"42\">" << hal::xmlEscape(profile.deviceName) << ": " << profile.totalCycles
      << " cycles = " << number(double(profile.totalCycles) * usPerCycle) << " us simulated device time at "
      << number(profile.clockHz / 1e6) << " MHz; " << profile.operations.size()
      << " operations; host simulation wall time " << number(profile.hostWallNanoseconds / 1e6)
      << " ms</text>\n";
  const char* rows[kRows] = {"systolic array", "vector unit", "DMA / DRAM", "host CPU"};
  for (int r = 0; r < kRows; ++r) {
    const int y = kTop + r * kRow;
    svg << "<rect x=\"" << kLabel << "\" y=\"" << y << "\" width=\"" << plot << "\" height=\""
        << kRow - 8 << "\" fill=\"#f3f3f3\"/>\n<text x=\"10\" y=\"" << y + kRow / 2 << "\">" << rows[r]
        << "</text>\n";
  }
  // Time axis in microseconds of device time.
  const int axisY = kTop + kRows * kRow + 4;
  for (int tick = 0; tick <= 10; ++tick) {
    const double fx = kLabel + plot * tick / 10.0;
    svg << "<line x1=\"" << fx << "\" y1=\"" << kTop << "\" x2=\"" << fx << "\" y2=\"" << axisY
        << "\" stroke=\"#ccc\"/><text x=\"" << fx << "\" y=\"" << axisY + 16 << "\" text-anchor=\""
        << (tick == 0 ? "start" : tick == 10 ? "end" : "middle") << "\">"
        << number(total * usPerCycle * tick / 10.0) << " us</text>\n";
  }
  for (const hal::OperationProfile& op : profile.operations) {
    const int row = htmlRowOf(op);
    const double x0 = x(op.startCycle), width = std::max(1.0, x(op.startCycle + op.totalCycles) - x0);
    std::ostringstream tip;
    tip << sliceName(op);
    for (const auto& [key, value] : sliceArguments(op)) tip << "\n" << key << ": " << value;
    const char* color = row == 0 ? "#4e79a7" : row == 3 ? "#9c755f" : "#59a14f";
    svg << "<g class=\"op\"><title>" << hal::xmlEscape(tip.str()) << "</title><rect x=\"" << x0 << "\" y=\""
        << kTop + row * kRow + 2 << "\" width=\"" << width << "\" height=\"" << kRow - 12
        << "\" fill=\"" << color << "\" stroke=\"white\" stroke-width=\"0.5\"/>";
    if (op.stallCycles > 0) {
      // The stalled part of the slice, hatched darker.
      const double stallWidth = width * double(op.stallCycles) / double(std::max<uint64_t>(1, op.totalCycles));
      svg << "<rect x=\"" << x0 + width - stallWidth << "\" y=\"" << kTop + row * kRow + 2
          << "\" width=\"" << stallWidth << "\" height=\"" << kRow - 12 << "\" fill=\"#e15759\" opacity=\"0.7\"/>";
    }
    if (width > 60) {
      svg << "<text x=\"" << x0 + 3 << "\" y=\"" << kTop + row * kRow + 22 << "\" fill=\"white\">"
          << hal::xmlEscape(hal::toString(op.type)) << "</text>";
    }
    svg << "</g>\n";
    if (op.dramCycles > 0) {
      const double dramWidth = std::max(1.0, x(op.startCycle + std::min(op.dramCycles, op.totalCycles)) - x0);
      svg << "<rect x=\"" << x0 << "\" y=\"" << kTop + 2 * kRow + 2 << "\" width=\"" << dramWidth
          << "\" height=\"" << kRow - 12 << "\" fill=\"#f28e2b\"><title>DRAM " << hal::xmlEscape(sliceName(op))
          << ": " << op.dramReadBytes << " bytes read, " << op.dramWriteBytes << " written</title></rect>\n";
    }
  }
  svg << "<text x=\"" << kLabel << "\" y=\"" << height - 8 << "\">blue: array, green: vector unit, brown: host CPU, "
      << "red: stalls (DRAM, host link), orange: DRAM busy. Hover a slice for cycles, bytes and utilization.</text>\n";
  svg << "</svg>\n";

  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << hal::xmlEscape(title)
       << "</title><style>body{margin:12px;background:#fff} .op:hover rect{opacity:0.8}</style></head><body>\n"
       << svg.str() << "</body></html>\n";
  return html.str();
}

}  // namespace nnremote::tools
