#include "drivers/sim/timing/systolic_model.h"

#include <algorithm>

#include "drivers/sim/npu_config.h"

namespace nnremote::sim {
namespace {

uint64_t ceilDiv(uint64_t a, uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

}  // namespace

SystolicMapping mapGemm(uint64_t m, uint64_t n, uint64_t k, Dataflow dataflow) {
  switch (dataflow) {
    case WEIGHT_STATIONARY: return {k, n, m};
    case INPUT_STATIONARY: return {k, m, n};
    default: return {m, n, k};
  }
}

ArrayCompute arrayCompute(uint64_t m, uint64_t n, uint64_t k, uint32_t rows, uint32_t columns,
                          Dataflow dataflow, uint32_t cores, bool scalesimOffByOne) {
  ArrayCompute result;
  if (m == 0 || n == 0 || k == 0) return result;
  const SystolicMapping map = mapGemm(m, n, k, dataflow);
  result.rowFolds = ceilDiv(map.sr, rows);
  result.columnFolds = ceilDiv(map.sc, columns);
  const bool outputStationary = dataflow != WEIGHT_STATIONARY && dataflow != INPUT_STATIONARY;
  result.cyclesPerFold = outputStationary ? map.t + rows + columns - 2
                                          : 2 * uint64_t{rows} + columns + map.t - 2;
  const uint64_t folds = result.rowFolds * result.columnFolds;
  result.computeCycles = ceilDiv(folds, std::max(1u, cores)) * result.cyclesPerFold;
  if (scalesimOffByOne) result.computeCycles -= 1;
  const double peSlots = double(folds) * rows * columns;
  result.mappingEfficiency = 100.0 * double(map.sr) * double(map.sc) / peSlots;
  result.computeUtilization =
      100.0 * double(m) * n * k / (double(rows) * columns * std::max(1u, cores) * result.computeCycles);
  return result;
}

MemoryTraffic gemmTraffic(const GemmWork& gemm, const NpuConfig& npu) {
  const Dataflow dataflow = dataflowOf(npu);
  const uint64_t rows = npu.systolic_array().rows(), columns = npu.systolic_array().columns();
  const SystolicMapping map = mapGemm(gemm.m, gemm.n, gemm.k, dataflow);
  const uint64_t rowFolds = ceilDiv(map.sr, rows), columnFolds = ceilDiv(map.sc, columns);
  const uint64_t in = gemm.inputElementBytes, out = gemm.outputElementBytes;
  const uint64_t ifmapBytes = gemm.m * gemm.k * in;
  const uint64_t filterBytes = gemm.k * gemm.n * in;
  const uint64_t ofmapBytes = gemm.m * gemm.n * out;
  // Half of each SRAM holds the working set; the other half prefetches.
  const uint64_t ifmapHalf = uint64_t{npu.sram().ifmap_kib()} * 512;
  const uint64_t filterHalf = uint64_t{npu.sram().filter_kib()} * 512;
  const uint64_t ofmapHalf = uint64_t{npu.sram().ofmap_kib()} * 512;

  // Which fold loop each operand's tile depends on: row folds are the outer loop.
  enum class Varies { ROW, COLUMN, BOTH };
  Varies ifmapVaries, filterVaries;
  bool partialSums;  // outputs accumulate across row folds
  switch (dataflow) {
    case WEIGHT_STATIONARY:
      ifmapVaries = Varies::ROW, filterVaries = Varies::BOTH, partialSums = true;
      break;
    case INPUT_STATIONARY:
      ifmapVaries = Varies::BOTH, filterVaries = Varies::ROW, partialSums = true;
      break;
    default:
      ifmapVaries = Varies::ROW, filterVaries = Varies::COLUMN, partialSums = false;
  }
  auto dramReads = [&](uint64_t bytes, uint64_t half, Varies varies) {
    if (bytes <= half || varies != Varies::COLUMN) return bytes;
    return bytes * rowFolds;  // a column-indexed tile is needed again in every row fold
  };
  MemoryTraffic traffic;
  traffic.filterDramReadBytes = dramReads(filterBytes, filterHalf, filterVaries);
  traffic.dramReadBytes = dramReads(ifmapBytes, ifmapHalf, ifmapVaries) + traffic.filterDramReadBytes;
  traffic.dramWriteBytes = ofmapBytes;
  if (partialSums && rowFolds > 1 && ofmapBytes > ofmapHalf) {
    traffic.dramWriteBytes = ofmapBytes * rowFolds;
    traffic.dramReadBytes += ofmapBytes * (rowFolds - 1);
  }
  // The array reads every fold's tiles from SRAM: over all folds, each operand row/column is
  // fed once per fold of the other dimension.
  traffic.sramReadBytes = ifmapBytes * (ifmapVaries == Varies::ROW ? columnFolds : 1) +
                          filterBytes * (filterVaries == Varies::COLUMN ? rowFolds : 1);
  traffic.sramWriteBytes = ofmapBytes * (partialSums ? rowFolds : 1);
  const uint64_t folds = std::max<uint64_t>(1, rowFolds * columnFolds);
  traffic.firstFillBytes = std::min(traffic.dramReadBytes, traffic.dramReadBytes / folds + 1);
  const uint64_t repeat = std::max<uint64_t>(1, gemm.repeat);
  traffic.dramReadBytes *= repeat;
  traffic.filterDramReadBytes *= repeat;
  traffic.dramWriteBytes *= repeat;
  traffic.sramReadBytes *= repeat;
  traffic.sramWriteBytes *= repeat;
  return traffic;
}

}  // namespace nnremote::sim
