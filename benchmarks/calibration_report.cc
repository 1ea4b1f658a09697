// calibration_report: every network built in code on the preset that stands for a real NPU,
// simulated against the latency that NPU publishes. `--html=FILE` also writes the table with a
// log-log plot (docs/timing.md shows it); `--fit` fits each preset's operation overhead.
#include <fstream>
#include <iostream>

#include "benchmarks/calibration.h"
#include "benchmarks/host_cpu_share.h"
#include "benchmarks/overhead_fit.h"
#include "flags/command_line.h"
#include "flags/named_flag.h"

NNREMOTE_FLAG(std::string, html, "html", "", "also write the table and a log-log plot to FILE");
NNREMOTE_FLAG(bool, fit, "fit", false,
              "also derive the host CPU's cost from Coral's table, and fit each preset's "
              "operation_overhead_cycles to its published latencies, with a leave-one-out check");

namespace {

constexpr const char* kUsage = R"(usage: calibration_report [--html=FILE] [--fit]

Runs each network of the published benchmark tables (docs/timing.md) on the preset that stands
for that NPU, and prints simulated time, published time and their ratio, one row per network.

--fit also shows where the two calibrated parameters come from:
  - host_cpu.cycles_per_element, for the operations the Edge TPU leaves to the Dev Board's CPU:
    the CPU's share of each SSD, from the other columns of Coral's table, over the work of those
    operations. The edgetpu preset takes MobileNet v1 SSD's; MobileNet v2 SSD's is shown beside
    it.
  - operation_overhead_cycles, the fixed cost of every operation: for each preset, the whole
    number of cycles that minimises the sum of squared log ratios over its networks. Each network
    is then fitted again without it, and its ratio with that overhead shown: how well the fit
    predicts a network it has not seen.
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
  if (absl::GetFlag(FLAGS_fit)) {
    auto hostCosts = nnremote::benchmarks::deriveHostCpuCosts();
    if (!hostCosts.ok()) {
      std::cerr << "calibration_report: " << hostCosts.error().message << "\n";
      return 1;
    }
    std::cout << "\n" << nnremote::benchmarks::hostCpuCostReport(*hostCosts);
    auto fits = nnremote::benchmarks::fitOperationOverheads();
    if (!fits.ok()) {
      std::cerr << "calibration_report: " << fits.error().message << "\n";
      return 1;
    }
    std::cout << "\n" << nnremote::benchmarks::overheadFitReport(*fits);
  }
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
