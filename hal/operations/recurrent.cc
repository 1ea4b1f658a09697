// Signatures of the recurrent operations: the LSTM cell and its sequence, bidirectional and
// quantized forms, the RNN cell and its sequence forms, and SVDF.
//
// Besides the operand types, these operations have inputs that may be left out (lifetime NO_VALUE):
// the CIFG, peephole, projection, layer-normalization and auxiliary-input tensors. Every other
// input is required, as AOSP's implementations require it. Whether the omitted inputs form a
// consistent group (e.g. all CIFG tensors or none) and the tensor shapes are checked by AOSP only
// when the operation is prepared, not here.
#include <string>

#include "hal/operations/families.h"
#include "hal/operations/signature_checks.h"

namespace nnremote::hal::signatures {
namespace {

using T = OperandType;

// ---- One input slot of a recurrent operation --------------------------------------------------

// What type an input must have: the operation's float tensor type, the float scalar matching it
// (FLOAT32 for TENSOR_FLOAT32, FLOAT16 for TENSOR_FLOAT16), or one fixed type.
enum class Kind { kTensor, kScalar, kFixed };

struct Slot {
  Kind kind;
  OperandType fixed;  // for Kind::kFixed
  std::string role;
  bool optional;  // may be omitted (NO_VALUE)
};

Slot tensor(std::string role) { return {Kind::kTensor, T::TENSOR_FLOAT32, std::move(role), false}; }
Slot optionalTensor(std::string role) { return {Kind::kTensor, T::TENSOR_FLOAT32, std::move(role), true}; }
Slot floatScalar(std::string role) { return {Kind::kScalar, T::FLOAT32, std::move(role), false}; }
Slot fixed(OperandType type, std::string role, bool optional = false) {
  return {Kind::kFixed, type, std::move(role), optional};
}


// The first `count` inputs have the types of `slots` (tensor slots take `tensorType`), and the
// required ones have a value. The input count has been checked: count <= slots.size().
Status expectSlots(const OperationOperands& operands, const std::vector<Slot>& slots, size_t count,
                   OperandType tensorType) {
  if (count > slots.size()) return invalidArgument() << "takes at most " << slots.size() << " inputs, got " << count;
  for (size_t i = 0; i < count; ++i) {
    const Slot& slot = slots[i];
    const OperandType type = slot.kind == Kind::kTensor   ? tensorType
                             : slot.kind == Kind::kScalar ? scalarFor(tensorType)
                                                          : slot.fixed;
    NN_RETURN_IF_ERROR(expectInputType(operands, i, type, slot.role.c_str()));
    if (!slot.optional) NN_RETURN_IF_ERROR(expectPresent(operands, i, slot.role.c_str()));
  }
  return {};
}

// Every output has `type`.
Status expectAllOutputs(const OperationOperands& operands, OperandType type) {
  return expectOutputTypes(operands, std::vector<OperandType>(operands.outputCount(), type));
}

// The float recurrent operations take TENSOR_FLOAT32 (FL1 for the cells, FL3 for the sequence
// forms) or TENSOR_FLOAT16 (FL3), decided by input 0; every tensor has that one type.
Status expectFloatPrimary(const OperationOperands& operands) {
  return expectPrimaryType(operands, {T::TENSOR_FLOAT32, T::TENSOR_FLOAT16});
}

// ---- Slot lists ---------------------------------------------------------------------------------

// The 17 weight and bias tensors of one LSTM cell, after its input. CIFG leaves out the input
// gate's tensors, a cell without peephole the cell-to-* weights, one without projection the
// projection tensors.
void appendLstmWeights(std::vector<Slot>& slots, const std::string& prefix) {
  for (const char* gate : {"input", "forget", "cell", "output"}) {
    const std::string role = prefix + "input_to_" + gate + "_weights";
    slots.push_back(std::string(gate) == "input" ? optionalTensor(role) : tensor(role));
  }
  for (const char* gate : {"input", "forget", "cell", "output"}) {
    const std::string role = prefix + "recurrent_to_" + gate + "_weights";
    slots.push_back(std::string(gate) == "input" ? optionalTensor(role) : tensor(role));
  }
  for (const char* gate : {"input", "forget", "output"}) {
    slots.push_back(optionalTensor(prefix + "cell_to_" + gate + "_weights"));
  }
  for (const char* gate : {"input", "forget", "cell", "output"}) {
    const std::string role = prefix + gate + "_gate_bias";
    slots.push_back(std::string(gate) == "input" ? optionalTensor(role) : tensor(role));
  }
  slots.push_back(optionalTensor(prefix + "projection_weights"));
  slots.push_back(optionalTensor(prefix + "projection_bias"));
}

// The 4 layer-normalization weights, all optional.
void appendLayerNormWeights(std::vector<Slot>& slots, const std::string& prefix) {
  for (const char* gate : {"input", "forget", "cell", "output"}) {
    slots.push_back(optionalTensor(prefix + gate + "_layer_norm_weights"));
  }
}

// LSTM: input, the cell's 17 weights and biases, output state, cell state, activation, cell clip,
// projection clip (23), then the 4 layer-normalization weights (27).
const std::vector<Slot>& lstmSlots() {
  static const std::vector<Slot> slots = [] {
    std::vector<Slot> s = {tensor("input")};
    appendLstmWeights(s, "");
    s.push_back(tensor("output_state_in"));
    s.push_back(tensor("cell_state_in"));
    s.push_back(fixed(T::INT32, "activation"));
    s.push_back(floatScalar("cell_clip"));
    s.push_back(floatScalar("proj_clip"));
    appendLayerNormWeights(s, "");
    return s;
  }();
  return slots;
}

// UNIDIRECTIONAL_SEQUENCE_LSTM: LSTM's first 23 inputs, time_major BOOL, layer-norm weights (28).
const std::vector<Slot>& unidirectionalLstmSlots() {
  static const std::vector<Slot> slots = [] {
    std::vector<Slot> s(lstmSlots().begin(), lstmSlots().begin() + 23);
    s.push_back(fixed(T::BOOL, "time_major"));
    appendLayerNormWeights(s, "");
    return s;
  }();
  return slots;
}

// BIDIRECTIONAL_SEQUENCE_LSTM: input, forward and backward weights (1-34), the 4 states (35-38),
// the optional auxiliary input and its 8 weights (39-47), activation, cell clip, projection clip,
// merge_outputs, time_major (48-52), forward and backward layer-norm weights (53-60).
const std::vector<Slot>& bidirectionalLstmSlots() {
  static const std::vector<Slot> slots = [] {
    std::vector<Slot> s = {tensor("input")};
    appendLstmWeights(s, "fw_");
    appendLstmWeights(s, "bw_");
    for (const char* state : {"fw_activation_state", "fw_cell_state", "bw_activation_state", "bw_cell_state"}) {
      s.push_back(tensor(state));
    }
    s.push_back(optionalTensor("aux_input"));
    for (const char* direction : {"fw_", "bw_"}) {
      for (const char* gate : {"input", "forget", "cell", "output"}) {
        s.push_back(optionalTensor(std::string(direction) + "aux_input_to_" + gate + "_weights"));
      }
    }
    s.push_back(fixed(T::INT32, "activation"));
    s.push_back(floatScalar("cell_clip"));
    s.push_back(floatScalar("proj_clip"));
    s.push_back(fixed(T::BOOL, "merge_outputs"));
    s.push_back(fixed(T::BOOL, "time_major"));
    appendLayerNormWeights(s, "fw_");
    appendLayerNormWeights(s, "bw_");
    return s;
  }();
  return slots;
}

// QUANTIZED_LSTM: signed quant8 input, symmetric quant8 weights, quant16 peephole weights, int32
// biases, projection, signed quant8 output state, quant16 cell state, quant16 layer-norm weights,
// then the clips (optional), the intermediate scales, and the hidden state's zero point and scale.
const std::vector<Slot>& quantizedLstmSlots() {
  static const std::vector<Slot> slots = [] {
    std::vector<Slot> s = {fixed(T::TENSOR_QUANT8_ASYMM_SIGNED, "input")};
    for (const char* source : {"input", "recurrent"}) {
      for (const char* gate : {"input", "forget", "cell", "output"}) {
        s.push_back(fixed(T::TENSOR_QUANT8_SYMM, std::string(source) + "_to_" + gate + "_weights",
                          std::string(gate) == "input"));
      }
    }
    for (const char* gate : {"input", "forget", "output"}) {
      s.push_back(fixed(T::TENSOR_QUANT16_SYMM, std::string("cell_to_") + gate + "_weights", true));
    }
    for (const char* gate : {"input", "forget", "cell", "output"}) {
      s.push_back(fixed(T::TENSOR_INT32, std::string(gate) + "_gate_bias", std::string(gate) == "input"));
    }
    s.push_back(fixed(T::TENSOR_QUANT8_SYMM, "projection_weights", true));
    s.push_back(fixed(T::TENSOR_INT32, "projection_bias", true));
    s.push_back(fixed(T::TENSOR_QUANT8_ASYMM_SIGNED, "output_state_in"));
    s.push_back(fixed(T::TENSOR_QUANT16_SYMM, "cell_state_in"));
    for (const char* gate : {"input", "forget", "cell", "output"}) {
      s.push_back(fixed(T::TENSOR_QUANT16_SYMM, std::string(gate) + "_layer_norm_weights", true));
    }
    s.push_back(fixed(T::FLOAT32, "cell_clip", true));
    s.push_back(fixed(T::FLOAT32, "proj_clip", true));
    for (const char* gate : {"input", "forget", "cell", "output"}) {
      s.push_back(fixed(T::FLOAT32, std::string(gate) + "_intermediate_scale"));
    }
    s.push_back(fixed(T::INT32, "hidden_state_zero_point"));
    s.push_back(fixed(T::FLOAT32, "hidden_state_scale"));
    return s;
  }();
  return slots;
}

// QUANTIZED_16BIT_LSTM: quant8 input, 8 quant8 weights, 4 int32 biases, quant16 cell state,
// quant8 output state; all required.
const std::vector<Slot>& quantized16BitLstmSlots() {
  static const std::vector<Slot> slots = [] {
    std::vector<Slot> s = {fixed(T::TENSOR_QUANT8_ASYMM, "input")};
    for (const char* source : {"input", "recurrent"}) {
      for (const char* gate : {"input", "forget", "cell", "output"}) {
        s.push_back(fixed(T::TENSOR_QUANT8_ASYMM, std::string(source) + "_to_" + gate + "_weights"));
      }
    }
    for (const char* gate : {"input", "forget", "cell", "output"}) {
      s.push_back(fixed(T::TENSOR_INT32, std::string(gate) + "_gate_bias"));
    }
    s.push_back(fixed(T::TENSOR_QUANT16_SYMM, "prev_cell_state"));
    s.push_back(fixed(T::TENSOR_QUANT8_ASYMM, "prev_output"));
    return s;
  }();
  return slots;
}

// ---- Validators -----------------------------------------------------------------------------

// LSTM: one time step. 23 inputs (input, 17 weights and biases of which the CIFG, peephole and
// projection ones are optional, output and cell states, activation INT32, cell and projection
// clips of the matching float scalar type), or 27 with the 4 optional layer-normalization weights
// (FL3). 4 outputs (scratch buffer, output state, cell state, output). All tensors one float type:
// float32 is FL1, float16 FL3.
Result<Version> validateLstm(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCountIn(operands, {23, 27}));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 4));
  NN_RETURN_IF_ERROR(expectFloatPrimary(operands));
  const OperandType type = operands.inputType(0);
  NN_RETURN_IF_ERROR(expectSlots(operands, lstmSlots(), operands.inputCount(), type));
  NN_RETURN_IF_ERROR(expectAllOutputs(operands, type));
  Version version = versionOfType(type);
  if (operands.inputCount() == 27) version = later(version, kFL3);
  return version;
}

