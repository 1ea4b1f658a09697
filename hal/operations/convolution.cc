// Signatures of the convolution family: convolutions, pooling, fully connected, batch matmul,
// softmax, the normalizations, resizing and channel shuffle. After AOSP's per-operation validate
// functions (common/types/operations/src); our own code. Where AOSP's CPU implementation refuses a
// form in `prepare` on information the model already fixes (a known rank, a fixed output
// quantization, a bias scale), the rule is checked here too, and only when that information is known.
#include <initializer_list>

#include "hal/operand_types.h"
#include "hal/operations/families.h"
#include "hal/operations/signature_checks.h"

namespace nnremote::hal::signatures {
namespace {

using T = OperandType;

// None of these operations takes an optional input that may be left out (NO_VALUE): the optional
// trailing inputs are optional by being absent from the list, and AOSP refuses an omitted one.
Status expectAllPresent(const OperationOperands& operands) {
  for (size_t i = 0; i < operands.inputCount(); ++i) NN_RETURN_IF_ERROR(expectPresent(operands, i));
  return {};
}

// The geometry inputs every windowed operation starts with: explicit padding (left, right, top,
// bottom) or the implicit padding scheme, then the two strides, then the operation's own `rest`.
std::vector<Slot> windowSlots(bool explicitPadding, std::vector<Slot> rest) {
  std::vector<Slot> slots;
  if (explicitPadding) {
    slots = {{T::INT32, "padding left"},
             {T::INT32, "padding right"},
             {T::INT32, "padding top"},
             {T::INT32, "padding bottom"}};
  } else {
    slots = {{T::INT32, "padding scheme"}};
  }
  slots.insert(slots.end(), {{T::INT32, "stride width"}, {T::INT32, "stride height"}});
  slots.insert(slots.end(), rest.begin(), rest.end());
  return slots;
}

// The trailing optional inputs of the convolutions: none, the NCHW layout flag (FL3), or the
// layout flag followed by the two dilation factors (FL3).
Result<Version> expectLayoutAndDilation(const OperationOperands& operands, size_t first) {
  const size_t extra = operands.inputCount() - first;
  if (extra == 0) return kFL1;
  if (operands.inputType(first) != T::BOOL) {
    return invalidArgument() << "input " << first << " (layout) must be BOOL with " << operands.inputCount()
                             << " inputs, got " << toString(operands.inputType(first));
  }
  if (extra == 1) return kFL3;
  if (extra == 3) {
    NN_RETURN_IF_ERROR(expectInputSlots(operands, first + 1, {{T::INT32, "dilation width"}, {T::INT32, "dilation height"}}));
    return kFL3;
  }
  if (extra == 2) {
    return invalidArgument() << "input " << first + 1
                             << " (dilation width) needs input " << first + 2
                             << " (dilation height) too: takes both dilation factors or neither";
  }
  return invalidArgument() << "with input " << first << " (layout) BOOL, padding is implicit and takes "
                           << first + 1 << " or " << first + 3 << " inputs, got " << operands.inputCount();
}

// Input 0 (input), 1 (filter) and 2 (bias) and output 0 of a convolution. Float: all four of the
// input's type. Quantized: the filter of the input's type, or TENSOR_QUANT8_SYMM_PER_CHANNEL
// quantized along `channelDim` (FL3); a TENSOR_INT32 bias of scale input x filter scale; output
// of the input's type. Returns the feature level the tensor types need.
Result<Version> expectConvTensors(const OperationOperands& operands, uint32_t channelDim) {
  NN_RETURN_IF_ERROR(expectPrimaryType(
      operands, {T::TENSOR_FLOAT32, T::TENSOR_QUANT8_ASYMM, T::TENSOR_FLOAT16, T::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType type = operands.inputType(0);
  Version version = versionOfType(type);
  if (type == T::TENSOR_FLOAT32 || type == T::TENSOR_FLOAT16) {
    NN_RETURN_IF_ERROR(expectInputType(operands, 1, type, "filter"));
    NN_RETURN_IF_ERROR(expectInputType(operands, 2, type, "bias"));
  } else {
    NN_RETURN_IF_ERROR(expectInputTypeIn(operands, 1, {type, T::TENSOR_QUANT8_SYMM_PER_CHANNEL}, "filter"));
    if (operands.inputType(1) == T::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
      NN_RETURN_IF_ERROR(expectChannelDim(operands, 1, channelDim, "filter"));
      version = later(version, kFL3);
    }
    NN_RETURN_IF_ERROR(expectInputType(operands, 2, T::TENSOR_INT32, "bias"));
    NN_RETURN_IF_ERROR(expectBiasScale(operands, 2, 0, 1));
  }
  NN_RETURN_IF_ERROR(expectOutputType(operands, 0, type));
  return version;
}

// Before FL3, a TENSOR_QUANT8_ASYMM convolution or fully connected layer needed
// output scale > input scale x filter scale; a model that breaks that rule is FL3.
Version scaleRuleVersion(const OperationOperands& operands) {
  if (operands.inputType(0) != T::TENSOR_QUANT8_ASYMM || operands.inputType(1) != T::TENSOR_QUANT8_ASYMM) {
    return kFL1;
  }
  const float product = operands.input(0).scale * operands.input(1).scale;
  return operands.output(0).scale > product ? kFL1 : kFL3;
}

// The 4-D input, 4-D filter and 1-D bias of a 2-D convolution (where their ranks are known), and
// one bias entry per output channel, the filter's dimension `outputChannelDim` (where both sizes
// are known; AOSP checks it when it prepares the operation).
Status expectConvShapes(const OperationOperands& operands, uint32_t outputChannelDim) {
  NN_RETURN_IF_ERROR(expectInputRank(operands, 0, 4, "input"));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 1, 4, "filter"));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 2, 1, "bias"));
  const auto& filter = operands.input(1).dimensions;
  const auto& bias = operands.input(2).dimensions;
  if (filter.size() != 4 || bias.size() != 1 || filter[outputChannelDim] == 0 || bias[0] == 0 ||
      filter[outputChannelDim] == bias[0]) {
    return {};
  }
  return invalidArgument() << "input 2 (bias) has " << bias[0] << " entries but input 1 (filter) has "
                           << filter[outputChannelDim] << " output channels (dimension " << outputChannelDim << ")";
}

// CONV_2D: (input, filter, bias) then either implicit padding (padding scheme, stride width,
// stride height, activation: 7 inputs) or explicit padding (left, right, top, bottom, stride
// width, stride height, activation: 10 inputs), each optionally followed by the NCHW layout flag
// and then optionally by the two dilation factors: 7, 8, 10 (implicit with dilation, or explicit),
// 11 or 13 inputs. As in AOSP, 10 or more inputs are explicit padding when input 7 is INT32 (a
// padding or stride value) and implicit padding with layout and dilation when it is BOOL.
// Per-channel filters are quantized along dimension 0. FL1; FL3 for float16, per-channel filters,
// layout, dilation or output scale <= input x filter scale; FL4 for quant8 signed.
Result<Version> validateConvolution(const OperationOperands& operands, bool depthwise) {
  // DEPTHWISE_CONV_2D has one more parameter (the depth multiplier) and quantizes per-channel
  // filters along dimension 3; otherwise the two are the same operation.
  const size_t extra = depthwise ? 1 : 0;
  NN_RETURN_IF_ERROR(depthwise ? expectInputCountIn(operands, {8, 9, 11, 12, 14})
                               : expectInputCountIn(operands, {7, 8, 10, 11, 13}));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  const uint32_t channelDim = depthwise ? 3 : 0;
  NN_ASSIGN_OR_RETURN(Version version, expectConvTensors(operands, channelDim));
  const bool explicitPadding = operands.inputCount() >= 10 + extra && operands.inputType(7 + extra) == T::INT32;
  std::vector<Slot> own;
  if (depthwise) own.push_back({T::INT32, "depth multiplier"});
  own.push_back({T::INT32, "activation"});
  const std::vector<Slot> params = windowSlots(explicitPadding, own);
  NN_RETURN_IF_ERROR(expectInputSlots(operands, 3, params));
  NN_ASSIGN_OR_RETURN(Version options, expectLayoutAndDilation(operands, 3 + params.size()));
  NN_RETURN_IF_ERROR(expectConvShapes(operands, channelDim));
  NN_RETURN_IF_ERROR(expectAllPresent(operands));
  return later(later(version, options), scaleRuleVersion(operands));
}

Result<Version> validateConv2d(const OperationOperands& operands) { return validateConvolution(operands, false); }

// DEPTHWISE_CONV_2D: (input, filter, bias) then implicit padding (padding scheme, stride width,
// stride height, depth multiplier, activation: 8 inputs) or explicit padding (left, right, top,
// bottom, stride width, stride height, depth multiplier, activation: 11 inputs), each optionally
// followed by the layout flag and then the two dilation factors: 8, 9, 11, 12 or 14 inputs. As in
// AOSP, 11 or more inputs are explicit padding when input 8 is INT32 and implicit padding with
// layout and dilation when it is BOOL. Per-channel filters are quantized along dimension 3.
// Feature levels as CONV_2D.
Result<Version> validateDepthwiseConv2d(const OperationOperands& operands) {
  return validateConvolution(operands, true);
}

// GROUPED_CONV_2D: (input, filter, bias) then implicit padding (padding scheme, stride width,
// stride height, group count, activation, layout: 9 inputs) or explicit padding (left, right,
// top, bottom, stride width, stride height, group count, activation, layout: 12 inputs); the
// layout flag is required. Per-channel filters along dimension 0. FL3; FL4 for quant8 signed.
Result<Version> validateGroupedConv2d(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCountIn(operands, {9, 12}));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_ASSIGN_OR_RETURN(Version version, expectConvTensors(operands, 0));
  NN_RETURN_IF_ERROR(
      expectInputSlots(operands, 3,
                       windowSlots(operands.inputCount() == 12,
                                   {{T::INT32, "group count"}, {T::INT32, "activation"}, {T::BOOL, "layout"}})));
  NN_RETURN_IF_ERROR(expectConvShapes(operands, 0));
  NN_RETURN_IF_ERROR(expectAllPresent(operands));
  return later(version, kFL3);
}

