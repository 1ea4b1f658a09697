// Signatures of the element-wise family: arithmetic with broadcasting, comparisons, logic,
// unary math, activations, SELECT, CAST and (de)quantization. After AOSP's per-operation
// `validate` functions (Broadcast, MaximumMinimum, Pow, PRelu, Comparisons, LogicalAndOr,
// LogicalNot, Elementwise, Neg, Activation, Elu, Select, Cast, Quantize, Dequantize); our own code.
#include <initializer_list>
#include <optional>
#include <string>

#include "hal/operations/families.h"
#include "hal/operations/signature_checks.h"

namespace nnremote::hal::signatures {
namespace {

using T = OperandType;

// One accepted tensor type of an operation and the feature level that introduced it there.
struct Form {
  OperandType type;
  Version version;
};

std::string listForms(std::initializer_list<Form> forms) {
  std::string text;
  size_t n = 0;
  for (const Form& form : forms) {
    if (n++ > 0) text += n == forms.size() ? " or " : ", ";
    text += toString(form.type);
  }
  return text;
}

// The feature level of the form whose type input `i` has; an error naming the input when the
// operation takes no such form. The caller has checked that input `i` exists.
Result<Version> levelOfInput(const OperationOperands& operands, size_t i, std::initializer_list<Form> forms,
                             const char* role = nullptr) {
  const OperandType got = operands.inputType(i);
  for (const Form& form : forms) {
    if (form.type == got) return form.version;
  }
  std::string name = "input " + std::to_string(i);
  if (role != nullptr) name += std::string(" (") + role + ")";
  return invalidArgument() << name << " has type " << toString(got) << ", which " << toString(operands.type())
                           << " does not take (it takes " << listForms(forms) << ")";
}

// Both inputs, where both ranks are known, have rank at most 4 (AOSP only checks the pair).
Status expectBinaryRanksAtMost4(const OperationOperands& operands) {
  if (operands.inputRank(0) == 0 || operands.inputRank(1) == 0) return {};
  NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 0, 1, 4));
  return expectInputRankBetween(operands, 1, 1, 4);
}

// A one-input, one-output operation whose output has the input's type. `maxRank` (0: none)
// bounds the input rank where it is known.
Result<Version> validateUnary(const OperationOperands& operands, std::initializer_list<Form> forms,
                              uint32_t maxRank = 0) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_ASSIGN_OR_RETURN(const Version version, levelOfInput(operands, 0, forms));
  const OperandType type = operands.inputType(0);
  NN_RETURN_IF_ERROR(expectOutputTypes(operands, {type}));
  if (maxRank != 0) NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 0, 1, maxRank));
  return version;
}

// A two-input, one-output operation whose inputs share one type; the output has that type too,
// or `outputType` where given (the comparisons' TENSOR_BOOL8).
Result<Version> validateBinary(const OperationOperands& operands, std::initializer_list<Form> forms,
                               std::optional<OperandType> outputType = std::nullopt) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 2));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_ASSIGN_OR_RETURN(const Version version, levelOfInput(operands, 0, forms));
  const OperandType type = operands.inputType(0);
  NN_RETURN_IF_ERROR(expectInputTypes(operands, {type, type}));
  NN_RETURN_IF_ERROR(expectOutputTypes(operands, {outputType.value_or(type)}));
  return version;
}

// ---- Arithmetic ------------------------------------------------------------------------------

