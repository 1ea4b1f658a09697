#include "hal/operations/signature_checks.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace nnremote::hal::signatures {
namespace {

// "input 7 (layout)" or "input 7".
std::string name(const char* kind, size_t i, const char* role) {
  std::string text = std::string(kind) + " " + std::to_string(i);
  if (role != nullptr) text += std::string(" (") + role + ")";
  return text;
}

std::string listCounts(std::initializer_list<size_t> counts) {
  std::string text;
  size_t n = 0;
  for (size_t count : counts) {
    if (n++ > 0) text += n == counts.size() ? " or " : ", ";
    text += std::to_string(count);
  }
  return text;
}

std::string listTypes(std::initializer_list<OperandType> types) {
  std::string text;
  size_t n = 0;
  for (OperandType type : types) {
    if (n++ > 0) text += n == types.size() ? " or " : ", ";
    text += toString(type);
  }
  return text;
}

Status expectType(const char* kind, size_t i, OperandType got, OperandType want, const char* role) {
  if (got == want) return {};
  return invalidArgument() << name(kind, i, role) << " must be " << toString(want) << ", got " << toString(got);
}

Status expectTypes(const char* kind, size_t count, const std::vector<OperandType>& types,
                   OperandType (OperationOperands::*typeOf)(size_t) const, const OperationOperands& operands) {
  if (count != types.size()) {
    return invalidArgument() << "takes " << types.size() << " " << kind << "s, got " << count;
  }
  for (size_t i = 0; i < types.size(); ++i) {
    NN_RETURN_IF_ERROR(expectType(kind, i, (operands.*typeOf)(i), types[i], nullptr));
  }
  return {};
}

}  // namespace

Version versionOfType(OperandType type) {
  switch (type) {
    case OperandType::FLOAT32:
    case OperandType::INT32:
    case OperandType::UINT32:
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_INT32:
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::OEM:
    case OperandType::TENSOR_OEM_BYTE:
      return kFL1;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::SUBGRAPH:
      return kFL4;
    default:
      return kFL3;
  }
}

Status expectInputCount(const OperationOperands& operands, size_t count) {
  if (operands.inputCount() == count) return {};
  return invalidArgument() << "takes " << count << " inputs, got " << operands.inputCount();
}

Status expectInputCountIn(const OperationOperands& operands, std::initializer_list<size_t> counts) {
  if (std::find(counts.begin(), counts.end(), operands.inputCount()) != counts.end()) return {};
  return invalidArgument() << "takes " << listCounts(counts) << " inputs, got " << operands.inputCount();
}

Status expectInputCountBetween(const OperationOperands& operands, size_t min, size_t max) {
  if (operands.inputCount() >= min && operands.inputCount() <= max) return {};
  return invalidArgument() << "takes " << min << " to " << max << " inputs, got " << operands.inputCount();
}

Status expectOutputCount(const OperationOperands& operands, size_t count) {
  if (operands.outputCount() == count) return {};
  return invalidArgument() << "has " << count << (count == 1 ? " output" : " outputs") << ", got "
                           << operands.outputCount();
}

Status expectOutputCountIn(const OperationOperands& operands, std::initializer_list<size_t> counts) {
  if (std::find(counts.begin(), counts.end(), operands.outputCount()) != counts.end()) return {};
  return invalidArgument() << "has " << listCounts(counts) << " outputs, got " << operands.outputCount();
}

Status expectInputTypes(const OperationOperands& operands, const std::vector<OperandType>& types) {
  return expectTypes("input", operands.inputCount(), types, &OperationOperands::inputType, operands);
}

Status expectOutputTypes(const OperationOperands& operands, const std::vector<OperandType>& types) {
  return expectTypes("output", operands.outputCount(), types, &OperationOperands::outputType, operands);
}

Status expectInputType(const OperationOperands& operands, size_t i, OperandType type, const char* role) {
  if (i >= operands.inputCount()) return invalidArgument() << name("input", i, role) << " is missing";
  return expectType("input", i, operands.inputType(i), type, role);
}

Status expectOutputType(const OperationOperands& operands, size_t i, OperandType type, const char* role) {
  if (i >= operands.outputCount()) return invalidArgument() << name("output", i, role) << " is missing";
  return expectType("output", i, operands.outputType(i), type, role);
}

Status expectInputTypeIn(const OperationOperands& operands, size_t i, std::initializer_list<OperandType> types,
                         const char* role) {
  if (i >= operands.inputCount()) return invalidArgument() << name("input", i, role) << " is missing";
  const OperandType got = operands.inputType(i);
  if (std::find(types.begin(), types.end(), got) != types.end()) return {};
  return invalidArgument() << name("input", i, role) << " must be " << listTypes(types) << ", got "
                           << toString(got);
}