// UNIDIRECTIONAL_SEQUENCE_LSTM: 28 inputs (LSTM's 23, time_major BOOL, 4 optional layer-norm
// weights), one float type. 1 output (FL3), or 3 with the output and cell states (FL4).
Result<Version> validateUnidirectionalSequenceLstm(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 28));
  NN_RETURN_IF_ERROR(expectOutputCountIn(operands, {1, 3}));
  NN_RETURN_IF_ERROR(expectFloatPrimary(operands));
  const OperandType type = operands.inputType(0);
  NN_RETURN_IF_ERROR(expectSlots(operands, unidirectionalLstmSlots(), 28, type));
  NN_RETURN_IF_ERROR(expectAllOutputs(operands, type));
  return operands.outputCount() == 3 ? kFL4 : kFL3;
}

// BIDIRECTIONAL_SEQUENCE_LSTM: 61 inputs (see bidirectionalLstmSlots), one float type. Outputs:
// forward and backward outputs (2), or one merged output (1); FL4 adds the 4 final states (6, or
// 5 merged). Whether the count matches merge_outputs is checked at preparation.
Result<Version> validateBidirectionalSequenceLstm(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 61));
  NN_RETURN_IF_ERROR(expectOutputCountIn(operands, {1, 2, 5, 6}));
  NN_RETURN_IF_ERROR(expectFloatPrimary(operands));
  const OperandType type = operands.inputType(0);
  NN_RETURN_IF_ERROR(expectSlots(operands, bidirectionalLstmSlots(), 61, type));
  NN_RETURN_IF_ERROR(expectAllOutputs(operands, type));
  return operands.outputCount() >= 5 ? kFL4 : kFL3;
}

