// Shapes and data movement: reshapes, concatenation and packing, block/space rearrangements, pads,
// gathers and slices, splits and tiles, fills, ranks, reductions, arg-min/max and top-k.
//
// What Android checks when a model is built (AOSP's per-operation validate) is checked here: input
// and output counts, operand types, input ranks where known, the quantization some operations
// must keep. Android's executor also refuses an omitted (NO_VALUE) input for every one of these
// operations except the optional second input of SQUEEZE and TRANSPOSE, so that is refused too.
#include <string>
#include <vector>

#include "hal/operations/families.h"
#include "hal/operations/signature_checks.h"

namespace nnremote::hal::signatures {
namespace {

using T = OperandType;

// The tensor types most of these operations move around, and the same with TENSOR_INT32.
const std::initializer_list<T> kFloatOrQuant8 = {T::TENSOR_FLOAT32, T::TENSOR_QUANT8_ASYMM, T::TENSOR_FLOAT16,
                                                 T::TENSOR_QUANT8_ASYMM_SIGNED};
const std::initializer_list<T> kFloatQuant8OrInt32 = {T::TENSOR_FLOAT32, T::TENSOR_QUANT8_ASYMM, T::TENSOR_FLOAT16,
                                                      T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32};
constexpr size_t kNone = static_cast<size_t>(-1);

// At least `min` inputs (the operations taking any number of tensors).
Status expectInputCountAtLeast(const OperationOperands& operands, size_t min, const char* what) {
  if (operands.inputCount() >= min) return {};
  return invalidArgument() << "takes at least " << min << " inputs (" << what << "), got " << operands.inputCount();
}

// Output `o` has one of `types`.
Status expectOutputTypeIn(const OperationOperands& operands, size_t o, std::initializer_list<T> types) {
  const T got = operands.outputType(o);
  for (T type : types) {
    if (type == got) return {};
  }
  std::string list;
  size_t n = 0;
  for (T type : types) {
    if (n++ > 0) list += n == types.size() ? " or " : ", ";
    list += toString(type);
  }
  return invalidArgument() << "output " << o << " has type " << toString(got) << ", which "
                           << toString(operands.type()) << " does not produce (it produces " << list << ")";
}


// The common inputs: input 0 a tensor of one of `types`, then the parameter inputs `params`,
// every input with a value except input `optional`, which may be omitted (NO_VALUE). Returns the
// later of `base` and the level of input 0's type.
Result<Version> expectTensorAndParams(const OperationOperands& operands, std::initializer_list<T> types,
                                      const std::vector<Slot>& params, Version base, size_t optional = kNone) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 1 + params.size()));
  NN_RETURN_IF_ERROR(expectPrimaryType(operands, types));
  for (size_t i = 0; i < params.size(); ++i) {
    NN_RETURN_IF_ERROR(expectInputType(operands, 1 + i, params[i].type, params[i].role));
  }
  for (size_t i = 0; i < operands.inputCount(); ++i) {
    if (i != optional) NN_RETURN_IF_ERROR(expectPresent(operands, i, i == 0 ? "tensor" : params[i - 1].role));
  }
  return later(base, versionOfType(operands.inputType(0)));
}

// The common inputs (above) and one output of input 0's type.
Result<Version> expectTensorWithParams(const OperationOperands& operands, std::initializer_list<T> types,
                                       const std::vector<Slot>& params, Version base, size_t optional = kNone) {
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_ASSIGN_OR_RETURN(Version version, expectTensorAndParams(operands, types, params, base, optional));
  NN_RETURN_IF_ERROR(expectOutputType(operands, 0, operands.inputType(0)));
  return version;
}

// Input `i`'s dimension `d` is unknown (0) or `size`; input i's rank is known to exceed d.
Status expectDimensionOrUnknown(const OperationOperands& operands, size_t i, size_t d, uint32_t size,
                                const char* role) {
  const uint32_t got = operands.input(i).dimensions[d];
  if (got == 0 || got == size) return {};
  return invalidArgument() << "input " << i << " (" << role << ") must have dimension " << d << " of size " << size
                           << ", got " << got;
}

