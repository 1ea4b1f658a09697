#include "benchmarks/overhead_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "drivers/sim/npu_config.h"
#include "benchmarks/calibration.h"

namespace nnremote::benchmarks {
namespace {

// Simulated over published, with `overhead` cycles per operation.
double ratioWith(const NetworkCost& n, uint64_t overhead) {
  return (double(n.baseCycles) + double(n.operations) * double(overhead)) / n.publishedCycles;
}

double squaredLogError(const std::vector<NetworkCost>& networks, uint64_t overhead) {
  double error = 0;
  for (const NetworkCost& n : networks) {
    const double logRatio = std::log(ratioWith(n, overhead));
    error += logRatio * logRatio;
  }
  return error;
}

}  // namespace

uint64_t fitOverheadCycles(const std::vector<NetworkCost>& networks) {
  uint64_t limit = 0;
  for (const NetworkCost& n : networks) {
    if (n.operations > 0) limit = std::max(limit, static_cast<uint64_t>(std::ceil(n.publishedCycles / n.operations)));
  }
  uint64_t best = 0;
  double bestError = squaredLogError(networks, 0);
  for (uint64_t c = 1; c <= limit; ++c) {
    const double error = squaredLogError(networks, c);
    if (error < bestError) bestError = error, best = c;
  }
  return best;
}

hal::Result<std::vector<OverheadFit>> fitOperationOverheads() {
  std::map<std::string, std::vector<const PublishedLatency*>> byPreset;
  std::vector<std::string> order;
  for (const PublishedLatency& published : publishedLatencies()) {
    if (byPreset.count(published.preset) == 0) order.push_back(published.preset);
    byPreset[published.preset].push_back(&published);
  }
  std::vector<OverheadFit> fits;
  for (const std::string& preset : order) {
    NN_ASSIGN_OR_RETURN(sim::NpuConfig npu, sim::npuPreset(preset));
    OverheadFit fit;
    fit.preset = preset;
    fit.clockMhz = npu.clock_mhz();
    fit.presetCycles = npu.operation_overhead_cycles();
    std::vector<NetworkCost> costs;
    for (const PublishedLatency* published : byPreset[preset]) {
      npu.set_operation_overhead_cycles(0);
      NN_ASSIGN_OR_RETURN(const uint64_t base, simulatedCycles(published->model, npu));
      npu.set_operation_overhead_cycles(1);
      NN_ASSIGN_OR_RETURN(const uint64_t withOne, simulatedCycles(published->model, npu));
      costs.push_back({published->network, base, withOne - base, published->milliseconds * npu.clock_mhz() * 1e3});
      fit.fitted.push_back(published->network);
    }
    fit.cycles = fitOverheadCycles(costs);
    if (costs.size() > 1) {
      for (size_t i = 0; i < costs.size(); ++i) {
        std::vector<NetworkCost> others = costs;
        others.erase(others.begin() + i);
        const uint64_t cycles = fitOverheadCycles(others);
        fit.leaveOneOut.push_back({costs[i].network, cycles, ratioWith(costs[i], cycles)});
      }
    }
    fits.push_back(std::move(fit));
  }
  return fits;
}

std::string overheadFitReport(const std::vector<OverheadFit>& fits) {
  std::ostringstream out;
  char line[300];
  for (const OverheadFit& fit : fits) {
    std::snprintf(line, sizeof line,
                  "%s: operation_overhead_cycles %llu (%.2f us at %g MHz), fitted over %zu networks; the preset "
                  "sets %llu\n",
                  fit.preset.c_str(), static_cast<unsigned long long>(fit.cycles), fit.cycles / fit.clockMhz,
                  fit.clockMhz, fit.fitted.size(), static_cast<unsigned long long>(fit.presetCycles));
    out << line;
    for (const OverheadFit::HeldOut& held : fit.leaveOneOut) {
      std::snprintf(line, sizeof line, "  %-22s fitted on the others: %6llu cycles (%6.2f us), its ratio %.2f%s\n",
                    held.network.c_str(), static_cast<unsigned long long>(held.cycles), held.cycles / fit.clockMhz,
                    held.ratio, outsideCalibrationBand(held.ratio) ? "  outside ±25%" : "");
      out << line;
    }
  }
  return out.str();
}

}  // namespace nnremote::benchmarks
