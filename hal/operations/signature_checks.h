// The vocabulary every operation's signature is written in: counts, types, ranks, parameter kinds
// and quantization rules. Each check returns INVALID_ARGUMENT with a message that names the input
// or output and the rule ("input 7 must be BOOL (layout) with 8 inputs, got INT32");
// validateOperationSignature puts "main.operations[4] CONV_2D: " in front.
#ifndef NNREMOTE_HAL_OPERATIONS_SIGNATURE_CHECKS_H_
#define NNREMOTE_HAL_OPERATIONS_SIGNATURE_CHECKS_H_

#include <initializer_list>
#include <vector>

#include "hal/operand_types.h"
#include "hal/operation_signatures.h"

namespace nnremote::hal::signatures {

constexpr Version kFL1 = Version::FEATURE_LEVEL_1;  // Android 8.1, NN HAL 1.0
constexpr Version kFL2 = Version::FEATURE_LEVEL_2;  // Android 9, NN HAL 1.1
constexpr Version kFL3 = Version::FEATURE_LEVEL_3;  // Android 10, NN HAL 1.2
constexpr Version kFL4 = Version::FEATURE_LEVEL_4;  // Android 11, NN HAL 1.3
constexpr Version kFL5 = Version::FEATURE_LEVEL_5;  // Android 12
constexpr Version kFL6 = Version::FEATURE_LEVEL_6;  // Android 13 (AIDL V2)
constexpr Version kFL7 = Version::FEATURE_LEVEL_7;  // Android 14 (AIDL V3)

// The later of two feature levels.
inline Version later(Version a, Version b) {
  return static_cast<int32_t>(a) >= static_cast<int32_t>(b) ? a : b;
}

// The feature level at which an operand type entered NNAPI (FL1 for the 1.0 types, FL3 for the
// 1.2 ones, FL4 for TENSOR_QUANT8_ASYMM_SIGNED and SUBGRAPH).
Version versionOfType(OperandType type);

// ---- Counts --------------------------------------------------------------------------------

Status expectInputCount(const OperationOperands& operands, size_t count);
Status expectInputCountIn(const OperationOperands& operands, std::initializer_list<size_t> counts);
Status expectInputCountBetween(const OperationOperands& operands, size_t min, size_t max);
Status expectOutputCount(const OperationOperands& operands, size_t count);
Status expectOutputCountIn(const OperationOperands& operands, std::initializer_list<size_t> counts);

// ---- Types ---------------------------------------------------------------------------------

// Every input has exactly the listed type, and there are exactly as many inputs as types.
Status expectInputTypes(const OperationOperands& operands, const std::vector<OperandType>& types);
// Every output has exactly the listed type, and there are exactly as many outputs as types.
Status expectOutputTypes(const OperationOperands& operands, const std::vector<OperandType>& types);
// One input or output has `type`; `role` ("layout", "bias", ...) names it in messages, or nullptr.
Status expectInputType(const OperationOperands& operands, size_t i, OperandType type,
                       const char* role = nullptr);
Status expectOutputType(const OperationOperands& operands, size_t i, OperandType type,
                        const char* role = nullptr);
// One input's type is one of `types`.
Status expectInputTypeIn(const OperationOperands& operands, size_t i, std::initializer_list<OperandType> types,
                         const char* role = nullptr);
// Input 0's type is one of `types` (the operation's "main" tensor type); the error says the
// operation does not take that type.
Status expectPrimaryType(const OperationOperands& operands, std::initializer_list<OperandType> types);

// ---- Ranks (checked where the rank is known: an operand with no dimensions has unknown rank) --

Status expectInputRank(const OperationOperands& operands, size_t i, uint32_t rank, const char* role = nullptr);
Status expectInputRankBetween(const OperationOperands& operands, size_t i, uint32_t min, uint32_t max,
                              const char* role = nullptr);
Status expectOutputRank(const OperationOperands& operands, size_t i, uint32_t rank, const char* role = nullptr);

// ---- Role-named operand lists --------------------------------------------------------------

// One input or output of a signature: its type and the role that names it in messages. An input
// marked `omittable` may be left out (NO_VALUE); any other input must have a value.
struct Slot {
  OperandType type;
  const char* role;
  bool omittable = false;
};
// Inputs first, first + 1, ... have their slots' types, and those not omittable have a value.
// The input count has been checked.
Status expectInputSlots(const OperationOperands& operands, size_t first, const std::vector<Slot>& slots);
// Outputs 0, 1, ... have their slots' types. The output count has been checked.
Status expectOutputSlots(const OperationOperands& operands, const std::vector<Slot>& slots);
// The scalar type of a float tensor type's parameters: FLOAT16 for TENSOR_FLOAT16, else FLOAT32
// (quantized forms take their float parameters as FLOAT32).
OperandType scalarFor(OperandType tensorType);

// ---- Values and quantization -----------------------------------------------------------------

// A required input that must have a value: not omitted (NO_VALUE).
Status expectPresent(const OperationOperands& operands, size_t i, const char* role = nullptr);
// Output `o` has the same scale and zero point as input `i` (operations that move values without
// rescaling them), for quantized types only.
Status expectSameQuantization(const OperationOperands& operands, size_t o, size_t i);
// Output `o` of a quantized type has exactly this scale and zero point (e.g. LOGISTIC's 1/256).
Status expectOutputQuantization(const OperationOperands& operands, size_t o, float scale, int32_t zeroPoint);
// A per-channel quantized input (TENSOR_QUANT8_SYMM_PER_CHANNEL) quantized along `channelDim`.
Status expectChannelDim(const OperationOperands& operands, size_t i, uint32_t channelDim, const char* role = nullptr);
// A quantized operation's TENSOR_INT32 bias `bias` has scale = scale(input) x scale(filter) (for a
// per-channel filter: zero, since each channel has its own), within the relative tolerance AOSP
// allows, and zero point 0.
Status expectBiasScale(const OperationOperands& operands, size_t bias, size_t input, size_t filter);

// True for the quantized tensor types whose values carry scale and zero point.
bool isQuantized(OperandType type);

}  // namespace nnremote::hal::signatures

#endif  // NNREMOTE_HAL_OPERATIONS_SIGNATURE_CHECKS_H_
