// Elementwise math, comparison and logic: unary functions, MAXIMUM/MINIMUM/POW, the six
// comparisons, LOGICAL_AND/OR/NOT, SELECT and PRELU. Each reads elements as real values
// (readValue) and writes them in the output's type (writeValue), with NumPy broadcasting for
// two-operand forms.
#include <cmath>
#include <set>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"

namespace nnremote::sim {
namespace {

using Types = std::set<OperandType>;
constexpr OperandType kF32 = OperandType::TENSOR_FLOAT32;
constexpr OperandType kI32 = OperandType::TENSOR_INT32;
constexpr OperandType kQ8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr OperandType kBool = OperandType::TENSOR_BOOL8;

Status expectOneOf(const OperationContext& context, size_t input, const Types& types) {
  if (types.count(context.inputType(input)) == 0) {
    return unsupported(context) << hal::toString(context.inputType(input)) << " is not implemented";
  }
  return {};
}

OperationWork perOutputElement(const OperationContext& context) {
  OperationWork work;
  work.vectorElements = context.output(0).elementCount();
  return work;
}

// ---- Unary ----------------------------------------------------------------------------------

double applyUnary(OperationType type, double x) {
  switch (type) {
    case OperationType::ABS: return std::fabs(x);
    case OperationType::NEG: return -x;
    case OperationType::EXP: return std::exp(x);
    case OperationType::LOG: return std::log(x);
    case OperationType::SIN: return std::sin(x);
    case OperationType::SQRT: return std::sqrt(x);
    case OperationType::RSQRT: return 1.0 / std::sqrt(x);
    case OperationType::FLOOR: return std::floor(x);
    case OperationType::LOGICAL_NOT: return x == 0;
    case OperationType::HARD_SWISH: return x * std::min(6.0, std::max(0.0, x + 3)) / 6;
    default: return x;
  }
}

Types unaryTypes(OperationType type) {
  switch (type) {
    case OperationType::ABS:
    case OperationType::NEG: return {kF32, kI32};
    case OperationType::LOGICAL_NOT: return {kBool};
    case OperationType::HARD_SWISH:
    case OperationType::RSQRT: return {kF32, kQ8};
    default: return {kF32};
  }
}

template <OperationType kType>
Status validateUnary(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectOneOf(context, 0, unaryTypes(kType)));
  return {};
}

Status prepareSame(OperationContext& context) {
  context.output(0).dimensions = context.input(0).dimensions;
  return {};
}

template <OperationType kType>
Status executeUnary(OperationContext& context) {
  const Tensor& in = context.input(0);
  const Tensor& out = context.output(0);
  for (size_t i = 0; i < in.elementCount(); ++i) writeValue(out, i, applyUnary(kType, readValue(in, i)));
  return {};
}

// ELU (input, alpha)
Status validateElu(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectOneOf(context, 0, {kF32}));
  return {};
}

Status executeElu(OperationContext& context) {
  const Tensor& in = context.input(0);
  const double alpha = context.scalar<float>(1);
  for (size_t i = 0; i < in.elementCount(); ++i) {
    const double x = readValue(in, i);
    writeValue(context.output(0), i, x < 0 ? alpha * (std::exp(x) - 1) : x);
  }
  return {};
}

// ---- Binary, with broadcasting --------------------------------------------------------------

bool isComparison(OperationType type) {
  switch (type) {
    case OperationType::EQUAL:
    case OperationType::NOT_EQUAL:
    case OperationType::GREATER:
    case OperationType::GREATER_EQUAL:
    case OperationType::LESS:
    case OperationType::LESS_EQUAL: return true;
    default: return false;
  }
}

double applyBinary(OperationType type, double a, double b) {
  switch (type) {
    case OperationType::MAXIMUM: return std::max(a, b);
    case OperationType::MINIMUM: return std::min(a, b);
    case OperationType::POW: return std::pow(a, b);
    case OperationType::EQUAL: return a == b;
    case OperationType::NOT_EQUAL: return a != b;
    case OperationType::GREATER: return a > b;
    case OperationType::GREATER_EQUAL: return a >= b;
    case OperationType::LESS: return a < b;
    case OperationType::LESS_EQUAL: return a <= b;
    case OperationType::LOGICAL_AND: return a != 0 && b != 0;
    case OperationType::LOGICAL_OR: return a != 0 || b != 0;
    case OperationType::PRELU: return a >= 0 ? a : a * b;
    default: return a;
  }
}

Types binaryTypes(OperationType type) {
  switch (type) {
    case OperationType::MAXIMUM:
    case OperationType::MINIMUM: return {kF32, kI32, kQ8};
    case OperationType::POW: return {kF32};
    case OperationType::LOGICAL_AND:
    case OperationType::LOGICAL_OR: return {kBool};
    case OperationType::PRELU: return {kF32, kQ8};
    default: return {kF32, kI32, kQ8, kBool};  // comparisons
  }
}