Status expectPrimaryType(const OperationOperands& operands, std::initializer_list<OperandType> types) {
  if (operands.inputCount() == 0) return invalidArgument() << "takes at least one input, got 0";
  const OperandType got = operands.inputType(0);
  if (std::find(types.begin(), types.end(), got) != types.end()) return {};
  return invalidArgument() << "input 0 has type " << toString(got) << ", which " << toString(operands.type())
                           << " does not take (it takes " << listTypes(types) << ")";
}

Status expectInputRank(const OperationOperands& operands, size_t i, uint32_t rank, const char* role) {
  const uint32_t got = operands.inputRank(i);
  if (got == 0 || got == rank) return {};
  return invalidArgument() << name("input", i, role) << " must have rank " << rank << ", got " << got;
}

Status expectInputRankBetween(const OperationOperands& operands, size_t i, uint32_t min, uint32_t max,
                              const char* role) {
  const uint32_t got = operands.inputRank(i);
  if (got == 0 || (got >= min && got <= max)) return {};
  return invalidArgument() << name("input", i, role) << " must have rank " << min << " to " << max << ", got "
                           << got;
}

Status expectOutputRank(const OperationOperands& operands, size_t i, uint32_t rank, const char* role) {
  const uint32_t got = operands.outputRank(i);
  if (got == 0 || got == rank) return {};
  return invalidArgument() << name("output", i, role) << " must have rank " << rank << ", got " << got;
}

Status expectInputSlots(const OperationOperands& operands, size_t first, const std::vector<Slot>& slots) {
  for (size_t i = 0; i < slots.size(); ++i) {
    NN_RETURN_IF_ERROR(expectInputType(operands, first + i, slots[i].type, slots[i].role));
    if (!slots[i].omittable) NN_RETURN_IF_ERROR(expectPresent(operands, first + i, slots[i].role));
  }
  return {};
}

Status expectOutputSlots(const OperationOperands& operands, const std::vector<Slot>& slots) {
  for (size_t i = 0; i < slots.size(); ++i) {
    NN_RETURN_IF_ERROR(expectOutputType(operands, i, slots[i].type, slots[i].role));
  }
  return {};
}

OperandType scalarFor(OperandType tensorType) {
  return tensorType == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
}

Status expectPresent(const OperationOperands& operands, size_t i, const char* role) {
  if (!operands.isOmitted(i)) return {};
  return invalidArgument() << name("input", i, role) << " is required but has no value (NO_VALUE)";
}

bool isQuantized(OperandType type) {
  switch (type) {
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT16_ASYMM:
    case OperandType::TENSOR_QUANT16_SYMM:
      return true;
    default:
      return false;
  }
}

Status expectSameQuantization(const OperationOperands& operands, size_t o, size_t i) {
  const Operand& in = operands.input(i);
  const Operand& out = operands.output(o);
  if (!isQuantized(in.type) || (in.scale == out.scale && in.zeroPoint == out.zeroPoint)) return {};
  return invalidArgument() << "output " << o << " (scale " << out.scale << ", zero point " << out.zeroPoint
                           << ") must keep input " << i << "'s scale " << in.scale << " and zero point "
                           << in.zeroPoint;
}

Status expectOutputQuantization(const OperationOperands& operands, size_t o, float scale, int32_t zeroPoint) {
  const Operand& out = operands.output(o);
  if (!isQuantized(out.type) || (out.scale == scale && out.zeroPoint == zeroPoint)) return {};
  return invalidArgument() << "output " << o << " must have scale " << scale << " and zero point " << zeroPoint
                           << ", got scale " << out.scale << " and zero point " << out.zeroPoint;
}

Status expectChannelDim(const OperationOperands& operands, size_t i, uint32_t channelDim, const char* role) {
  const Operand& operand = operands.input(i);
  const auto* params = std::get_if<Operand::SymmPerChannelQuantParams>(&operand.extraParams);
  if (operand.type != OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL || params == nullptr) return {};
  if (params->channelDim == channelDim) return {};
  return invalidArgument() << name("input", i, role) << " must be quantized per channel along dimension "
                           << channelDim << ", got channelDim " << params->channelDim;
}

Status expectBiasScale(const OperationOperands& operands, size_t bias, size_t input, size_t filter) {
  const Operand& b = operands.input(bias);
  if (b.type != OperandType::TENSOR_INT32) return {};
  if (b.zeroPoint != 0) {
    return invalidArgument() << name("input", bias, "bias") << " must have zero point 0, got " << b.zeroPoint;
  }
  const Operand& f = operands.input(filter);
  if (f.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) return {};
  const float product = operands.input(input).scale * f.scale;
  if (std::abs(product - b.scale) <= 1e-6f * std::min(product, b.scale)) return {};
  return invalidArgument() << name("input", bias, "bias") << " must have scale input scale x filter scale = "
                           << product << ", got " << b.scale;
}

}  // namespace nnremote::hal::signatures