// QUANTIZED_LSTM: 32 inputs (see quantizedLstmSlots); 3 outputs: output state (quant8 signed),
// cell state (quant16 symm), output (quant8 signed). FL4.
Result<Version> validateQuantizedLstm(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 32));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 3));
  NN_RETURN_IF_ERROR(expectSlots(operands, quantizedLstmSlots(), 32, T::TENSOR_QUANT8_ASYMM_SIGNED));
  NN_RETURN_IF_ERROR(expectOutputType(operands, 0, T::TENSOR_QUANT8_ASYMM_SIGNED, "output_state_out"));
  NN_RETURN_IF_ERROR(expectOutputType(operands, 1, T::TENSOR_QUANT16_SYMM, "cell_state_out"));
  NN_RETURN_IF_ERROR(expectOutputType(operands, 2, T::TENSOR_QUANT8_ASYMM_SIGNED, "output"));
  return kFL4;
}

// QUANTIZED_16BIT_LSTM: 15 inputs (see quantized16BitLstmSlots); 2 outputs: cell state
// (quant16 symm) and output (quant8). FL3.
Result<Version> validateQuantized16BitLstm(const OperationOperands& operands) {
  NN_RETURN_IF_ERROR(expectInputCount(operands, 15));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 2));
  NN_RETURN_IF_ERROR(expectSlots(operands, quantized16BitLstmSlots(), 15, T::TENSOR_QUANT8_ASYMM));
  NN_RETURN_IF_ERROR(expectOutputType(operands, 0, T::TENSOR_QUANT16_SYMM, "cell_state_out"));
  NN_RETURN_IF_ERROR(expectOutputType(operands, 1, T::TENSOR_QUANT8_ASYMM, "output"));
  return kFL3;
}