template <OperationType kType>
Status validateBinaryMath(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectOneOf(context, 0, binaryTypes(kType)));
  const OperandType outputType = isComparison(kType) ? kBool : context.inputType(0);
  if (context.output(0).type != outputType) {
    return unsupported(context) << "output must be " << hal::toString(outputType);
  }
  return {};
}

Status prepareBroadcast(OperationContext& context) {
  return broadcastShapes(context, context.input(0).dimensions, context.input(1).dimensions,
                         &context.output(0).dimensions);
}

template <OperationType kType>
Status executeBinaryMath(OperationContext& context) {
  const Tensor& a = context.input(0);
  const Tensor& b = context.input(1);
  const Tensor& out = context.output(0);
  forEachBroadcast(out.dimensions, a.dimensions, b.dimensions, [&](size_t o, size_t i, size_t j) {
    writeValue(out, o, applyBinary(kType, readValue(a, i), readValue(b, j)));
  });
  return {};
}

// ---- SELECT (condition, a, b) ---------------------------------------------------------------

Status validateSelect(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectOneOf(context, 1, {kF32, kI32, kQ8}));
  if (context.output(0).type != context.inputType(1)) return unsupported(context) << "output type differs from the inputs'";
  return {};
}

Status prepareSelect(OperationContext& context) {
  const auto& dims = context.input(0).dimensions;
  if (context.input(1).dimensions != dims || context.input(2).dimensions != dims) {
    return unsupported(context) << "condition and values must have one shape";
  }
  context.output(0).dimensions = dims;
  return {};
}

Status executeSelect(OperationContext& context) {
  const Tensor& condition = context.input(0);
  for (size_t i = 0; i < condition.elementCount(); ++i) {
    const Tensor& from = condition.as<uint8_t>()[i] ? context.input(1) : context.input(2);
    writeValue(context.output(0), i, readValue(from, i));
  }
  return {};
}

}  // namespace

#define NN_UNARY_KERNEL(Name, TYPE)                                                              \
  const OperationKernel k##Name##Kernel = {&validateUnary<OperationType::TYPE>, &prepareSame, \
                                           &executeUnary<OperationType::TYPE>, &perOutputElement}; \
  NNREMOTE_REGISTER_KERNEL(OperationType::TYPE, k##Name##Kernel)
#define NN_BINARY_KERNEL(Name, TYPE)                                                         \
  const OperationKernel k##Name##Kernel = {&validateBinaryMath<OperationType::TYPE>,       \
                                           &prepareBroadcast,                              \
                                           &executeBinaryMath<OperationType::TYPE>, &perOutputElement}; \
  NNREMOTE_REGISTER_KERNEL(OperationType::TYPE, k##Name##Kernel)

NN_UNARY_KERNEL(Abs, ABS);
NN_UNARY_KERNEL(Neg, NEG);
NN_UNARY_KERNEL(Exp, EXP);
NN_UNARY_KERNEL(Log, LOG);
NN_UNARY_KERNEL(Sin, SIN);
NN_UNARY_KERNEL(Sqrt, SQRT);
NN_UNARY_KERNEL(Rsqrt, RSQRT);
NN_UNARY_KERNEL(Floor, FLOOR);
NN_UNARY_KERNEL(LogicalNot, LOGICAL_NOT);
NN_UNARY_KERNEL(HardSwish, HARD_SWISH);
NN_BINARY_KERNEL(Maximum, MAXIMUM);
NN_BINARY_KERNEL(Minimum, MINIMUM);
NN_BINARY_KERNEL(Pow, POW);
NN_BINARY_KERNEL(Equal, EQUAL);
NN_BINARY_KERNEL(NotEqual, NOT_EQUAL);
NN_BINARY_KERNEL(Greater, GREATER);
NN_BINARY_KERNEL(GreaterEqual, GREATER_EQUAL);
NN_BINARY_KERNEL(Less, LESS);
NN_BINARY_KERNEL(LessEqual, LESS_EQUAL);
NN_BINARY_KERNEL(LogicalAnd, LOGICAL_AND);
NN_BINARY_KERNEL(LogicalOr, LOGICAL_OR);
NN_BINARY_KERNEL(Prelu, PRELU);
const OperationKernel kEluKernel = {&validateElu, &prepareSame, &executeElu, &perOutputElement};
NNREMOTE_REGISTER_KERNEL(OperationType::ELU, kEluKernel);
const OperationKernel kSelectKernel = {&validateSelect, &prepareSelect, &executeSelect, &perOutputElement};
NNREMOTE_REGISTER_KERNEL(OperationType::SELECT, kSelectKernel);

#undef NN_UNARY_KERNEL
#undef NN_BINARY_KERNEL

}  // namespace nnremote::sim
