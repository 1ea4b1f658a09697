#include "benchmarks/host_cpu_share.h"

#include <cstdio>
#include <sstream>

#include "drivers/sim/npu_config.h"
#include "benchmarks/calibration.h"

namespace nnremote::benchmarks {

double HostShareEvidence::hostCpuMs() const {
  const double speedup = boardCpuMs / desktopCpuMs;
  return (boardMs - acceleratorMs) / (1.0 - 1.0 / speedup);
}

const std::vector<HostShareEvidence>& hostShareEvidence() {
  // Coral, "Edge TPU performance benchmarks", table 1, whose columns are Desktop CPU, Desktop
  // CPU + USB Accelerator (USB 3.0), Embedded CPU and Dev Board; here in the struct's order
  // (Dev Board, USB Accelerator, Embedded CPU, Desktop CPU).
  static const auto* evidence = new std::vector<HostShareEvidence>{
      {"edgetpu", "MobileNet v1 SSD", "mobilenet-ssd-quant8", 11, 6.5, 353, 109},
      {"edgetpu", "MobileNet v2 SSD", "mobilenet-v2-ssd-quant8", 14, 7.2, 282, 106},
  };
  return *evidence;
}

hal::Result<std::vector<HostCpuCost>> deriveHostCpuCosts() {
  std::vector<HostCpuCost> costs;
  for (const HostShareEvidence& evidence : hostShareEvidence()) {
    NN_ASSIGN_OR_RETURN(sim::NpuConfig npu, sim::npuPreset(evidence.preset));
    if (!npu.has_host_cpu()) {
      return hal::invalidArgument() << "preset " << evidence.preset << " has no host_cpu";
    }
    HostCpuCost cost;
    cost.evidence = evidence;
    cost.presetCyclesPerElement = npu.host_cpu().cycles_per_element();
    const double hostClockMhz = npu.host_cpu().clock_mhz();
    // At one cycle per element on a host clocked as the NPU, the host operations' compute
    // cycles are their work.
    npu.mutable_host_cpu()->set_cycles_per_element(1);
    npu.mutable_host_cpu()->set_clock_mhz(npu.clock_mhz());
    NN_ASSIGN_OR_RETURN(const hal::ExecutionProfile profile, simulatedProfile(evidence.model, npu));
    for (const hal::OperationProfile& op : profile.operations) {
      if (op.unit == hal::ProfileUnit::HOST) cost.workElements += double(op.computeCycles);
    }
    if (cost.workElements <= 0) {
      return hal::invalidArgument() << evidence.model << " runs nothing on " << evidence.preset << "'s host CPU";
    }
    cost.cyclesPerElement = evidence.hostCpuMs() * hostClockMhz * 1e3 / cost.workElements;
    costs.push_back(cost);
  }
  return costs;
}

std::string hostCpuCostReport(const std::vector<HostCpuCost>& costs) {
  std::ostringstream out;
  char line[300];
  for (const HostCpuCost& cost : costs) {
    const HostShareEvidence& e = cost.evidence;
    std::snprintf(line, sizeof line,
                  "%s: %s's host CPU share is (%g - %g) / (1 - %g / %g) = %.2f ms; over %.0f elements of host "
                  "work that is %.2f host_cpu.cycles_per_element (the preset sets %.2f)\n",
                  e.preset.c_str(), e.network.c_str(), e.boardMs, e.acceleratorMs, e.desktopCpuMs, e.boardCpuMs,
                  e.hostCpuMs(), cost.workElements, cost.cyclesPerElement, cost.presetCyclesPerElement);
    out << line;
  }
  return out.str();
}

}  // namespace nnremote::benchmarks
