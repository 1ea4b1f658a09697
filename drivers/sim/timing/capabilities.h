// NNAPI capabilities derived from the timing model, so they describe the configured NPU.
//
// For each operand type the simulator runs, a reference workload (a 3x3 convolution of a
// 56x56x64 feature map to 64 channels, then an elementwise ADD of the result, as in a
// MobileNet-class layer) is priced on the NPU and on NNAPI's notional CPU reference, and
// execTime is their ratio (NNAPI: < 1 means faster than the CPU). powerUsage is the ratio of
// energies, from per-MAC and per-DRAM-byte energies documented in docs/timing.md. Types the
// simulator cannot run get FLT_MAX. The numbers depend only on the config: stable across restarts.
#ifndef NNREMOTE_DRIVERS_SIM_TIMING_CAPABILITIES_H_
#define NNREMOTE_DRIVERS_SIM_TIMING_CAPABILITIES_H_

#include "drivers/sim/npu_config.pb.h"
#include "hal/types.h"

namespace nnremote::sim {

hal::Capabilities deriveCapabilities(const NpuConfig& npu);

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_TIMING_CAPABILITIES_H_