// TRANSPOSE_CONV_2D: (input, filter, bias) then explicit padding (left, right, top, bottom, stride
// width, stride height, activation, layout: 11 inputs) or implicit padding (output shape as a 1-D
// TENSOR_INT32, padding scheme, stride width, stride height, activation, layout: 9 inputs).
// Per-channel filters along dimension 0. FL3; FL4 for quant8 signed.
Result<Version> validateTransposeConv2d(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCountIn(operands, {9, 11}));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_ASSIGN_OR_RETURN(Version version, expectConvTensors(operands, 0));
  // Implicit padding puts the output shape before the padding scheme.
  const bool explicitPadding = operands.inputCount() == 11;
  std::vector<Slot> params = windowSlots(explicitPadding, {{T::INT32, "activation"}, {T::BOOL, "layout"}});
  if (!explicitPadding) params.insert(params.begin(), {T::TENSOR_INT32, "output shape"});
  NN_RETURN_IF_ERROR(expectInputSlots(operands, 3, params));
  if (!explicitPadding) NN_RETURN_IF_ERROR(expectInputRank(operands, 3, 1, "output shape"));
  NN_RETURN_IF_ERROR(expectConvShapes(operands, 0));
  NN_RETURN_IF_ERROR(expectAllPresent(operands));
  return later(version, kFL3);
}

// AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D: a 4-D input then implicit padding (padding scheme,
// stride width, stride height, filter width, filter height, activation: 7 inputs) or explicit
// padding (left, right, top, bottom, stride width, stride height, filter width, filter height,
// activation: 10 inputs), each optionally followed by the layout flag (FL3); output of the
// input's type. Float32 (FL1), float16 (FL3), and for AVERAGE and MAX also quant8 (FL1) and
// quant8 signed (FL4).
Result<Version> validatePooling(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCountIn(operands, {7, 8, 10, 11}));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  if (operands.type() == OperationType::L2_POOL_2D) {
    NN_RETURN_IF_ERROR(expectPrimaryType(operands, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16}));
  } else {
    NN_RETURN_IF_ERROR(expectPrimaryType(
        operands, {T::TENSOR_FLOAT32, T::TENSOR_QUANT8_ASYMM, T::TENSOR_FLOAT16, T::TENSOR_QUANT8_ASYMM_SIGNED}));
  }
  const OperandType type = operands.inputType(0);
  Version version = versionOfType(type);
  const bool explicitPadding = operands.inputCount() >= 10;
  NN_RETURN_IF_ERROR(expectInputSlots(
      operands, 1,
      windowSlots(explicitPadding,
                  {{T::INT32, "filter width"}, {T::INT32, "filter height"}, {T::INT32, "activation"}})));
  const size_t layout = explicitPadding ? 10 : 7;
  if (operands.inputCount() > layout) {
    NN_RETURN_IF_ERROR(expectInputType(operands, layout, T::BOOL, "layout"));
    version = later(version, kFL3);
  }
  NN_RETURN_IF_ERROR(expectOutputTypes(operands, {type}));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 0, 4, "input"));
  NN_RETURN_IF_ERROR(expectAllPresent(operands));
  return version;
}

