// The fixed cost per operation (NpuConfig.operation_overhead_cycles) a preset takes from the
// latencies its NPU publishes: no NPU publishes that cost, yet every one has it, and it is most
// of the time of a small network (docs/timing.md#a-fixed-cost-per-operation).
#ifndef NNREMOTE_BENCHMARKS_OVERHEAD_FIT_H_
#define NNREMOTE_BENCHMARKS_OVERHEAD_FIT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hal/result.h"

namespace nnremote::benchmarks {

// One network as the fit sees it. Its simulated cycles are linear in the overhead c:
// baseCycles + operations * c (operations counts those inside control flow too).
struct NetworkCost {
  std::string network;
  uint64_t baseCycles = 0;  // simulated with no overhead
  uint64_t operations = 0;
  double publishedCycles = 0;  // the published time at the preset's clock
};

// The overhead, in whole cycles, that minimises the sum over `networks` of the squared log of
// simulated over published: each network weighs the same whatever its size, and being 2x too
// slow costs as much as 2x too fast. Scans every cycle count from 0 to the one at which the
// overhead alone exceeds every published time, beyond which the error only grows.
uint64_t fitOverheadCycles(const std::vector<NetworkCost>& networks);

struct OverheadFit {
  std::string preset;
  double clockMhz = 0;
  uint64_t cycles = 0;               // the fitted operation_overhead_cycles
  uint64_t presetCycles = 0;         // what the preset sets now
  std::vector<std::string> fitted;   // the networks fitted: all of the preset's
  // Each fitted network with the overhead fitted on the preset's other networks alone: that
  // overhead and the network's ratio with it, a test of whether the fit predicts.
  struct HeldOut {
    std::string network;
    uint64_t cycles = 0;
    double ratio = 0;
  };
  std::vector<HeldOut> leaveOneOut;
};

// Fits every preset of publishedLatencies(): simulates each of its networks twice, with no
// overhead and with one cycle, which gives baseCycles and operations.
hal::Result<std::vector<OverheadFit>> fitOperationOverheads();

std::string overheadFitReport(const std::vector<OverheadFit>& fits);

}  // namespace nnremote::benchmarks

#endif  // NNREMOTE_BENCHMARKS_OVERHEAD_FIT_H_
