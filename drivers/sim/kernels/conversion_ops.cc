// Type conversions and constant-like outputs: QUANTIZE, DEQUANTIZE, CAST, FILL, RANK.
#include <cmath>
#include <cstring>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"

namespace nnremote::sim {
namespace {

Status prepareSame(OperationContext& context) {
  context.output(0).dimensions = context.input(0).dimensions;
  return {};
}

OperationWork perOutputElement(const OperationContext& context) {
  OperationWork work;
  work.vectorElements = context.output(0).elementCount();
  return work;
}

// ---- QUANTIZE (float -> quant8) --------------------------------------------------------------

Status validateQuantize(const OperationContext& context) {
  if (context.output(0).type != OperandType::TENSOR_QUANT8_ASYMM) {
    return unsupported(context) << "output type " << hal::toString(context.output(0).type) << " is not implemented";
  }
  return {};
}

Status executeQuantize(OperationContext& context) {
  const Tensor& in = context.input(0);
  for (size_t i = 0; i < in.elementCount(); ++i) writeValue(context.output(0), i, in.as<float>()[i]);
  return {};
}

// ---- DEQUANTIZE (quant8 asymm, quant8 symm or per-channel -> float) ---------------------------

Status validateDequantize(const OperationContext& context) {
  const OperandType type = context.inputType(0);
  if (type != OperandType::TENSOR_QUANT8_ASYMM && type != OperandType::TENSOR_QUANT8_SYMM &&
      type != OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    return unsupported(context) << hal::toString(type) << " is not implemented";
  }
  if (context.output(0).type != OperandType::TENSOR_FLOAT32) return unsupported(context) << "output must be float";
  return {};
}

Status executeDequantize(OperationContext& context) {
  const Tensor& in = context.input(0);
  float* out = context.output(0).asMutable<float>();
  const size_t count = in.elementCount();
  if (in.type == OperandType::TENSOR_QUANT8_ASYMM) {
    for (size_t i = 0; i < count; ++i) out[i] = dequantize(in.as<uint8_t>()[i], in);
    return {};
  }
  const auto* channel = std::get_if<hal::Operand::SymmPerChannelQuantParams>(in.extraParams);
  size_t inner = 1;
  if (in.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL && channel != nullptr) {
    for (uint32_t d = channel->channelDim + 1; d < in.rank(); ++d) inner *= in.dim(d);
  }
  for (size_t i = 0; i < count; ++i) {
    const float scale = in.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL && channel != nullptr
                            ? channel->scales[(i / inner) % in.dim(channel->channelDim)]
                            : in.scale;
    out[i] = scale * in.as<int8_t>()[i];
  }
  return {};
}

// ---- CAST: values converted between float32, int32 and quant8 (raw values, no scale) ----------

bool isCastable(OperandType type) {
  return type == OperandType::TENSOR_FLOAT32 || type == OperandType::TENSOR_INT32 ||
         type == OperandType::TENSOR_QUANT8_ASYMM || type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

Status validateCast(const OperationContext& context) {
  if (context.inputType(0) == context.output(0).type && hal::isTensor(context.inputType(0))) return {};  // identity
  if (!isCastable(context.inputType(0)) || !isCastable(context.output(0).type)) {
    return unsupported(context) << "CAST from " << hal::toString(context.inputType(0)) << " to "
                                << hal::toString(context.output(0).type) << " is not implemented";
  }
  return {};
}

double rawValue(const Tensor& t, size_t i) {
  switch (t.type) {
    case OperandType::TENSOR_FLOAT32: return t.as<float>()[i];
    case OperandType::TENSOR_INT32: return t.as<int32_t>()[i];
    case OperandType::TENSOR_QUANT8_ASYMM: return t.as<uint8_t>()[i];
    default: return t.as<int8_t>()[i];
  }
}

Status executeCast(OperationContext& context) {
  const Tensor& in = context.input(0);
  const Tensor& out = context.output(0);
  if (in.type == out.type) {
    const size_t bytes = in.elementCount() * hal::elementSize(in.type);
    if (bytes) std::memcpy(out.data, in.data, bytes);
    return {};
  }
  for (size_t i = 0; i < in.elementCount(); ++i) {
    const double v = rawValue(in, i);
    switch (out.type) {
      case OperandType::TENSOR_FLOAT32: out.asMutable<float>()[i] = float(v); break;
      case OperandType::TENSOR_INT32: out.asMutable<int32_t>()[i] = saturatingInt32(v); break;
      case OperandType::TENSOR_QUANT8_ASYMM:
        out.asMutable<uint8_t>()[i] = uint8_t(std::min(255.0, std::max(0.0, v)));
        break;
      default: out.asMutable<int8_t>()[i] = int8_t(std::min(127.0, std::max(-128.0, v)));
    }
  }
  return {};
}

// ---- FILL (dimensions, value) ----------------------------------------------------------------

Status validateFill(const OperationContext& context) {
  const OperandType value = context.inputType(1);
  const OperandType out = context.output(0).type;
  if (!((value == OperandType::FLOAT32 && out == OperandType::TENSOR_FLOAT32) ||
        (value == OperandType::INT32 && out == OperandType::TENSOR_INT32))) {
    return unsupported(context) << "FILL of " << hal::toString(out) << " with " << hal::toString(value)
                                << " is not implemented";
  }
  return {};
}

Status prepareFill(OperationContext& context) {
  const Tensor& dims = context.input(0);
  std::vector<uint32_t> shape;
  for (size_t i = 0; i < dims.elementCount(); ++i) {
    if (dims.as<int32_t>()[i] < 0) return unsupported(context) << "dimensions must not be negative";
    shape.push_back(uint32_t(dims.as<int32_t>()[i]));
  }
  context.output(0).dimensions = shape;
  return {};
}

Status executeFill(OperationContext& context) {
  Tensor& out = context.output(0);
  for (size_t i = 0; i < out.elementCount(); ++i) std::memcpy(out.data + 4 * i, context.input(1).data, 4);
  return {};
}

// ---- RANK (input) -> INT32 -------------------------------------------------------------------

Status validateRank(const OperationContext& context) {
  if (context.output(0).type != OperandType::INT32) return unsupported(context) << "output must be INT32";
  return {};
}

Status prepareRank(OperationContext& context) {
  context.output(0).dimensions = {};
  return {};
}

Status executeRank(OperationContext& context) {
  const int32_t rank = int32_t(context.input(0).rank());
  std::memcpy(context.output(0).data, &rank, sizeof(rank));
  return {};
}

OperationWork noWork(const OperationContext&) { return {}; }

}  // namespace

const OperationKernel kQuantizeKernel = {&validateQuantize, &prepareSame, &executeQuantize, &perOutputElement};
NNREMOTE_REGISTER_KERNEL(OperationType::QUANTIZE, kQuantizeKernel);
const OperationKernel kDequantizeKernel = {&validateDequantize, &prepareSame, &executeDequantize, &perOutputElement};
NNREMOTE_REGISTER_KERNEL(OperationType::DEQUANTIZE, kDequantizeKernel);
const OperationKernel kCastKernel = {&validateCast, &prepareSame, &executeCast, &perOutputElement};
NNREMOTE_REGISTER_KERNEL(OperationType::CAST, kCastKernel);
const OperationKernel kFillKernel = {&validateFill, &prepareFill, &executeFill, &perOutputElement};
NNREMOTE_REGISTER_KERNEL(OperationType::FILL, kFillKernel);
const OperationKernel kRankKernel = {&validateRank, &prepareRank, &executeRank, &noWork};
NNREMOTE_REGISTER_KERNEL(OperationType::RANK, kRankKernel);

}  // namespace nnremote::sim
