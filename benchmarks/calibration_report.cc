// calibration_report: every network built in code on the preset that stands for a real NPU,
// simulated against the latency that NPU publishes. `--html=FILE` also writes the table with a
// log-log plot (docs/timing.md shows it).
#include <fstream>
#include <iostream>

#include "benchmarks/calibration.h"
#include "flags/command_line.h"
#include "flags/named_flag.h"

NNREMOTE_FLAG(std::string, html, "html", "", "also write the table and a log-log plot to FILE");

namespace {

constexpr const char* kUsage = R"(usage: calibration_report [--html=FILE]

Runs each network of the published benchmark tables (docs/timing.md) on the preset that stands
for that NPU, and prints simulated time, published time and their ratio, one row per network.
)";

}  // namespace

int main(int argc, char** argv) {
  if (!nnremote::flags::parseCommandLine(argc, argv, kUsage).empty()) {
    std::cerr << kUsage;
    return 2;
  }
  auto rows = nnremote::benchmarks::calibrate();
  if (!rows.ok()) {
    std::cerr << "calibration_report: " << rows.error().message << "\n";
    return 1;
  }
  std::cout << nnremote::benchmarks::calibrationTable(*rows);
  if (const std::string path = absl::GetFlag(FLAGS_html); !path.empty()) {
    std::ofstream file(path);
    file << nnremote::benchmarks::calibrationHtml(*rows);
    if (!file) {
      std::cerr << "calibration_report: cannot write " << path << "\n";
      return 1;
    }
    std::cout << "wrote " << path << "\n";
  }
  return 0;
}
