#include "drivers/sim/timing/operation_timing.h"

#include <algorithm>
#include <cmath>

#include "drivers/sim/npu_config.h"
#include "drivers/sim/timing/systolic_model.h"
#include "hal/operand_types.h"

namespace nnremote::sim {
namespace {

// The most cycles one stage of one operation may take: 2^48 (three days at 1 GHz), so that sums
// over an execution's operations cannot wrap around. A cost past it (a config's absurdly slow
// link or vector unit) counts as this many, not as whatever the cast of a too-large double gives.
constexpr double kMostStageCycles = 281474976710656.0;

uint64_t cyclesOf(double cycles) {
  if (!(cycles > 0)) return 0;
  return static_cast<uint64_t>(std::ceil(std::min(cycles, kMostStageCycles)));
}

double cyclesPerElement(const NpuConfig& npu, hal::OperationType type) {
  const auto& costs = npu.vector_unit().cycles_per_element();
  const auto it = costs.find(hal::toString(type));
  return it != costs.end() ? it->second : npu.vector_unit().default_cycles_per_element();
}

// An operation the host's CPU runs: its work on one core at host_cpu.cycles_per_element, after
// the NPU's results it reads have crossed the host link. Expressed in the NPU's cycles, so the
// execution's timeline adds up on one clock.
hal::OperationProfile estimateHostCpuOperation(const OperationWork& work, hal::OperationType type,
                                               const NpuConfig& npu) {
  hal::OperationProfile timing;
  timing.type = type;
  timing.unit = hal::ProfileUnit::HOST;
  for (const GemmWork& gemm : work.gemms) timing.macs += gemm.macs();
  const HostCpu& host = npu.host_cpu();
  const double hostCycles = double(work.vectorElements + timing.macs) * host.cycles_per_element();
  timing.computeCycles = cyclesOf(hostCycles * npu.clock_mhz() / host.clock_mhz());
  if (npu.has_host_link()) {
    // The CPU cannot start before its inputs have arrived: the transfer does not overlap.
    timing.stallCycles =
        cyclesOf(double(work.hostInputBytes + work.hostOutputBytes) / npu.host_link().bytes_per_cycle());
  }
  timing.totalCycles = timing.computeCycles + timing.stallCycles;
  return timing;
}

}  // namespace

hal::OperationProfile estimateOperation(const OperationWork& work, hal::OperationType type,
                                        const NpuConfig& npu) {
  if (runsOnHostCpu(npu, type)) return estimateHostCpuOperation(work, type, npu);
  hal::OperationProfile timing;
  timing.type = type;
  timing.unit = work.gemms.empty() ? hal::ProfileUnit::VECTOR : hal::ProfileUnit::ARRAY;
  const uint32_t rows = npu.systolic_array().rows(), columns = npu.systolic_array().columns();
  const uint32_t cores = std::max(1u, npu.cores());

  const bool parameterCache = npu.has_parameter_cache();
  uint64_t firstFill = 0;
  double weightedMapping = 0;
  for (const GemmWork& gemm : work.gemms) {
    const ArrayCompute compute = arrayCompute(gemm.m, gemm.n, gemm.k, rows, columns,
                                              dataflowOf(npu), cores, npu.scalesim_off_by_one());
    timing.computeCycles += compute.computeCycles * gemm.repeat;
    timing.macs += gemm.macs();
    weightedMapping += compute.mappingEfficiency * double(gemm.macs());
    const MemoryTraffic traffic = gemmTraffic(gemm, npu);
    // Constants in a parameter cache come from it (or the host link), not from DRAM.
    timing.dramReadBytes += traffic.dramReadBytes - (parameterCache ? traffic.filterDramReadBytes : 0);
    timing.dramWriteBytes += traffic.dramWriteBytes;
    timing.sramReadBytes += traffic.sramReadBytes;
    timing.sramWriteBytes += traffic.sramWriteBytes;
    if (firstFill == 0) firstFill = traffic.firstFillBytes;
  }
  if (work.vectorElements > 0) {
    const double laneCycles = double(work.vectorElements) * cyclesPerElement(npu, type);
    timing.computeCycles +=
        cyclesOf(laneCycles / (double(npu.vector_unit().lanes()) * cores));
  }
  if (work.gemms.empty()) {
    // Vector operations stream their operands through SRAM once, to and from DRAM.
    timing.dramReadBytes = work.activationBytes + (parameterCache ? 0 : work.weightBytes);
    timing.dramWriteBytes = work.outputBytes;
    timing.sramReadBytes = timing.dramReadBytes;
    timing.sramWriteBytes = timing.dramWriteBytes;
    firstFill = std::min<uint64_t>(timing.dramReadBytes, uint64_t{npu.vector_unit().lanes()} * 4);
  }

  const double bandwidth = npu.dram().bytes_per_cycle();
  if (bandwidth > 0) {
    const uint64_t dramBytes = timing.dramReadBytes + timing.dramWriteBytes;
    timing.dramCycles = cyclesOf(double(dramBytes) / bandwidth);
    const uint64_t fillCycles = cyclesOf(double(firstFill) / bandwidth);
    // Double buffering hides transfers behind compute; what it cannot hide is the first tile,
    // the latency, and any transfer time beyond the compute time.
    timing.stallCycles = npu.dram().latency_cycles() + fillCycles +
                         (timing.dramCycles > timing.computeCycles
                              ? timing.dramCycles - timing.computeCycles
                              : 0);
  }
  if (npu.has_host_link()) {
    // Streamed constants and the model's inputs and outputs cross the host link while the
    // operation computes; what does not fit behind the compute (and the DRAM transfers) stalls it.
    const uint64_t hostBytes = work.hostInputBytes + work.hostOutputBytes +
                               (parameterCache && !work.weightsResident ? work.weightBytes : 0);
    const uint64_t hostCycles =
        cyclesOf(double(hostBytes) / npu.host_link().bytes_per_cycle());
    const uint64_t hidden = std::max(timing.computeCycles, timing.dramCycles);
    if (hostCycles > hidden) timing.stallCycles += hostCycles - hidden;
  }
  timing.overheadCycles = npu.operation_overhead_cycles();
  timing.totalCycles = timing.computeCycles + timing.stallCycles + timing.overheadCycles;
  if (timing.macs > 0) {
    const double pes = double(rows) * columns * cores;
    timing.mappingEfficiency = weightedMapping / double(timing.macs);
    timing.computeUtilization = 100.0 * double(timing.macs) / (pes * double(timing.computeCycles));
    timing.overallUtilization = 100.0 * double(timing.macs) / (pes * double(timing.totalCycles));
  }
  return timing;
}

}  // namespace nnremote::sim
