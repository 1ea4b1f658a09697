// SCALE-Sim's systolic-array compute model, and a tiled DRAM/SRAM traffic model on top of it.
//
// A GEMM maps onto the array as (Sr, Sc, T) per dataflow:
//   OS: Sr = M (output pixels), Sc = N (filters), T = K
//   WS: Sr = K,                 Sc = N,           T = M
//   IS: Sr = K,                 Sc = M,           T = N
// folds = ceil(Sr / R) * ceil(Sc / C); cycles per fold are T + R + C - 2 (OS) or 2R + C + T - 2
// (WS, IS). SCALE-Sim reports folds * per_fold - 1; we report the count unless asked for parity.
#ifndef NNREMOTE_DRIVERS_SIM_TIMING_SYSTOLIC_MODEL_H_
#define NNREMOTE_DRIVERS_SIM_TIMING_SYSTOLIC_MODEL_H_

#include <cstdint>

#include "drivers/sim/npu_config.pb.h"
#include "drivers/sim/timing/operation_work.h"

namespace nnremote::sim {

struct SystolicMapping {
  uint64_t sr = 0, sc = 0, t = 0;
};

SystolicMapping mapGemm(uint64_t m, uint64_t n, uint64_t k, Dataflow dataflow);

struct ArrayCompute {
  uint64_t rowFolds = 0, columnFolds = 0;
  uint64_t cyclesPerFold = 0;
  uint64_t computeCycles = 0;     // stall-free
  double mappingEfficiency = 0;   // % of PEs mapped, averaged over folds
  double computeUtilization = 0;  // % of PE-cycles doing a MAC
};

// Stall-free cycles of one GEMM on an R x C array. `cores` share the folds.
ArrayCompute arrayCompute(uint64_t m, uint64_t n, uint64_t k, uint32_t rows, uint32_t columns,
                          Dataflow dataflow, uint32_t cores, bool scalesimOffByOne);

struct MemoryTraffic {
  uint64_t dramReadBytes = 0, dramWriteBytes = 0;
  uint64_t sramReadBytes = 0, sramWriteBytes = 0;
  uint64_t firstFillBytes = 0;  // what must arrive before the first fold can start
  uint64_t filterDramReadBytes = 0;  // the part of dramReadBytes that is the filter (B)
};

// DRAM and SRAM traffic of one GEMM tiled into folds, rows folds outermost. An operand that
// fits in half its SRAM (the other half is the prefetch buffer) is read once; otherwise a tile
// used by consecutive folds is read once, and a tile needed again in every outer fold is read
// again each time. Partial sums that do not fit in the ofmap SRAM spill to DRAM and come back.
MemoryTraffic gemmTraffic(const GemmWork& gemm, const NpuConfig& npu);

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_TIMING_SYSTOLIC_MODEL_H_