// FULLY_CONNECTED: (input of rank 2 to 4, 2-D weights of the input's type, 1-D bias, activation
// INT32); the bias is of the input's type, or TENSOR_INT32 of scale input x weights scale for
// quantized inputs. When all three ranks are known, the bias length must match the weights'
// unit count and the input's element count must be a multiple of the weights' input size.
// FL1; FL3 for float16 or output scale <= input x weights scale; FL4 for quant8 signed.
Result<Version> validateFullyConnected(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 4));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectPrimaryType(
      operands, {T::TENSOR_FLOAT32, T::TENSOR_QUANT8_ASYMM, T::TENSOR_FLOAT16, T::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType type = operands.inputType(0);
  const bool quantized = isQuantized(type);
  NN_RETURN_IF_ERROR(expectInputSlots(operands, 1,
                                  {{type, "weights"},
                                   {quantized ? T::TENSOR_INT32 : type, "bias"},
                                   {T::INT32, "activation"}}));
  NN_RETURN_IF_ERROR(expectOutputTypes(operands, {type}));
  if (quantized) NN_RETURN_IF_ERROR(expectBiasScale(operands, 2, 0, 1));
  const Operand& input = operands.input(0);
  const Operand& weights = operands.input(1);
  const Operand& bias = operands.input(2);
  if (!input.dimensions.empty() && !weights.dimensions.empty() && !bias.dimensions.empty()) {
    NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 0, 2, 4, "input"));
    NN_RETURN_IF_ERROR(expectInputRank(operands, 1, 2, "weights"));
    NN_RETURN_IF_ERROR(expectInputRank(operands, 2, 1, "bias"));
    const uint32_t units = weights.dimensions[0];
    const uint32_t inputSize = weights.dimensions[1];
    const uint32_t biasLength = bias.dimensions[0];
    if (units != 0 && biasLength != 0 && units != biasLength) {
      return invalidArgument() << "input 2 (bias) has " << biasLength << " elements but input 1 (weights) has "
                               << units << " units";
    }
    uint64_t elements = 1;
    for (uint32_t dimension : input.dimensions) elements *= dimension;
    if (inputSize != 0 && elements % inputSize != 0) {
      return invalidArgument() << "input 0 (input) has " << elements
                               << " elements, not a multiple of input 1 (weights)'s input size " << inputSize;
    }
  }
  NN_RETURN_IF_ERROR(expectAllPresent(operands));
  return later(versionOfType(type), scaleRuleVersion(operands));
}

