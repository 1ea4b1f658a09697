// The simulator's operations, keyed by OperationType. Each kernel registers itself next to its
// definition (NNREMOTE_REGISTER_KERNEL), so adding an operation is one kernel file and nothing
// else: there is no second list to keep in step. Whether an operation is *valid* is decided
// before any kernel sees it (hal/operation_signatures.h); a kernel's validate says only whether
// the simulator supports that valid form.
#ifndef NNREMOTE_DRIVERS_SIM_OPERATION_REGISTRY_H_
#define NNREMOTE_DRIVERS_SIM_OPERATION_REGISTRY_H_

#include "drivers/sim/operation_context.h"
#include "drivers/sim/timing/operation_work.h"

namespace nnremote::sim {

struct OperationKernel {
  // Whether this operand-type and parameter combination is implemented. Only constant inputs
  // carry data here. An error means "unsupported" to getSupportedOperations and
  // INVALID_ARGUMENT to prepareModel; its message says why.
  Status (*validate)(const OperationContext& context);
  // Sets every output's dimensions (and quantization where the operation defines it) from the
  // inputs, whose data is now known.
  Status (*prepare)(OperationContext& context);
  // Writes the outputs, whose buffers the executor has allocated.
  Status (*execute)(OperationContext& context);
  // What the operation does, for the timing model: GEMMs for the systolic array and element
  // operations for the vector unit. Called after prepare; the executor adds the bytes read
  // and written from the operands' sizes.
  OperationWork (*work)(const OperationContext& context);
  // For operations with an NCHW layout flag: the flag's input index (or -1). Kernels are
  // written for NHWC; NCHW operations run through them transposed (operand_lowering.h).
  int (*layoutOperand)(const OperationContext& context) = nullptr;
  // For operations that also take a 4-D shape in the same layout (TRANSPOSE_CONV_2D's output
  // shape): its input index (or -1), permuted along with the feature map.
  int (*layoutShapeOperand)(const OperationContext& context) = nullptr;
  // Whether some tensor inputs after the first may be omitted (NO_VALUE): the optional weights
  // of the recurrent operations, TRANSPOSE's permutation, SQUEEZE's axes. Elsewhere an omitted
  // tensor input is refused before the kernel sees it.
  bool takesOmittedTensors = false;
};

// The kernel for built-in `type`, or nullptr if the simulator does not implement it.
const OperationKernel* findKernel(OperationType type);

// Makes `kernel` the simulator's kernel for `type`; at most one per type (a second is a
// programming error and aborts at start-up). Returns true, for NNREMOTE_REGISTER_KERNEL.
bool registerKernel(OperationType type, const OperationKernel* kernel);

// Registers a kernel when the program (or backend library) is loaded. The kernels library is
// linked whole (alwayslink), so every registration in it runs.
#define NNREMOTE_REGISTER_KERNEL(type, kernel)                                              \
  [[maybe_unused]] static const bool NN_CONCAT_(nnremote_kernel_registered_, __LINE__) = \
      ::nnremote::sim::registerKernel(type, &(kernel))

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_OPERATION_REGISTRY_H_