// RNN: input, weights, recurrent weights, bias, hidden state, activation INT32, all required;
// 2 outputs (hidden state, output). One float type: float32 FL1, float16 FL3.
Result<Version> validateRnn(const OperationOperands& operands) {
  static const std::vector<Slot> slots = {tensor("input"), tensor("weights"),         tensor("recurrent_weights"),
                                          tensor("bias"),  tensor("hidden_state_in"), fixed(T::INT32, "activation")};
  NN_RETURN_IF_ERROR(expectInputCount(operands, 6));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 2));
  NN_RETURN_IF_ERROR(expectFloatPrimary(operands));
  const OperandType type = operands.inputType(0);
  NN_RETURN_IF_ERROR(expectSlots(operands, slots, 6, type));
  NN_RETURN_IF_ERROR(expectAllOutputs(operands, type));
  return versionOfType(type);
}

// UNIDIRECTIONAL_SEQUENCE_RNN: RNN's 6 inputs plus time_major INT32, all required; 1 output
// (FL3), or 2 with the final hidden state (FL4). One float type.
Result<Version> validateUnidirectionalSequenceRnn(const OperationOperands& operands) {
  static const std::vector<Slot> slots = {tensor("input"),
                                          tensor("weights"),
                                          tensor("recurrent_weights"),
                                          tensor("bias"),
                                          tensor("hidden_state"),
                                          fixed(T::INT32, "activation"),
                                          fixed(T::INT32, "time_major")};
  NN_RETURN_IF_ERROR(expectInputCount(operands, 7));
  NN_RETURN_IF_ERROR(expectOutputCountIn(operands, {1, 2}));
  NN_RETURN_IF_ERROR(expectFloatPrimary(operands));
  const OperandType type = operands.inputType(0);
  NN_RETURN_IF_ERROR(expectSlots(operands, slots, 7, type));
  NN_RETURN_IF_ERROR(expectAllOutputs(operands, type));
  return operands.outputCount() == 2 ? kFL4 : kFL3;
}