// Output 0's rank equals input 0's where both are known.
Status expectSameRank(const OperationOperands& operands) {
  const uint32_t in = operands.inputRank(0);
  const uint32_t out = operands.outputRank(0);
  if (in == 0 || out == 0 || in == out) return {};
  return invalidArgument() << "output 0 must have input 0's rank " << in << ", got " << out;
}

// ---- Reshapes ---------------------------------------------------------------------------------

// RESHAPE: (tensor of rank <= 4, TENSOR_INT32 shape) -> tensor of the same type. FL1 float32 and
// quant8, FL3 float16, FL4 quant8 signed, FL6 int32.
Result<Version> validateReshape(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 2));
  NN_ASSIGN_OR_RETURN(Version version,
                      expectTensorWithParams(operands, kFloatQuant8OrInt32, {{T::TENSOR_INT32, "shape"}}, kFL1));
  NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 0, 1, 4, "tensor"));
  if (operands.inputType(0) == T::TENSOR_INT32) version = kFL6;
  return version;
}

// SQUEEZE and TRANSPOSE: (tensor of rank <= 4, TENSOR_INT32 axes or permutation, which may be
// omitted but is then still a TENSOR_INT32 operand) -> tensor of the same type. FL2 float32 and
// quant8, FL3 float16, FL4 quant8 signed.
Result<Version> validateSqueezeOrTranspose(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 2));
  const char* role = operands.type() == OperationType::SQUEEZE ? "axes" : "permutation";
  NN_ASSIGN_OR_RETURN(Version version, expectTensorWithParams(operands, kFloatOrQuant8, {{T::TENSOR_INT32, role}},
                                                              kFL2, /*optional=*/1));
  NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 0, 1, 4, "tensor"));
  return version;
}

// EXPAND_DIMS: (tensor, INT32 axis) -> tensor of the same type. FL3 (quant8 signed FL4).
Result<Version> validateExpandDims(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 2));
  return expectTensorWithParams(operands, kFloatQuant8OrInt32, {{T::INT32, "axis"}}, kFL3);
}

// SPACE_TO_DEPTH and DEPTH_TO_SPACE: (tensor, INT32 block size[, BOOL layout]) -> tensor of the
// same type. FL1 float32 and quant8, FL3 float16 or with the layout input, FL4 quant8 signed.
Result<Version> validateSpaceDepth(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCountIn(operands, {2, 3}));
  std::vector<Slot> params = {{T::INT32, "block size"}};
  if (operands.inputCount() == 3) params.push_back({T::BOOL, "layout"});
  NN_ASSIGN_OR_RETURN(Version version, expectTensorWithParams(operands, kFloatOrQuant8, params, kFL1));
  if (operands.inputCount() == 3) version = later(version, kFL3);
  return version;
}

// BATCH_TO_SPACE_ND: (tensor, TENSOR_INT32 block sizes[, BOOL layout]) -> tensor of the same
// type. FL2 float32 and quant8, FL3 float16 or with the layout input, FL4 quant8 signed.
Result<Version> validateBatchToSpace(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCountIn(operands, {2, 3}));
  std::vector<Slot> params = {{T::TENSOR_INT32, "block sizes"}};
  if (operands.inputCount() == 3) params.push_back({T::BOOL, "layout"});
  NN_ASSIGN_OR_RETURN(Version version, expectTensorWithParams(operands, kFloatOrQuant8, params, kFL2));
  if (operands.inputCount() == 3) version = later(version, kFL3);
  return version;
}

// SPACE_TO_BATCH_ND: (tensor, TENSOR_INT32 block sizes, TENSOR_INT32 paddings[, BOOL layout]) ->
// tensor of the same type. FL2 float32 and quant8 with zero point 0, FL3 float16, quant8 with
// another zero point or with the layout input, FL4 quant8 signed.
Result<Version> validateSpaceToBatch(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCountIn(operands, {3, 4}));
  std::vector<Slot> params = {{T::TENSOR_INT32, "block sizes"}, {T::TENSOR_INT32, "paddings"}};
  if (operands.inputCount() == 4) params.push_back({T::BOOL, "layout"});
  NN_ASSIGN_OR_RETURN(Version version, expectTensorWithParams(operands, kFloatOrQuant8, params, kFL2));
  if (operands.inputCount() == 4) version = later(version, kFL3);
  if (operands.inputType(0) == T::TENSOR_QUANT8_ASYMM && operands.input(0).zeroPoint != 0) {
    version = later(version, kFL3);
  }
  return version;
}