// ADD, SUB, MUL, DIV: inputs (a, b of a's type, fused activation INT32), output of a's type;
// a and b of known rank have rank <= 4. ADD and MUL are FL1, SUB and DIV FL2 (float32); float16
// is FL3; quant8 is FL1 for ADD and MUL, FL3 for SUB, refused for DIV; quant8 signed and int32
// are FL4. Quantized MUL needs output scale > scale(a) x scale(b).
Result<Version> validateArithmetic(const OperationOperands& operands) {
  const OperationType op = operands.type();
  const Version introduced = (op == OperationType::SUB || op == OperationType::DIV) ? kFL2 : kFL1;
  NN_RETURN_IF_ERROR(expectInputCount(operands, 3));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  Result<Version> level = [&]() -> Result<Version> {
    switch (op) {
      case OperationType::SUB:
        return levelOfInput(operands, 0,
                            {{T::TENSOR_FLOAT32, kFL1}, {T::TENSOR_FLOAT16, kFL3}, {T::TENSOR_QUANT8_ASYMM, kFL3},
                             {T::TENSOR_QUANT8_ASYMM_SIGNED, kFL4}, {T::TENSOR_INT32, kFL4}});
      case OperationType::DIV:
        return levelOfInput(operands, 0,
                            {{T::TENSOR_FLOAT32, kFL1}, {T::TENSOR_FLOAT16, kFL3}, {T::TENSOR_INT32, kFL4}});
      default:  // ADD, MUL
        return levelOfInput(operands, 0,
                            {{T::TENSOR_FLOAT32, kFL1}, {T::TENSOR_FLOAT16, kFL3}, {T::TENSOR_QUANT8_ASYMM, kFL1},
                             {T::TENSOR_QUANT8_ASYMM_SIGNED, kFL4}, {T::TENSOR_INT32, kFL4}});
    }
  }();
  if (!level.ok()) return level.error();
  const OperandType type = operands.inputType(0);
  NN_RETURN_IF_ERROR(expectInputTypes(operands, {type, type, T::INT32}));
  NN_RETURN_IF_ERROR(expectOutputTypes(operands, {type}));
  NN_RETURN_IF_ERROR(expectBinaryRanksAtMost4(operands));
  if (op == OperationType::MUL && (type == T::TENSOR_QUANT8_ASYMM || type == T::TENSOR_QUANT8_ASYMM_SIGNED)) {
    const float product = operands.input(0).scale * operands.input(1).scale;
    const float outputScale = operands.output(0).scale;
    if (!(outputScale > product)) {
      return invalidArgument() << "output 0 scale " << outputScale
                               << " must be greater than input 0 scale x input 1 scale = " << product;
    }
  }
  return later(introduced, *level);
}

// MAXIMUM, MINIMUM: two inputs of one type, output of that type; float16/32, int32, quant8 FL3,
// quant8 signed FL4.
Result<Version> validateMaximumMinimum(const OperationOperands& operands) {
  return validateBinary(operands, {{T::TENSOR_FLOAT16, kFL3},
                                   {T::TENSOR_FLOAT32, kFL3},
                                   {T::TENSOR_INT32, kFL3},
                                   {T::TENSOR_QUANT8_ASYMM, kFL3},
                                   {T::TENSOR_QUANT8_ASYMM_SIGNED, kFL4}});
}

// POW: base and exponent of one float type (16 or 32), output of that type; FL3.
Result<Version> validatePow(const OperationOperands& operands) {
  return validateBinary(operands, {{T::TENSOR_FLOAT16, kFL3}, {T::TENSOR_FLOAT32, kFL3}});
}

// PRELU: input and alpha of one type, output of that type; float16/32 and quant8 FL3, quant8
// signed FL4.
Result<Version> validatePrelu(const OperationOperands& operands) {
  return validateBinary(operands, {{T::TENSOR_FLOAT16, kFL3},
                                   {T::TENSOR_FLOAT32, kFL3},
                                   {T::TENSOR_QUANT8_ASYMM, kFL3},
                                   {T::TENSOR_QUANT8_ASYMM_SIGNED, kFL4}});
}

// ---- Comparisons and logic ---------------------------------------------------------------------

// EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL: two inputs of one type (bool8,
// float16/32, int32, quant8: FL3; quant8 signed: FL4), output TENSOR_BOOL8.
Result<Version> validateComparison(const OperationOperands& operands) {
  return validateBinary(operands,
                        {{T::TENSOR_BOOL8, kFL3},
                         {T::TENSOR_FLOAT16, kFL3},
                         {T::TENSOR_FLOAT32, kFL3},
                         {T::TENSOR_INT32, kFL3},
                         {T::TENSOR_QUANT8_ASYMM, kFL3},
                         {T::TENSOR_QUANT8_ASYMM_SIGNED, kFL4}},
                        T::TENSOR_BOOL8);
}

// LOGICAL_AND, LOGICAL_OR: two TENSOR_BOOL8 inputs, TENSOR_BOOL8 output; FL3.
Result<Version> validateLogicalBinary(const OperationOperands& operands) {
  return validateBinary(operands, {{T::TENSOR_BOOL8, kFL3}});
}

