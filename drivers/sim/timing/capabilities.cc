#include "drivers/sim/timing/capabilities.h"

#include <cfloat>

#include "drivers/sim/npu_config.h"
#include "drivers/sim/timing/operation_timing.h"

namespace nnremote::sim {
namespace {

// NNAPI's notional CPU reference: one core, 8 fp32 (or 16 int8) MACs per cycle at 2 GHz,
// 50 pJ per MAC. The NPU spends 1 pJ per PE-cycle (busy or not) and 20 pJ per DRAM byte.
constexpr double kCpuFloatMacsPerSecond = 16e9;
constexpr double kCpuQuantMacsPerSecond = 32e9;
constexpr double kCpuJoulesPerMac = 50e-12;
constexpr double kNpuJoulesPerPeCycle = 1e-12;
constexpr double kNpuJoulesPerDramByte = 20e-12;

struct Reference {
  double npuSeconds = 0, npuJoules = 0, cpuSeconds = 0, cpuJoules = 0;
};

Reference referenceWorkload(const NpuConfig& npu, uint32_t elementBytes, double cpuMacsPerSecond) {
  constexpr uint64_t kPixels = 56 * 56, kChannels = 64, kTaps = 9;
  OperationWork conv;
  conv.gemms.push_back({kPixels, kChannels, kTaps * kChannels, 1, elementBytes, elementBytes});
  conv.activationBytes = kPixels * kChannels * elementBytes;
  conv.weightBytes = kTaps * kChannels * kChannels * elementBytes;
  conv.outputBytes = kPixels * kChannels * elementBytes;
  OperationWork add;
  add.vectorElements = kPixels * kChannels;
  add.activationBytes = 2 * conv.outputBytes;
  add.outputBytes = conv.outputBytes;

  Reference r;
  const double peCount =
      double(npu.systolic_array().rows()) * npu.systolic_array().columns() * std::max(1u, npu.cores());
  for (const auto& [work, type] : {std::make_pair(conv, hal::OperationType::CONV_2D),
                                   std::make_pair(add, hal::OperationType::ADD)}) {
    const hal::OperationProfile p = estimateOperation(work, type, npu);
    r.npuSeconds += double(p.totalCycles) / clockHz(npu);
    r.npuJoules += double(p.totalCycles) * peCount * kNpuJoulesPerPeCycle +
                   double(p.dramReadBytes + p.dramWriteBytes) * kNpuJoulesPerDramByte;
    const double cpuOps = double(p.macs + work.vectorElements);
    r.cpuSeconds += cpuOps / cpuMacsPerSecond;
    r.cpuJoules += cpuOps * kCpuJoulesPerMac;
  }
  return r;
}

hal::PerformanceInfo ratio(const Reference& r) {
  return {static_cast<float>(r.npuSeconds / r.cpuSeconds), static_cast<float>(r.npuJoules / r.cpuJoules)};
}

}  // namespace

hal::Capabilities deriveCapabilities(const NpuConfig& npu) {
  const hal::PerformanceInfo floatPerformance = ratio(referenceWorkload(npu, 4, kCpuFloatMacsPerSecond));
  const hal::PerformanceInfo quantPerformance = ratio(referenceWorkload(npu, 1, kCpuQuantMacsPerSecond));
  const hal::PerformanceInfo unusable{FLT_MAX, FLT_MAX};
  hal::Capabilities capabilities;
  // Relaxed fp32 and control flow are not implemented yet: never prefer this device for them.
  capabilities.relaxedFloat32toFloat16PerformanceScalar = unusable;
  capabilities.relaxedFloat32toFloat16PerformanceTensor = unusable;
  capabilities.ifPerformance = unusable;
  capabilities.whilePerformance = unusable;
  for (int32_t code = 0; code <= static_cast<int32_t>(hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
       ++code) {
    const auto type = static_cast<hal::OperandType>(code);
    hal::PerformanceInfo info = unusable;
    switch (type) {
      case hal::OperandType::TENSOR_FLOAT32:
      case hal::OperandType::FLOAT32:
      case hal::OperandType::TENSOR_INT32:
      case hal::OperandType::INT32:
      case hal::OperandType::BOOL:
        info = floatPerformance;
        break;
      case hal::OperandType::TENSOR_QUANT8_ASYMM:
        info = quantPerformance;
        break;
      default:
        break;
    }
    capabilities.operandPerformance.push_back({type, info});
  }
  return capabilities;
}

}  // namespace nnremote::sim