// ---- Joining and splitting ----------------------------------------------------------------------

// CONCATENATION: (n >= 1 tensors of one type and rank <= 4, INT32 axis) -> tensor of that type.
// FL1 float32 and quant8, FL3 float16 or quant8 whose inputs' scale or zero point differ from the
// output's, FL4 quant8 signed.
Result<Version> validateConcatenation(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCountAtLeast(operands, 2, "one or more tensors and the axis"));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectPrimaryType(operands, kFloatOrQuant8));
  const T type = operands.inputType(0);
  const size_t tensors = operands.inputCount() - 1;
  for (size_t i = 1; i < tensors; ++i) NN_RETURN_IF_ERROR(expectInputType(operands, i, type, "tensor"));
  NN_RETURN_IF_ERROR(expectInputType(operands, tensors, T::INT32, "axis"));
  NN_RETURN_IF_ERROR(expectOutputType(operands, 0, type));
  for (size_t i = 0; i < tensors; ++i) {
    NN_RETURN_IF_ERROR(expectInputRankBetween(operands, i, 1, 4, "tensor"));
    NN_RETURN_IF_ERROR(expectPresent(operands, i, "tensor"));
  }
  NN_RETURN_IF_ERROR(expectPresent(operands, tensors, "axis"));
  Version version = later(kFL1, versionOfType(type));
  if (type == T::TENSOR_QUANT8_ASYMM) {
    const Operand& output = operands.output(0);
    for (size_t i = 0; i < tensors; ++i) {
      if (operands.input(i).scale != output.scale || operands.input(i).zeroPoint != output.zeroPoint) {
        version = later(version, kFL3);
      }
    }
  }
  return version;
}

// PACK: (INT32 axis, n >= 1 tensors) -> tensor one rank higher. Inputs and output share one type
// (float32, float16, quant8, quant8 signed or int32) and, when quantized, one scale and zero
// point; the inputs share one rank, the output's minus one where known. FL6.
Result<Version> validatePack(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCountAtLeast(operands, 2, "the axis and one or more tensors"));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectInputType(operands, 0, T::INT32, "axis"));
  NN_RETURN_IF_ERROR(expectOutputTypeIn(operands, 0, kFloatQuant8OrInt32));
  const T type = operands.outputType(0);
  const uint32_t outputRank = operands.outputRank(0);
  uint32_t rank = outputRank > 0 ? outputRank - 1 : 0;  // 0 while unknown
  for (size_t i = 1; i < operands.inputCount(); ++i) {
    NN_RETURN_IF_ERROR(expectInputType(operands, i, type, "tensor"));
    NN_RETURN_IF_ERROR(expectSameQuantization(operands, 0, i));
    const uint32_t got = operands.inputRank(i);
    if (got == 0) continue;
    if (rank == 0) {
      rank = got;
    } else if (got != rank) {
      return invalidArgument() << "input " << i << " (tensor) must have rank " << rank
                               << (outputRank > 0 ? " (the output's rank minus one)" : " (that of the other tensors)")
                               << ", got " << got;
    }
  }
  for (size_t i = 0; i < operands.inputCount(); ++i) {
    NN_RETURN_IF_ERROR(expectPresent(operands, i, i == 0 ? "axis" : "tensor"));
  }
  return kFL6;
}

// SPLIT: (tensor, INT32 axis, INT32 number of splits) -> n >= 1 tensors of its type. FL3 (quant8
// signed FL4).
Result<Version> validateSplit(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 3));
  if (operands.outputCount() == 0) return invalidArgument() << "has at least 1 output, got 0";
  NN_ASSIGN_OR_RETURN(Version version,
                      expectTensorAndParams(operands, kFloatQuant8OrInt32,
                                            {{T::INT32, "axis"}, {T::INT32, "number of splits"}}, kFL3));
  for (size_t o = 0; o < operands.outputCount(); ++o) {
    NN_RETURN_IF_ERROR(expectOutputType(operands, o, operands.inputType(0)));
  }
  return version;
}

