// Runs kernels written for TENSOR_FLOAT32, TENSOR_QUANT8_ASYMM and NHWC on operations whose
// operands are TENSOR_FLOAT16 / FLOAT16, TENSOR_QUANT8_ASYMM_SIGNED, or in NCHW layout, by
// converting the operands around the kernel:
//  - float16 values are computed in float32 and rounded back to float16 (to nearest even);
//  - signed quantized values become unsigned ones with the zero point moved by 128 (NNAPI's
//    signed operations agree with the unsigned ones up to that offset, except the operations
//    listed in operand_lowering.cc, which are not lowered);
//  - an NCHW feature map (input 0 and output 0 of operations with a layout flag) is transposed
//    to NHWC and back, and the flag cleared.
// Each kernel is thus written once, and every such variant of the operation runs through it.
#ifndef NNREMOTE_DRIVERS_SIM_OPERAND_LOWERING_H_
#define NNREMOTE_DRIVERS_SIM_OPERAND_LOWERING_H_

#include <memory>
#include <vector>

#include "drivers/sim/operation_registry.h"

namespace nnremote::sim {

class LoweredOperation {
 public:
  // Plans the conversions `original` needs; with none, context() is `original` itself.
  // Converts whatever input data is known now (constants at validation, everything at
  // execution).
  LoweredOperation(const OperationKernel& kernel, OperationContext& original);

  OperationContext& context() { return lowered_ ? *lowered_ : original_; }

  Status validate();
  // Runs the kernel's prepare and gives the original outputs their dimensions.
  Status prepare();
  // Runs the kernel and writes the original outputs, whose buffers the caller allocated.
  Status execute();
  OperationWork work();

 private:
  void lowerInput(size_t i);
  void lowerOutput(size_t i);
  void raiseOutput(size_t i);

  const OperationKernel& kernel_;
  OperationContext& original_;
  bool toFloat32_ = false, toUnsigned_ = false, toNhwc_ = false;
  int layoutOperand_ = -1;
  int layoutShapeOperand_ = -1;
  std::vector<Tensor> inputs_, outputs_;
  std::vector<std::vector<uint8_t>> inputData_, outputData_;
  uint8_t nhwcFlag_ = 0;
  std::unique_ptr<OperationContext> lowered_;
};

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_OPERAND_LOWERING_H_