// BIDIRECTIONAL_SEQUENCE_RNN: input, forward weights, recurrent weights, bias, hidden state,
// the same backward, optional auxiliary input and its forward and backward weights, activation
// INT32, time_major BOOL, merge_outputs BOOL (15). Outputs: forward and backward outputs (2) or one
// merged output (1); FL4 adds the 2 final hidden states (4, or 3 merged). One float type.
Result<Version> validateBidirectionalSequenceRnn(const OperationOperands& operands) {
  static const std::vector<Slot> slots = {tensor("input"),
                                          tensor("fw_weights"),
                                          tensor("fw_recurrent_weights"),
                                          tensor("fw_bias"),
                                          tensor("fw_hidden_state"),
                                          tensor("bw_weights"),
                                          tensor("bw_recurrent_weights"),
                                          tensor("bw_bias"),
                                          tensor("bw_hidden_state"),
                                          optionalTensor("aux_input"),
                                          optionalTensor("fw_aux_weights"),
                                          optionalTensor("bw_aux_weights"),
                                          fixed(T::INT32, "activation"),
                                          fixed(T::BOOL, "time_major"),
                                          fixed(T::BOOL, "merge_outputs")};
  NN_RETURN_IF_ERROR(expectInputCount(operands, 15));
  NN_RETURN_IF_ERROR(expectOutputCountIn(operands, {1, 2, 3, 4}));
  NN_RETURN_IF_ERROR(expectFloatPrimary(operands));
  const OperandType type = operands.inputType(0);
  NN_RETURN_IF_ERROR(expectSlots(operands, slots, 15, type));
  NN_RETURN_IF_ERROR(expectAllOutputs(operands, type));
  return operands.outputCount() >= 3 ? kFL4 : kFL3;
}

// SVDF: input, feature weights, time weights, optional bias, state, rank INT32, activation INT32;
// 2 outputs (state, output). One float type: float32 FL1, float16 FL3.
Result<Version> validateSvdf(const OperationOperands& operands) {
  static const std::vector<Slot> slots = {
      tensor("input"),    tensor("weights_feature"), tensor("weights_time"),       optionalTensor("bias"),
      tensor("state_in"), fixed(T::INT32, "rank"),   fixed(T::INT32, "activation")};
  NN_RETURN_IF_ERROR(expectInputCount(operands, 7));
  NN_RETURN_IF_ERROR(expectOutputCount(operands, 2));
  NN_RETURN_IF_ERROR(expectFloatPrimary(operands));
  const OperandType type = operands.inputType(0);
  NN_RETURN_IF_ERROR(expectSlots(operands, slots, 7, type));
  NN_RETURN_IF_ERROR(expectAllOutputs(operands, type));
  return versionOfType(type);
}

}  // namespace

std::vector<OperationSignature> recurrentSignatures() {
  return {
      {OperationType::LSTM, validateLstm},
      {OperationType::QUANTIZED_16BIT_LSTM, validateQuantized16BitLstm},
      {OperationType::QUANTIZED_LSTM, validateQuantizedLstm},
      {OperationType::UNIDIRECTIONAL_SEQUENCE_LSTM, validateUnidirectionalSequenceLstm},
      {OperationType::BIDIRECTIONAL_SEQUENCE_LSTM, validateBidirectionalSequenceLstm},
      {OperationType::RNN, validateRnn},
      {OperationType::UNIDIRECTIONAL_SEQUENCE_RNN, validateUnidirectionalSequenceRnn},
      {OperationType::BIDIRECTIONAL_SEQUENCE_RNN, validateBidirectionalSequenceRnn},
      {OperationType::SVDF, validateSvdf},
  };
}

}  // namespace nnremote::hal::signatures
