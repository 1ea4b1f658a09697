// Where main's data lives on the simulated NPU, as the timing model prices it: constants held in
// the parameter cache cost no DRAM traffic, and tensors crossing the host link cost its
// transfers. Both are decided once per model, from main's operations in order.
#ifndef NNREMOTE_DRIVERS_SIM_DATA_RESIDENCY_H_
#define NNREMOTE_DRIVERS_SIM_DATA_RESIDENCY_H_

#include <cstdint>
#include <set>
#include <vector>

#include "drivers/sim/npu_config.h"
#include "hal/types.h"

namespace nnremote::sim {

// The parameter cache's contents: main's operations in order, each resident if its constants
// (not counted again when shared) still fit; the first that does not fit, and every later one,
// streams. Referenced subgraphs' constants always stream. One entry per main operation.
std::vector<bool> placeConstantsInCache(const hal::Model& model, const NpuConfig& npu);

// What crosses the host link before each main operation runs, and the model's outputs. The
// model's inputs start in host memory. An NPU operation needs brought over the inputs it is the
// first NPU operation to read; an operation the host's CPU runs (NpuConfig.host_cpu), the
// NPU's results it is the first host operation to read. Results the host CPU writes are in
// host memory, so its model outputs cost nothing more.
struct HostTransfers {
  // Per main operation: the inputs that cross the link before the operation runs, and whether
  // the model outputs it writes cross back (not when the host CPU ran it).
  std::vector<std::vector<uint32_t>> crossingInputsOf;
  std::vector<bool> writesCrossingOutputs;
  std::set<uint32_t> modelOutputs;
};
HostTransfers findHostTransfers(const hal::Model& model, const NpuConfig& npu);

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_DATA_RESIDENCY_H_