// LOGICAL_NOT: one TENSOR_BOOL8 input, TENSOR_BOOL8 output; FL3.
Result<Version> validateLogicalNot(const OperationOperands& operands) {
  return validateUnary(operands, {{T::TENSOR_BOOL8, kFL3}});
}

// ---- Unary math --------------------------------------------------------------------------------

// EXP, LOG, SIN, SQRT: one float16/32 input, output of the input's type; FL3.
Result<Version> validateFloatMath(const OperationOperands& operands) {
  return validateUnary(operands, {{T::TENSOR_FLOAT16, kFL3}, {T::TENSOR_FLOAT32, kFL3}});
}

// RSQRT: as EXP, plus quant8 and quant8 signed at FL7.
Result<Version> validateRsqrt(const OperationOperands& operands) {
  return validateUnary(operands, {{T::TENSOR_FLOAT16, kFL3},
                                  {T::TENSOR_FLOAT32, kFL3},
                                  {T::TENSOR_QUANT8_ASYMM, kFL7},
                                  {T::TENSOR_QUANT8_ASYMM_SIGNED, kFL7}});
}

// ABS: float16/32 (FL3) or int32 (FL4) input, output of the input's type.
Result<Version> validateAbs(const OperationOperands& operands) {
  return validateUnary(operands, {{T::TENSOR_FLOAT16, kFL3}, {T::TENSOR_FLOAT32, kFL3}, {T::TENSOR_INT32, kFL4}});
}

// NEG: float16/32 or int32 input, output of the input's type; FL3.
Result<Version> validateNeg(const OperationOperands& operands) {
  return validateUnary(operands, {{T::TENSOR_FLOAT16, kFL3}, {T::TENSOR_FLOAT32, kFL3}, {T::TENSOR_INT32, kFL3}});
}

// FLOOR: float32 (FL1) or float16 (FL3) input of known rank <= 4, output of the input's type.
Result<Version> validateFloor(const OperationOperands& operands) {
  return validateUnary(operands, {{T::TENSOR_FLOAT32, kFL1}, {T::TENSOR_FLOAT16, kFL3}}, 4);
}

// ---- Activations -------------------------------------------------------------------------------

// RELU, RELU1, RELU6: one input of known rank <= 4, output of its type; float32 and quant8 FL1,
// float16 FL3, quant8 signed FL4.
Result<Version> validateRelu(const OperationOperands& operands) {
  return validateUnary(operands,
                       {{T::TENSOR_FLOAT32, kFL1},
                        {T::TENSOR_FLOAT16, kFL3},
                        {T::TENSOR_QUANT8_ASYMM, kFL1},
                        {T::TENSOR_QUANT8_ASYMM_SIGNED, kFL4}},
                       4);
}

// LOGISTIC: as RELU; a quantized output has the fixed range [0, 1): scale 1/256 with zero point
// 0 (quant8) or -128 (quant8 signed).
Result<Version> validateLogistic(const OperationOperands& operands) {
  NN_ASSIGN_OR_RETURN(const Version version, validateRelu(operands));
  const int32_t zeroPoint = operands.inputType(0) == T::TENSOR_QUANT8_ASYMM_SIGNED ? -128 : 0;
  NN_RETURN_IF_ERROR(expectOutputQuantization(operands, 0, 1.f / 256, zeroPoint));
  return version;
}

// TANH: as RELU but quant8 is FL3; a quantized output has the fixed range [-1, 1): scale 1/128
// with zero point 128 (quant8) or 0 (quant8 signed).
Result<Version> validateTanh(const OperationOperands& operands) {
  NN_ASSIGN_OR_RETURN(const Version version,
                      validateUnary(operands,
                                    {{T::TENSOR_FLOAT32, kFL1},
                                     {T::TENSOR_FLOAT16, kFL3},
                                     {T::TENSOR_QUANT8_ASYMM, kFL3},
                                     {T::TENSOR_QUANT8_ASYMM_SIGNED, kFL4}},
                                    4));
  const int32_t zeroPoint = operands.inputType(0) == T::TENSOR_QUANT8_ASYMM_SIGNED ? 0 : 128;
  NN_RETURN_IF_ERROR(expectOutputQuantization(operands, 0, 1.f / 128, zeroPoint));
  return version;
}