// BATCH_MATMUL: (lhs, rhs of lhs's type, adjoint lhs BOOL, adjoint rhs BOOL), output of lhs's
// type; float32, float16, int32 or quant8 signed; both inputs of the same rank, 2 to 4. FL6.
Result<Version> validateBatchMatmul(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 4));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectPrimaryType(
      operands, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16, T::TENSOR_INT32, T::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType type = operands.inputType(0);
  NN_RETURN_IF_ERROR(expectInputSlots(operands, 1, {{type, "rhs"}, {T::BOOL, "adjoint lhs"}, {T::BOOL, "adjoint rhs"}}));
  NN_RETURN_IF_ERROR(expectOutputTypes(operands, {type}));
  NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 0, 2, 4, "lhs"));
  NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 1, 2, 4, "rhs"));
  const uint32_t lhsRank = operands.inputRank(0);
  const uint32_t rhsRank = operands.inputRank(1);
  if (lhsRank != 0 && rhsRank != 0 && lhsRank != rhsRank) {
    return invalidArgument() << "input 1 (rhs) must have the rank of input 0 (lhs), " << lhsRank << ", got "
                             << rhsRank;
  }
  NN_RETURN_IF_ERROR(expectAllPresent(operands));
  return kFL6;
}

// SOFTMAX: (input of rank 1 to 4, beta FLOAT32 or FLOAT16 for float16, optional axis INT32),
// output of the input's type; quant8 outputs have scale 1/256 and zero point 0 (signed: -128).
// FL1 for float32 and quant8 of rank 2 or 4; FL3 for float16, the axis, or other ranks; FL4 for
// quant8 signed.
Result<Version> validateSoftmax(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCountIn(operands, {2, 3}));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectPrimaryType(
      operands, {T::TENSOR_FLOAT32, T::TENSOR_QUANT8_ASYMM, T::TENSOR_FLOAT16, T::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType type = operands.inputType(0);
  Version version = versionOfType(type);
  NN_RETURN_IF_ERROR(expectInputType(operands, 1, scalarFor(type), "beta"));
  const uint32_t rank = operands.inputRank(0);
  if (operands.inputCount() == 3) {
    NN_RETURN_IF_ERROR(expectInputType(operands, 2, T::INT32, "axis"));
    version = later(version, kFL3);
  } else if (rank != 0 && rank != 2 && rank != 4) {
    version = later(version, kFL3);
  }
  NN_RETURN_IF_ERROR(expectOutputTypes(operands, {type}));
  NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 0, 1, 4, "input"));
  if (type == T::TENSOR_QUANT8_ASYMM) NN_RETURN_IF_ERROR(expectOutputQuantization(operands, 0, 1.f / 256, 0));
  if (type == T::TENSOR_QUANT8_ASYMM_SIGNED) {
    NN_RETURN_IF_ERROR(expectOutputQuantization(operands, 0, 1.f / 256, -128));
  }
  NN_RETURN_IF_ERROR(expectAllPresent(operands));
  return version;
}

// LOG_SOFTMAX: (input, beta FLOAT32 or FLOAT16 for float16, axis INT32), output of the input's
// type; float32 or float16 only. FL3.
Result<Version> validateLogSoftmax(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 3));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectPrimaryType(operands, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16}));
  const OperandType type = operands.inputType(0);
  NN_RETURN_IF_ERROR(expectInputSlots(
      operands, 1, {{scalarFor(type), "beta"}, {T::INT32, "axis"}}));
  NN_RETURN_IF_ERROR(expectOutputTypes(operands, {type}));
  NN_RETURN_IF_ERROR(expectAllPresent(operands));
  return kFL3;
}