// TILE: (tensor, TENSOR_INT32 multiples) -> tensor of the same type. FL3 (quant8 signed FL4).
Result<Version> validateTile(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 2));
  return expectTensorWithParams(operands, kFloatQuant8OrInt32, {{T::TENSOR_INT32, "multiples"}}, kFL3);
}

// ---- Pads --------------------------------------------------------------------------------------

// PAD: (tensor of rank <= 4, TENSOR_INT32 paddings) -> tensor of the same type. FL2 float32 and
// quant8 with zero point 0, FL3 float16 and quant8 with another zero point, FL4 quant8 signed.
Result<Version> validatePad(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 2));
  NN_ASSIGN_OR_RETURN(Version version,
                      expectTensorWithParams(operands, kFloatOrQuant8, {{T::TENSOR_INT32, "paddings"}}, kFL2));
  NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 0, 1, 4, "tensor"));
  if (operands.inputType(0) == T::TENSOR_QUANT8_ASYMM && operands.input(0).zeroPoint != 0) {
    version = later(version, kFL3);
  }
  return version;
}

// PAD_V2: (tensor of rank <= 4, TENSOR_INT32 paddings, pad value: FLOAT32 / FLOAT16 for float
// tensors, INT32 for quant8 ones) -> tensor of the same type. FL3 (quant8 signed FL4).
Result<Version> validatePadV2(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 3));
  NN_RETURN_IF_ERROR(expectPrimaryType(operands, kFloatOrQuant8));
  const T type = operands.inputType(0);
  const T value = type == T::TENSOR_FLOAT32 ? T::FLOAT32 : type == T::TENSOR_FLOAT16 ? T::FLOAT16 : T::INT32;
  NN_ASSIGN_OR_RETURN(Version version,
                      expectTensorWithParams(operands, kFloatOrQuant8,
                                             {{T::TENSOR_INT32, "paddings"}, {value, "pad value"}}, kFL3));
  NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 0, 1, 4, "tensor"));
  return version;
}

// MIRROR_PAD: (tensor, TENSOR_INT32 paddings of shape [rank, 2], INT32 mode) -> tensor of the same
// type, rank, scale and zero point. Float32, float16, quant8, quant8 signed or int32. FL7.
Result<Version> validateMirrorPad(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 3));
  NN_ASSIGN_OR_RETURN(Version version,
                      expectTensorWithParams(operands, kFloatQuant8OrInt32,
                                             {{T::TENSOR_INT32, "paddings"}, {T::INT32, "mode"}}, kFL7));
  NN_RETURN_IF_ERROR(expectSameQuantization(operands, 0, 0));
  if (operands.inputRank(1) != 0) {
    NN_RETURN_IF_ERROR(expectInputRank(operands, 1, 2, "paddings"));
    NN_RETURN_IF_ERROR(expectDimensionOrUnknown(operands, 1, 1, 2, "paddings"));
    const uint32_t rows = operands.input(1).dimensions[0];
    const uint32_t rank = operands.inputRank(0);
    if (rank != 0 && rows != 0 && rows != rank) {
      return invalidArgument() << "input 1 (paddings) must have one row for each of input 0's " << rank
                               << " dimensions, got " << rows;
    }
  }
  NN_RETURN_IF_ERROR(expectSameRank(operands));
  return version;
}

// ---- Gathers and slices -------------------------------------------------------------------------

// GATHER: (tensor, INT32 axis, TENSOR_INT32 indices) -> tensor of the same type. FL3 (quant8
// signed FL4).
Result<Version> validateGather(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 3));
  return expectTensorWithParams(operands, kFloatQuant8OrInt32, {{T::INT32, "axis"}, {T::TENSOR_INT32, "indices"}},
                                kFL3);
}

// SLICE: (tensor, TENSOR_INT32 begin, TENSOR_INT32 size) -> tensor of the same type. FL3 (quant8
// signed FL4).
Result<Version> validateSlice(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 3));
  return expectTensorWithParams(operands, kFloatQuant8OrInt32,
                                {{T::TENSOR_INT32, "begin"}, {T::TENSOR_INT32, "size"}}, kFL3);
}

