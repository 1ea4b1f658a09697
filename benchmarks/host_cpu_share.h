// The share of a network's published time its host's CPU takes, for the operations an NPU leaves
// to it (NpuConfig.host_cpu): no vendor publishes it, but Coral's benchmark table prices it in
// its other columns (docs/timing.md#work-the-npu-leaves-to-its-host).
#ifndef NNREMOTE_BENCHMARKS_HOST_CPU_SHARE_H_
#define NNREMOTE_BENCHMARKS_HOST_CPU_SHARE_H_

#include <string>
#include <vector>

#include "hal/result.h"

namespace nnremote::benchmarks {

// One row of Coral's table, all four columns. The same Edge TPU runs the network on the Dev
// Board (PCIe, its Cortex-A53 running what the Edge TPU cannot) and as the USB Accelerator on a
// desktop (a Xeon running it). For networks the Edge TPU runs whole the two agree (MobileNet v1
// 2.4 and 2.4 ms, v2 2.6 and 2.6), so the difference is the host CPU's share on the A53, s,
// less that share on the Xeon, s / speedup, where speedup is how much faster the Xeon runs the
// whole network on its own (the two CPU columns): s = difference / (1 - 1 / speedup).
struct HostShareEvidence {
  std::string preset, network, model;
  double boardMs = 0;         // Dev Board with Edge TPU
  double acceleratorMs = 0;   // Desktop CPU + USB Accelerator
  double boardCpuMs = 0;      // Embedded CPU: the Dev Board's Cortex-A53 alone
  double desktopCpuMs = 0;    // Desktop CPU alone
  double hostCpuMs() const;
};

// Coral's rows for the networks built in code whose end the Edge TPU leaves to the CPU: the two
// SSDs (their DETECTION_POSTPROCESSING and the dequantization before it).
const std::vector<HostShareEvidence>& hostShareEvidence();

struct HostCpuCost {
  HostShareEvidence evidence;
  double workElements = 0;      // the host operations' work, in host_cpu.cycles_per_element units
  double cyclesPerElement = 0;  // what the share gives: share x host clock / work
  double presetCyclesPerElement = 0;
};

// For each evidence row: simulates its model on its preset to count the host operations' work,
// and the cycles per element that make that work take the share.
hal::Result<std::vector<HostCpuCost>> deriveHostCpuCosts();

std::string hostCpuCostReport(const std::vector<HostCpuCost>& costs);

}  // namespace nnremote::benchmarks

#endif  // NNREMOTE_BENCHMARKS_HOST_CPU_SHARE_H_