// HARD_SWISH: float16/32, quant8 or quant8 signed input of any rank, output of its type; FL4.
Result<Version> validateHardSwish(const OperationOperands& operands) {
  return validateUnary(operands, {{T::TENSOR_FLOAT16, kFL4},
                                  {T::TENSOR_FLOAT32, kFL4},
                                  {T::TENSOR_QUANT8_ASYMM, kFL4},
                                  {T::TENSOR_QUANT8_ASYMM_SIGNED, kFL4}});
}

// ELU: inputs (float16/32 tensor, alpha scalar FLOAT16/FLOAT32 matching it), output of the
// tensor's type; FL4.
Result<Version> validateElu(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 2));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_ASSIGN_OR_RETURN(const Version version,
                      levelOfInput(operands, 0, {{T::TENSOR_FLOAT16, kFL4}, {T::TENSOR_FLOAT32, kFL4}}));
  const OperandType type = operands.inputType(0);
  NN_RETURN_IF_ERROR(
      expectInputType(operands, 1, scalarFor(type), "alpha"));
  NN_RETURN_IF_ERROR(expectOutputTypes(operands, {type}));
  return version;
}

// ---- Selection, casts and quantization --------------------------------------------------------

// SELECT: inputs (condition TENSOR_BOOL8, a, b of a's type), output of a's type; float16/32,
// int32, quant8 FL3, quant8 signed FL4.
Result<Version> validateSelect(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 3));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectInputType(operands, 0, T::TENSOR_BOOL8, "condition"));
  NN_ASSIGN_OR_RETURN(const Version version, levelOfInput(operands, 1,
                                                          {{T::TENSOR_FLOAT16, kFL3},
                                                           {T::TENSOR_FLOAT32, kFL3},
                                                           {T::TENSOR_INT32, kFL3},
                                                           {T::TENSOR_QUANT8_ASYMM, kFL3},
                                                           {T::TENSOR_QUANT8_ASYMM_SIGNED, kFL4}},
                                                          "value if true"));
  const OperandType type = operands.inputType(1);
  NN_RETURN_IF_ERROR(expectInputTypes(operands, {T::TENSOR_BOOL8, type, type}));
  NN_RETURN_IF_ERROR(expectOutputTypes(operands, {type}));
  return version;
}

bool isCastableType(OperandType type) {
  return type == T::TENSOR_FLOAT16 || type == T::TENSOR_FLOAT32 || type == T::TENSOR_INT32 ||
         type == T::TENSOR_QUANT8_ASYMM;
}

// CAST: one input, one output. Between any two of float16/32, int32 and quant8: FL3. Bool8,
// quant16 (symm/asymm), quant8 signed and quant8 symm cast only to themselves: FL4. Where both
// shapes are given and the output's is fully known, they are equal.
Result<Version> validateCast(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  const OperandType in = operands.inputType(0);
  const OperandType out = operands.outputType(0);
  Version version = kFL3;
  if (isCastableType(in)) {
    if (!isCastableType(out)) {
      return invalidArgument() << "output 0 must be TENSOR_FLOAT16, TENSOR_FLOAT32, TENSOR_INT32 or "
                                  "TENSOR_QUANT8_ASYMM for a "
                               << toString(in) << " input, got " << toString(out);
    }
  } else if (in == T::TENSOR_BOOL8 || in == T::TENSOR_QUANT16_ASYMM || in == T::TENSOR_QUANT16_SYMM ||
             in == T::TENSOR_QUANT8_ASYMM_SIGNED || in == T::TENSOR_QUANT8_SYMM) {
    version = kFL4;
    if (out != in) {
      return invalidArgument() << "output 0 must be " << toString(in) << " (a " << toString(in)
                               << " input casts only to itself), got " << toString(out);
    }
  } else {
    return invalidArgument() << "input 0 has type " << toString(in)
                             << ", which CAST does not take (it takes TENSOR_FLOAT16, TENSOR_FLOAT32, "
                                "TENSOR_INT32, TENSOR_QUANT8_ASYMM, TENSOR_BOOL8, TENSOR_QUANT16_ASYMM, "
                                "TENSOR_QUANT16_SYMM, TENSOR_QUANT8_ASYMM_SIGNED or TENSOR_QUANT8_SYMM)";
  }
  const std::vector<uint32_t>& inDims = operands.input(0).dimensions;
  const std::vector<uint32_t>& outDims = operands.output(0).dimensions;
  bool outputHasUnknownDim = false;
  for (uint32_t dim : outDims) outputHasUnknownDim |= dim == 0;
  if (!inDims.empty() && !outDims.empty() && !outputHasUnknownDim && inDims != outDims) {
    return invalidArgument() << "output 0 shape " << toString(outDims) << " must equal input 0 shape "
                             << toString(inDims);
  }
  return version;
}