// STRIDED_SLICE: (tensor of rank <= 4, TENSOR_INT32 begin, end and strides, INT32 begin mask, end
// mask and shrink-axis mask) -> tensor of the same type. FL2 float32 and quant8, FL3 float16, FL4
// quant8 signed.
Result<Version> validateStridedSlice(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 7));
  NN_ASSIGN_OR_RETURN(Version version, expectTensorWithParams(operands, kFloatOrQuant8,
                                                              {{T::TENSOR_INT32, "begin"},
                                                               {T::TENSOR_INT32, "end"},
                                                               {T::TENSOR_INT32, "strides"},
                                                               {T::INT32, "begin mask"},
                                                               {T::INT32, "end mask"},
                                                               {T::INT32, "shrink axis mask"}},
                                                              kFL2));
  NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 0, 1, 4, "tensor"));
  return version;
}

// REVERSE: (tensor, TENSOR_INT32 axis of shape [1]) -> tensor of the same type, rank, scale and
// zero point. Float32, float16, quant8, quant8 signed or int32. FL7.
Result<Version> validateReverse(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 2));
  NN_ASSIGN_OR_RETURN(Version version,
                      expectTensorWithParams(operands, kFloatQuant8OrInt32, {{T::TENSOR_INT32, "axis"}}, kFL7));
  NN_RETURN_IF_ERROR(expectSameQuantization(operands, 0, 0));
  if (operands.inputRank(1) != 0) {
    NN_RETURN_IF_ERROR(expectInputRank(operands, 1, 1, "axis"));
    NN_RETURN_IF_ERROR(expectDimensionOrUnknown(operands, 1, 0, 1, "axis"));
  }
  NN_RETURN_IF_ERROR(expectSameRank(operands));
  return version;
}

// ---- Creating tensors and asking their rank ------------------------------------------------------

// FILL: (TENSOR_INT32 shape, scalar value of the output's element type: FLOAT32, FLOAT16 or INT32)
// -> TENSOR_FLOAT32, TENSOR_FLOAT16 or TENSOR_INT32. FL4.
Result<Version> validateFill(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 2));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectOutputTypeIn(operands, 0, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16, T::TENSOR_INT32}));
  const T type = operands.outputType(0);
  const T value = type == T::TENSOR_FLOAT32 ? T::FLOAT32 : type == T::TENSOR_FLOAT16 ? T::FLOAT16 : T::INT32;
  NN_RETURN_IF_ERROR(expectInputType(operands, 0, T::TENSOR_INT32, "shape"));
  NN_RETURN_IF_ERROR(expectInputType(operands, 1, value, "value"));
  NN_RETURN_IF_ERROR(expectPresent(operands, 0, "shape"));
  NN_RETURN_IF_ERROR(expectPresent(operands, 1, "value"));
  return kFL4;
}

// RANK: (tensor of any built-in tensor type) -> INT32 scalar. FL4.
Result<Version> validateRank(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectPrimaryType(
      operands, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16, T::TENSOR_INT32, T::TENSOR_QUANT8_ASYMM,
                 T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_SYMM, T::TENSOR_QUANT8_SYMM_PER_CHANNEL,
                 T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT16_ASYMM, T::TENSOR_BOOL8}));
  NN_RETURN_IF_ERROR(expectOutputType(operands, 0, T::INT32));
  NN_RETURN_IF_ERROR(expectPresent(operands, 0, "tensor"));
  return kFL4;
}

// ---- Reductions, arg-min/max and top-k -----------------------------------------------------------

// MEAN: (tensor of rank <= 4, TENSOR_INT32 axes, INT32 keep dims) -> tensor of the same type. FL2
// float32 and quant8, FL3 float16, FL4 quant8 signed.
Result<Version> validateMean(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 3));
  NN_ASSIGN_OR_RETURN(Version version,
                      expectTensorWithParams(operands, kFloatOrQuant8,
                                             {{T::TENSOR_INT32, "axes"}, {T::INT32, "keep dims"}}, kFL2));
  NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 0, 1, 4, "tensor"));
  return version;
}