// L2_NORMALIZATION: (input of rank 1 to 4, optional axis INT32), output of the input's type;
// quant8 outputs have scale 1/128 and zero point 128 (signed: 0). FL1 for float32 of rank 4
// without the axis; FL3 for float16, quant8, the axis, or another or unknown rank; FL4 for quant8
// signed.
Result<Version> validateL2Normalization(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCountIn(operands, {1, 2}));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectPrimaryType(
      operands, {T::TENSOR_FLOAT32, T::TENSOR_QUANT8_ASYMM, T::TENSOR_FLOAT16, T::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType type = operands.inputType(0);
  Version version = type == T::TENSOR_QUANT8_ASYMM ? kFL3 : versionOfType(type);
  if (operands.inputCount() == 2) {
    NN_RETURN_IF_ERROR(expectInputType(operands, 1, T::INT32, "axis"));
    version = later(version, kFL3);
  } else if (operands.inputRank(0) != 4) {
    version = later(version, kFL3);
  }
  NN_RETURN_IF_ERROR(expectOutputTypes(operands, {type}));
  NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 0, 1, 4, "input"));
  if (type == T::TENSOR_QUANT8_ASYMM) NN_RETURN_IF_ERROR(expectOutputQuantization(operands, 0, 1.f / 128, 128));
  if (type == T::TENSOR_QUANT8_ASYMM_SIGNED) {
    NN_RETURN_IF_ERROR(expectOutputQuantization(operands, 0, 1.f / 128, 0));
  }
  NN_RETURN_IF_ERROR(expectAllPresent(operands));
  return version;
}

// LOCAL_RESPONSE_NORMALIZATION: (input of rank 1 to 4, radius INT32, bias, alpha, beta as FLOAT32
// or FLOAT16 for float16, optional axis INT32), output of the input's type; float32 or float16.
// FL1 for float32 of rank 4 without the axis; FL3 for float16, the axis, or another or unknown
// rank.
Result<Version> validateLocalResponseNormalization(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCountIn(operands, {5, 6}));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectPrimaryType(operands, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16}));
  const OperandType type = operands.inputType(0);
  const OperandType scalar = scalarFor(type);
  NN_RETURN_IF_ERROR(
      expectInputSlots(operands, 1, {{T::INT32, "radius"}, {scalar, "bias"}, {scalar, "alpha"}, {scalar, "beta"}}));
  Version version = versionOfType(type);
  if (operands.inputCount() == 6) {
    NN_RETURN_IF_ERROR(expectInputType(operands, 5, T::INT32, "axis"));
    version = later(version, kFL3);
  } else if (operands.inputRank(0) != 4) {
    version = later(version, kFL3);
  }
  NN_RETURN_IF_ERROR(expectOutputTypes(operands, {type}));
  NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 0, 1, 4, "input"));
  NN_RETURN_IF_ERROR(expectAllPresent(operands));
  return version;
}

// INSTANCE_NORMALIZATION: (4-D input, gamma, beta, epsilon as FLOAT32 or FLOAT16 for float16,
// layout BOOL), output of the input's type; float32 or float16. FL3.
Result<Version> validateInstanceNormalization(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 5));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectPrimaryType(operands, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16}));
  const OperandType type = operands.inputType(0);
  const OperandType scalar = scalarFor(type);
  NN_RETURN_IF_ERROR(
      expectInputSlots(operands, 1, {{scalar, "gamma"}, {scalar, "beta"}, {scalar, "epsilon"}, {T::BOOL, "layout"}}));
  NN_RETURN_IF_ERROR(expectOutputTypes(operands, {type}));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 0, 4, "input"));
  NN_RETURN_IF_ERROR(expectAllPresent(operands));
  return kFL3;
}

// RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR: (4-D input, output width, output height) given both as
// INT32 sizes or both as scales (FLOAT16 for float16 inputs, else FLOAT32; FL3), then the layout
// flag (FL3; required for NEAREST_NEIGHBOR) and up to two more BOOLs, align corners and half
// pixel centers (FL4); output of the input's type. BILINEAR float32 is FL1, quant8 and float16
// FL3, quant8 signed FL4; NEAREST_NEIGHBOR is FL3 at least.
Result<Version> validateResize(const OperationOperands& operands) {
  const bool bilinear = operands.type() == OperationType::RESIZE_BILINEAR;
  NN_RETURN_IF_ERROR(expectInputCountBetween(operands, bilinear ? 3 : 4, 6));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectPrimaryType(
      operands, {T::TENSOR_FLOAT32, T::TENSOR_QUANT8_ASYMM, T::TENSOR_FLOAT16, T::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType type = operands.inputType(0);
  Version version = type == T::TENSOR_QUANT8_ASYMM ? kFL3 : versionOfType(type);
  const OperandType scale = scalarFor(type);
  NN_RETURN_IF_ERROR(expectInputTypeIn(operands, 2, {T::INT32, scale}, "output height"));
  const OperandType size = operands.inputType(2);
  NN_RETURN_IF_ERROR(expectInputType(operands, 1, size, "output width"));
  if (size != T::INT32) version = later(version, kFL3);
  static constexpr const char* kFlags[] = {"layout", "align corners", "half pixel centers"};
  for (size_t i = 3; i < operands.inputCount(); ++i) {
    NN_RETURN_IF_ERROR(expectInputType(operands, i, T::BOOL, kFlags[i - 3]));
  }
  if (operands.inputCount() == 4) version = later(version, kFL3);
  if (operands.inputCount() > 4) version = later(version, kFL4);
  NN_RETURN_IF_ERROR(expectOutputTypes(operands, {type}));
  NN_RETURN_IF_ERROR(expectInputRank(operands, 0, 4, "input"));
  NN_RETURN_IF_ERROR(expectAllPresent(operands));
  return version;
}

// CHANNEL_SHUFFLE: (input of rank 1 to 4, group count INT32, axis INT32), output of the input's
// type. FL3; FL4 for quant8 signed.
Result<Version> validateChannelShuffle(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 3));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 1));
  NN_RETURN_IF_ERROR(expectPrimaryType(
      operands, {T::TENSOR_FLOAT32, T::TENSOR_QUANT8_ASYMM, T::TENSOR_FLOAT16, T::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType type = operands.inputType(0);
  NN_RETURN_IF_ERROR(expectInputSlots(operands, 1, {{T::INT32, "group count"}, {T::INT32, "axis"}}));
  NN_RETURN_IF_ERROR(expectOutputTypes(operands, {type}));
  NN_RETURN_IF_ERROR(expectInputRankBetween(operands, 0, 1, 4, "input"));
  NN_RETURN_IF_ERROR(expectAllPresent(operands));
  return later(versionOfType(type), kFL3);
}

}  // namespace

std::vector<OperationSignature> convolutionSignatures() {
  return {
      {OperationType::CONV_2D, validateConv2d},
      {OperationType::DEPTHWISE_CONV_2D, validateDepthwiseConv2d},
      {OperationType::GROUPED_CONV_2D, validateGroupedConv2d},
      {OperationType::TRANSPOSE_CONV_2D, validateTransposeConv2d},
      {OperationType::AVERAGE_POOL_2D, validatePooling},
      {OperationType::MAX_POOL_2D, validatePooling},
      {OperationType::L2_POOL_2D, validatePooling},
      {OperationType::FULLY_CONNECTED, validateFullyConnected},
      {OperationType::BATCH_MATMUL, validateBatchMatmul},
      {OperationType::SOFTMAX, validateSoftmax},
      {OperationType::LOG_SOFTMAX, validateLogSoftmax},
      {OperationType::L2_NORMALIZATION, validateL2Normalization},
      {OperationType::LOCAL_RESPONSE_NORMALIZATION, validateLocalResponseNormalization},
      {OperationType::INSTANCE_NORMALIZATION, validateInstanceNormalization},
      {OperationType::RESIZE_BILINEAR, validateResize},
      {OperationType::RESIZE_NEAREST_NEIGHBOR, validateResize},
      {OperationType::CHANNEL_SHUFFLE, validateChannelShuffle},
  };
}

}  // namespace nnremote::hal::signatures