// QUANTIZE: float16/32 input; quant8 (FL3) or quant8 signed (FL4) output.
Result<Version> validateQuantize(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_ASSIGN_OR_RETURN(const Version version,
                      levelOfInput(operands, 0, {{T::TENSOR_FLOAT16, kFL3}, {T::TENSOR_FLOAT32, kFL3}}));
  const OperandType out = operands.outputType(0);
  if (out == T::TENSOR_QUANT8_ASYMM) return version;
  if (out == T::TENSOR_QUANT8_ASYMM_SIGNED) return later(version, kFL4);
  return invalidArgument() << "output 0 must be TENSOR_QUANT8_ASYMM or TENSOR_QUANT8_ASYMM_SIGNED, got "
                           << toString(out);
}

// DEQUANTIZE: quant8 (asymm, asymm signed, symm, symm per channel) input of known rank <= 4;
// float16/32 output. Quant8 to float32 is FL1, quant8 signed FL4, the rest FL3.
Result<Version> validateDequantize(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 0, 1, 4));
  NN_ASSIGN_OR_RETURN(const Version version, levelOfInput(operands, 0,
                                                          {{T::TENSOR_QUANT8_ASYMM, kFL1},
                                                           {T::TENSOR_QUANT8_ASYMM_SIGNED, kFL4},
                                                           {T::TENSOR_QUANT8_SYMM, kFL3},
                                                           {T::TENSOR_QUANT8_SYMM_PER_CHANNEL, kFL3}}));
  const OperandType out = operands.outputType(0);
  if (out == T::TENSOR_FLOAT32) return version;
  if (out == T::TENSOR_FLOAT16) return later(version, kFL3);
  return invalidArgument() << "output 0 must be TENSOR_FLOAT16 or TENSOR_FLOAT32, got " << toString(out);
}

}  // namespace

std::vector<OperationSignature> elementwiseSignatures() {
  return {
      {OperationType::ADD, validateArithmetic},
      {OperationType::SUB, validateArithmetic},
      {OperationType::MUL, validateArithmetic},
      {OperationType::DIV, validateArithmetic},
      {OperationType::MAXIMUM, validateMaximumMinimum},
      {OperationType::MINIMUM, validateMaximumMinimum},
      {OperationType::POW, validatePow},
      {OperationType::PRELU, validatePrelu},
      {OperationType::EQUAL, validateComparison},
      {OperationType::NOT_EQUAL, validateComparison},
      {OperationType::GREATER, validateComparison},
      {OperationType::GREATER_EQUAL, validateComparison},
      {OperationType::LESS, validateComparison},
      {OperationType::LESS_EQUAL, validateComparison},
      {OperationType::LOGICAL_AND, validateLogicalBinary},
      {OperationType::LOGICAL_OR, validateLogicalBinary},
      {OperationType::LOGICAL_NOT, validateLogicalNot},
      {OperationType::ABS, validateAbs},
      {OperationType::NEG, validateNeg},
      {OperationType::EXP, validateFloatMath},
      {OperationType::LOG, validateFloatMath},
      {OperationType::SIN, validateFloatMath},
      {OperationType::SQRT, validateFloatMath},
      {OperationType::RSQRT, validateRsqrt},
      {OperationType::FLOOR, validateFloor},
      {OperationType::RELU, validateRelu},
      {OperationType::RELU1, validateRelu},
      {OperationType::RELU6, validateRelu},
      {OperationType::LOGISTIC, validateLogistic},
      {OperationType::TANH, validateTanh},
      {OperationType::ELU, validateElu},
      {OperationType::HARD_SWISH, validateHardSwish},
      {OperationType::SELECT, validateSelect},
      {OperationType::CAST, validateCast},
      {OperationType::QUANTIZE, validateQuantize},
      {OperationType::DEQUANTIZE, validateDequantize},
  };
}

}  // namespace nnremote::hal::signatures