// REDUCE_*: (tensor of rank <= 4, TENSOR_INT32 axes, BOOL keep dims) -> tensor of the same type.
// The tensor types: TENSOR_BOOL8 for REDUCE_ALL and REDUCE_ANY; float32 or float16 for
// REDUCE_PROD and REDUCE_SUM; those and quant8 (signed: FL4) for REDUCE_MAX and REDUCE_MIN. FL3.
Result<Version> validateReduce(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 3));
  const std::vector<Slot> params = {{T::TENSOR_INT32, "axes"}, {T::BOOL, "keep dims"}};
  const OperationType op = operands.type();
  Result<Version> version =
      op == OperationType::REDUCE_ALL || op == OperationType::REDUCE_ANY
          ? expectTensorWithParams(operands, {T::TENSOR_BOOL8}, params, kFL3)
      : op == OperationType::REDUCE_PROD || op == OperationType::REDUCE_SUM
          ? expectTensorWithParams(operands, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16}, params, kFL3)
          : expectTensorWithParams(operands, kFloatOrQuant8, params, kFL3);  // REDUCE_MAX, REDUCE_MIN
  if (!version.ok()) return version;
  NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 0, 1, 4, "tensor"));
  return version;
}

// ARGMAX and ARGMIN: (tensor, INT32 axis) -> TENSOR_INT32 indices. FL3 (quant8 signed FL4).
Result<Version> validateArgMinMax(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 2));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_ASSIGN_OR_RETURN(Version version, expectTensorAndParams(operands, kFloatQuant8OrInt32, {{T::INT32, "axis"}}, kFL3));
  NN_RETURN_IF_ERROR(expectOutputType(operands, 0, T::TENSOR_INT32, "indices"));
  return version;
}

// TOPK_V2: (tensor, INT32 k) -> (values of the tensor's type, TENSOR_INT32 indices). FL3 (quant8
// signed FL4).
Result<Version> validateTopK(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 2));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 2));
  NN_ASSIGN_OR_RETURN(Version version, expectTensorAndParams(operands, kFloatQuant8OrInt32, {{T::INT32, "k"}}, kFL3));
  NN_RETURN_IF_ERROR(expectOutputType(operands, 0, operands.inputType(0), "values"));
  NN_RETURN_IF_ERROR(expectOutputType(operands, 1, T::TENSOR_INT32, "indices"));
  return version;
}

}  // namespace

std::vector<OperationSignature> shapeSignatures() {
  return {
      {OperationType::CONCATENATION, validateConcatenation},
      {OperationType::RESHAPE, validateReshape},
      {OperationType::SQUEEZE, validateSqueezeOrTranspose},
      {OperationType::EXPAND_DIMS, validateExpandDims},
      {OperationType::TRANSPOSE, validateSqueezeOrTranspose},
      {OperationType::SPACE_TO_DEPTH, validateSpaceDepth},
      {OperationType::DEPTH_TO_SPACE, validateSpaceDepth},
      {OperationType::SPACE_TO_BATCH_ND, validateSpaceToBatch},
      {OperationType::BATCH_TO_SPACE_ND, validateBatchToSpace},
      {OperationType::PAD, validatePad},
      {OperationType::PAD_V2, validatePadV2},
      {OperationType::MIRROR_PAD, validateMirrorPad},
      {OperationType::GATHER, validateGather},
      {OperationType::SLICE, validateSlice},
      {OperationType::STRIDED_SLICE, validateStridedSlice},
      {OperationType::SPLIT, validateSplit},
      {OperationType::TILE, validateTile},
      {OperationType::PACK, validatePack},
      {OperationType::REVERSE, validateReverse},
      {OperationType::FILL, validateFill},
      {OperationType::RANK, validateRank},
      {OperationType::MEAN, validateMean},
      {OperationType::REDUCE_ALL, validateReduce},
      {OperationType::REDUCE_ANY, validateReduce},
      {OperationType::REDUCE_MAX, validateReduce},
      {OperationType::REDUCE_MIN, validateReduce},
      {OperationType::REDUCE_PROD, validateReduce},
      {OperationType::REDUCE_SUM, validateReduce},
      {OperationType::ARGMAX, validateArgMinMax},
      {OperationType::ARGMIN, validateArgMinMax},
      {OperationType::TOPK_V2, validateTopK},
  };
}

}  // namespace nnremote::hal::signatures
