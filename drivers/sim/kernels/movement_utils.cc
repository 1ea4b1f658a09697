// The data-movement kernels' shared helpers, declared (with the per-element ones) in movement_utils.h.
#include "drivers/sim/kernels/movement_utils.h"

#include "drivers/sim/kernels/kernel_utils.h"

namespace nnremote::sim {

std::vector<int32_t> int32Values(const Tensor& t) {
  std::vector<int32_t> values(t.elementCount());
  if (!values.empty()) std::memcpy(values.data(), t.data, values.size() * sizeof(int32_t));
  return values;
}

std::vector<uint8_t> zeroFill(const Tensor& t) {
  std::vector<uint8_t> fill(hal::elementSize(t.type), 0);
  if (t.type == OperandType::TENSOR_QUANT8_ASYMM || t.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    fill[0] = static_cast<uint8_t>(t.zeroPoint);
  }
  return fill;
}

bool isMovableType(OperandType type) {
  return type == OperandType::TENSOR_FLOAT32 || type == OperandType::TENSOR_INT32 ||
         type == OperandType::TENSOR_QUANT8_ASYMM || type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ||
         type == OperandType::TENSOR_BOOL8;
}

Status expectMovable(const OperationContext& context) {
  const OperandType type = context.inputType(0);
  if (!isMovableType(type)) return unsupported(context) << hal::toString(type) << " is not implemented";
  for (size_t i = 0; i < context.outputCount(); ++i) {
    if (context.output(i).type != type) {
      return unsupported(context) << "output " << i << " must be " << hal::toString(type);
    }
  }
  return expectSameQuantizationAsInput(context);
}

hal::Result<uint32_t> axisOf(const OperationContext& context, int32_t axis, uint32_t rank) {
  if (axis < -int32_t(rank) || axis >= int32_t(rank)) {
    return unsupported(context) << "axis " << axis << " is out of range for rank " << rank;
  }
  return static_cast<uint32_t>(axis < 0 ? axis + int32_t(rank) : axis);
}

OperationWork movedElements(const OperationContext& context) {
  OperationWork work;
  for (size_t i = 0; i < context.outputCount(); ++i) work.vectorElements += context.output(i).elementCount();
  return work;
}

}  // namespace nnremote::sim
