// What one operation does, as the timing model needs it: matrix multiplies for the systolic
// array, element operations for the vector unit, and the bytes it reads and writes. Kernels
// describe their work; timing/ prices it for a given NPU.
#ifndef NNREMOTE_DRIVERS_SIM_TIMING_OPERATION_WORK_H_
#define NNREMOTE_DRIVERS_SIM_TIMING_OPERATION_WORK_H_

#include <cstdint>
#include <vector>

namespace nnremote::sim {

// C[M x N] = A[M x K] * B[K x N], `repeat` independent times (groups, batches). For a
// convolution, M is the number of output pixels (batch included), N the output channels and K
// the filter taps times input channels: SCALE-Sim's mapping, with padding, separate strides,
// dilation and batch already folded into M and K.
struct GemmWork {
  uint64_t m = 0, n = 0, k = 0;
  uint64_t repeat = 1;
  // Bytes per element of A/B and of C (quantized operands are 1 byte, float32 4).
  uint32_t inputElementBytes = 4;
  uint32_t outputElementBytes = 4;
  uint64_t macs() const { return m * n * k * repeat; }
};

struct OperationWork {
  std::vector<GemmWork> gemms;
  // Element operations on the vector unit, before the per-operation cycle cost.
  uint64_t vectorElements = 0;
  // Bytes of non-constant inputs read, of constant inputs (weights) read, and of outputs.
  uint64_t activationBytes = 0;
  uint64_t weightBytes = 0;
  uint64_t outputBytes = 0;
  // With a parameter cache (NpuConfig.parameter_cache): whether this operation's constants are
  // resident in it, or streamed over the host link.
  bool weightsResident = false;
  // With a host link (NpuConfig.host_link), the bytes that cross it for this operation: inputs
  // brought to the side that runs it (the model's inputs for the first NPU operation to read
  // them; the NPU's results for the first host-CPU operation to read them), and the model
  // outputs an NPU operation writes.
  uint64_t hostInputBytes = 0;
  uint64_t hostOutputBytes = 0;
};

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_TIMING_OPERATION_WORK_H_
