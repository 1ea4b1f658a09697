// Long short-term memory cells: LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM and
// BIDIRECTIONAL_SEQUENCE_LSTM (float; float16 through lowering), with every NNAPI variant:
// CIFG (no input gate: i = 1 - f), peephole connections, projection (with optional bias and
// clipping), cell clipping, layer normalization and, for the bidirectional one, auxiliary
// inputs.
//
// One step, per batch, for gates g in {input, forget, cell, output}:
//   pre_g = W_g x + R_g h + A_g aux [+ P_g * c for the peepholes] (+ bias_g, or layer norm:
//           normalize(pre_g) * L_g + bias_g)
//   c' = sigmoid(pre_f) * c + sigmoid(pre_i) * act(pre_c), clipped;  o = sigmoid(pre_o(c'))
//   h' = project(o * act(c')), clipped.
#include <cmath>
#include <cstring>
#include <vector>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"
#include "drivers/sim/kernels/recurrent_utils.h"

namespace nnremote::sim {
namespace {

enum Gate { kInputGate = 0, kForgetGate = 1, kCellGate = 2, kOutputGate = 3 };
constexpr int kAbsent = -1;

// Where one direction's tensors sit among the operation's inputs (kAbsent where the operation
// has no such input). Peepholes are ordered input, forget, output.
struct LstmOperands {
  int inputWeights[4], recurrentWeights[4], peepholes[3], biases[4];
  int projectionWeights, projectionBias, outputStateIn, cellStateIn;
  int layerNormWeights[4] = {kAbsent, kAbsent, kAbsent, kAbsent};
  int auxWeights[4] = {kAbsent, kAbsent, kAbsent, kAbsent};
};

// LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM share inputs 0-22; layer norm weights follow at
// `layerNormAt` when the operation has them.
LstmOperands singleCellOperands(const OperationContext& context, size_t layerNormCount, int layerNormAt) {
  LstmOperands operands{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11}, {12, 13, 14, 15}, 16, 17, 18, 19};
  if (context.inputCount() == layerNormCount) {
    for (int g = 0; g < 4; ++g) operands.layerNormWeights[g] = layerNormAt + g;
  }
  return operands;
}

// BIDIRECTIONAL_SEQUENCE_LSTM: forward tensors 1-17, backward 18-34, states 35-38, auxiliary
// input 39 and its weights 40-47, layer norm weights 53-60.
LstmOperands bidirectionalOperands(bool backward) {
  const int base = backward ? 17 : 0;
  LstmOperands operands{{base + 1, base + 2, base + 3, base + 4},
                        {base + 5, base + 6, base + 7, base + 8},
                        {base + 9, base + 10, base + 11},
                        {base + 12, base + 13, base + 14, base + 15},
                        base + 16,
                        base + 17,
                        backward ? 37 : 35,
                        backward ? 38 : 36};
  for (int g = 0; g < 4; ++g) {
    operands.auxWeights[g] = (backward ? 44 : 40) + g;
    operands.layerNormWeights[g] = (backward ? 57 : 53) + g;
  }
  return operands;
}

struct LstmParams {
  int32_t activation = 0;
  float cellClip = 0, projectionClip = 0;
};

// The tensors of one direction, resolved: nullptr where absent.
struct LstmCell {
  const float *inputWeights[4], *recurrentWeights[4], *auxWeights[4], *peepholes[3], *biases[4],
      *layerNormWeights[4];
  const float *projectionWeights, *projectionBias;
  uint32_t inputSize, auxSize, cells, outputs;
  bool cifg;
};

const float* optionalData(const OperationContext& context, int index) {
  return index != kAbsent && present(context.input(index)) ? context.input(index).as<float>() : nullptr;
}

hal::Result<LstmCell> resolveCell(const OperationContext& context, const LstmOperands& operands, uint32_t inputSize,
                                  uint32_t auxSize) {
  LstmCell cell{};
  for (int g = 0; g < 4; ++g) {
    cell.inputWeights[g] = optionalData(context, operands.inputWeights[g]);
    cell.recurrentWeights[g] = optionalData(context, operands.recurrentWeights[g]);
    cell.auxWeights[g] = optionalData(context, operands.auxWeights[g]);
    cell.biases[g] = optionalData(context, operands.biases[g]);
    cell.layerNormWeights[g] = optionalData(context, operands.layerNormWeights[g]);
  }
  for (int p = 0; p < 3; ++p) cell.peepholes[p] = optionalData(context, operands.peepholes[p]);
  cell.projectionWeights = optionalData(context, operands.projectionWeights);
  cell.projectionBias = optionalData(context, operands.projectionBias);
  cell.cifg = cell.inputWeights[kInputGate] == nullptr;

  const Tensor& outputGateWeights = context.input(operands.inputWeights[kOutputGate]);
  const Tensor& outputGateRecurrent = context.input(operands.recurrentWeights[kOutputGate]);
  if (outputGateWeights.rank() != 2 || outputGateRecurrent.rank() != 2) {
    return unsupported(context) << "input and recurrent weights must have rank 2";
  }
  cell.cells = outputGateWeights.dim(0);
  cell.outputs = outputGateRecurrent.dim(1);
  cell.inputSize = inputSize;
  cell.auxSize = auxSize;
  // Every present tensor must have the shape its role implies.
  auto check = [&](int index, std::vector<uint32_t> expected, const char* role) -> Status {
    if (index == kAbsent || !present(context.input(index))) return {};
    if (context.input(index).dimensions != expected) {
      return unsupported(context) << role << " (input " << index << ") has dimensions "
                                  << hal::toString(context.input(index).dimensions) << ", expected "
                                  << hal::toString(expected);
    }
    return {};
  };
  const uint32_t n = cell.cells;
  for (int g = 0; g < 4; ++g) {
    const bool optional = g == kInputGate;
    if (!optional && (cell.inputWeights[g] == nullptr || cell.recurrentWeights[g] == nullptr || cell.biases[g] == nullptr)) {
      return unsupported(context) << "the forget, cell and output gates need input and recurrent weights and a bias";
    }
    NN_RETURN_IF_ERROR(check(operands.inputWeights[g], {n, inputSize}, "an input weight"));
    NN_RETURN_IF_ERROR(check(operands.recurrentWeights[g], {n, cell.outputs}, "a recurrent weight"));
    NN_RETURN_IF_ERROR(check(operands.biases[g], {n}, "a gate bias"));
    NN_RETURN_IF_ERROR(check(operands.layerNormWeights[g], {n}, "a layer norm weight"));
    if (cell.auxWeights[g] != nullptr) NN_RETURN_IF_ERROR(check(operands.auxWeights[g], {n, auxSize}, "an aux weight"));
  }
  for (int p = 0; p < 3; ++p) NN_RETURN_IF_ERROR(check(operands.peepholes[p], {n}, "a peephole weight"));
  NN_RETURN_IF_ERROR(check(operands.projectionWeights, {cell.outputs, n}, "the projection weights"));
  NN_RETURN_IF_ERROR(check(operands.projectionBias, {cell.outputs}, "the projection bias"));
  if (cell.cifg != (cell.recurrentWeights[kInputGate] == nullptr)) {
    return unsupported(context) << "input-gate weights must be all present or all omitted (CIFG)";
  }
  if (cell.cifg && cell.biases[kInputGate] != nullptr) return unsupported(context) << "CIFG takes no input gate bias";
  if (!cell.cifg && cell.biases[kInputGate] == nullptr) return unsupported(context) << "the input gate needs a bias";
  if (cell.projectionWeights == nullptr && cell.projectionBias != nullptr) {
    return unsupported(context) << "a projection bias needs projection weights";
  }
  if (cell.projectionWeights == nullptr && cell.outputs != n) {
    return unsupported(context) << "without projection the output size " << cell.outputs
                                << " must equal the number of cells " << n;
  }
  return cell;
}

hal::Result<LstmParams> readParams(const OperationContext& context, size_t activationAt) {
  LstmParams params{context.scalar<int32_t>(activationAt), context.scalar<float>(activationAt + 1),
                    context.scalar<float>(activationAt + 2)};
  if (!isRecurrentActivation(params.activation)) {
    return unsupported(context) << "activation " << params.activation << " is not 0, 1, 2, 3, 4 or 6";
  }
  if (params.cellClip < 0 || params.projectionClip < 0) return unsupported(context) << "clips must not be negative";
  return params;
}

// Normalizes to zero mean and unit variance (epsilon 1e-8, as TFLite), then scales and shifts.
void layerNormalize(float* values, uint32_t n, const float* weights, const float* bias) {
  float sum = 0;
  for (uint32_t i = 0; i < n; ++i) sum += values[i];
  const float mean = sum / float(n);
  float squares = 0;
  for (uint32_t i = 0; i < n; ++i) squares += (values[i] - mean) * (values[i] - mean);
  const float inverseStddev = 1.0f / std::sqrt(squares / float(n) + 1e-8f);
  for (uint32_t i = 0; i < n; ++i) values[i] = (values[i] - mean) * inverseStddev * weights[i] + bias[i];
}

// acc[u] += sum_i matrix[u][i] * vector[i] for a [rows, columns] matrix.
void multiplyAccumulate(const float* matrix, uint32_t rows, uint32_t columns, const float* vector, float* acc) {
  for (uint32_t u = 0; u < rows; ++u) {
    const float* row = matrix + size_t(u) * columns;
    float sum = 0;
    for (uint32_t i = 0; i < columns; ++i) sum += row[i] * vector[i];
    acc[u] += sum;
  }
}

// One step for one batch entry: updates `h` [outputs] and `c` [cells] in place.
void lstmStep(const LstmCell& cell, const LstmParams& params, const float* x, const float* aux, float* h, float* c,
              std::vector<float> (&gates)[4], std::vector<float>& hidden) {
  const uint32_t n = cell.cells;
  const bool layerNorm = cell.layerNormWeights[kForgetGate] != nullptr;
  for (int g = 0; g < 4; ++g) {
    if (g == kInputGate && cell.cifg) continue;
    std::vector<float>& pre = gates[g];
    if (layerNorm) {
      std::fill(pre.begin(), pre.end(), 0.0f);
    } else {
      std::copy(cell.biases[g], cell.biases[g] + n, pre.begin());
    }
    multiplyAccumulate(cell.inputWeights[g], n, cell.inputSize, x, pre.data());
    if (aux != nullptr && cell.auxWeights[g] != nullptr) {
      multiplyAccumulate(cell.auxWeights[g], n, cell.auxSize, aux, pre.data());
    }
    multiplyAccumulate(cell.recurrentWeights[g], n, cell.outputs, h, pre.data());
  }
  // Peepholes into the input and forget gates see the previous cell state.
  auto finishGate = [&](int g, const float* peephole, const float* state) {
    std::vector<float>& pre = gates[g];
    if (peephole != nullptr)
      for (uint32_t u = 0; u < n; ++u) pre[u] += peephole[u] * state[u];
    if (layerNorm) layerNormalize(pre.data(), n, cell.layerNormWeights[g], cell.biases[g]);
  };
  if (!cell.cifg) finishGate(kInputGate, cell.peepholes[0], c);
  finishGate(kForgetGate, cell.peepholes[1], c);
  finishGate(kCellGate, nullptr, c);
  for (uint32_t u = 0; u < n; ++u) {
    const float forget = activate(6, gates[kForgetGate][u]);
    const float input = cell.cifg ? 1.0f - forget : activate(6, gates[kInputGate][u]);
    float next = forget * c[u] + input * activate(params.activation, gates[kCellGate][u]);
    if (params.cellClip > 0) next = std::clamp(next, -params.cellClip, params.cellClip);
    c[u] = next;
  }
  // The output gate's peephole sees the new cell state.
  finishGate(kOutputGate, cell.peepholes[2], c);
  for (uint32_t u = 0; u < n; ++u) hidden[u] = activate(6, gates[kOutputGate][u]) * activate(params.activation, c[u]);
  if (cell.projectionWeights == nullptr) {
    std::copy(hidden.begin(), hidden.end(), h);
    return;
  }
  for (uint32_t k = 0; k < cell.outputs; ++k) h[k] = cell.projectionBias ? cell.projectionBias[k] : 0.0f;
  multiplyAccumulate(cell.projectionWeights, cell.outputs, n, hidden.data(), h);
  if (params.projectionClip > 0) {
    for (uint32_t k = 0; k < cell.outputs; ++k) h[k] = std::clamp(h[k], -params.projectionClip, params.projectionClip);
  }
}

// A sequence [time, batch, features] (time-major) or [batch, time, features].
struct SequenceLayout {
  uint32_t steps, batches;
  bool timeMajor;
  size_t at(uint32_t t, uint32_t b, uint32_t features) const {
    return (timeMajor ? size_t(t) * batches + b : size_t(b) * steps + t) * features;
  }
};

// Runs one direction over the sequence. Outputs go to `out` (with `outFeatures` per step, from
// `outOffset`); `h` [batches, outputs] and `c` [batches, cells] start as the initial state and
// end as the final one.
void runLstmSequence(const LstmCell& cell, const LstmParams& params, const SequenceLayout& layout, const float* in,
                     const float* aux, bool reverse, float* h, float* c, float* out, uint32_t outFeatures,
                     uint32_t outOffset) {
  std::vector<float> gates[4];
  for (auto& gate : gates) gate.resize(cell.cells);
  std::vector<float> hidden(cell.cells);
  for (uint32_t s = 0; s < layout.steps; ++s) {
    const uint32_t t = reverse ? layout.steps - 1 - s : s;
    for (uint32_t b = 0; b < layout.batches; ++b) {
      float* hb = h + size_t(b) * cell.outputs;
      lstmStep(cell, params, in + layout.at(t, b, cell.inputSize), aux ? aux + layout.at(t, b, cell.auxSize) : nullptr,
               hb, c + size_t(b) * cell.cells, gates, hidden);
      std::memcpy(out + layout.at(t, b, outFeatures) + outOffset, hb, cell.outputs * sizeof(float));
    }
  }
}

Status checkState(const OperationContext& context, int index, uint32_t batches, uint32_t size, const char* role) {
  if (context.input(index).dimensions != std::vector<uint32_t>{batches, size}) {
    return unsupported(context) << role << " (input " << index << ") must have shape [" << batches << ", " << size
                                << "]";
  }
  return {};
}

// Resolves a direction and checks its initial state; `h` and `c` receive copies of it.
hal::Result<LstmCell> prepareDirection(const OperationContext& context, const LstmOperands& operands,
                                       uint32_t inputSize, uint32_t auxSize, uint32_t batches,
                                       std::vector<float>* h, std::vector<float>* c) {
  NN_ASSIGN_OR_RETURN(LstmCell cell, resolveCell(context, operands, inputSize, auxSize));
  NN_RETURN_IF_ERROR(checkState(context, operands.outputStateIn, batches, cell.outputs, "the output state"));
  NN_RETURN_IF_ERROR(checkState(context, operands.cellStateIn, batches, cell.cells, "the cell state"));
  if (h != nullptr) {
    const float* hIn = context.input(operands.outputStateIn).as<float>();
    const float* cIn = context.input(operands.cellStateIn).as<float>();
    h->assign(hIn, hIn + size_t(batches) * cell.outputs);
    c->assign(cIn, cIn + size_t(batches) * cell.cells);
  }
  return cell;
}

OperationWork lstmWork(const OperationContext& context) {
  // Four gate GEMMs over the input and recurrent weights, for every step and batch entry.
  OperationWork work;
  const Tensor& in = context.input(0);
  const Tensor& weights = context.input(4);
  const Tensor& recurrent = context.input(8);
  GemmWork gemm;
  gemm.m = in.elementCount() / std::max<uint32_t>(1, in.dimensions.back());
  gemm.n = 4 * weights.dim(0);
  gemm.k = weights.dim(1) + recurrent.dim(1);
  work.gemms.push_back(gemm);
  work.vectorElements = 10 * uint64_t(gemm.m) * weights.dim(0);
  return work;
}

// ---- LSTM: 23 inputs (27 with layer norm) -> scratch, output state, cell state, output ------

constexpr size_t kLstmActivation = 20;

Status validateLstm(const OperationContext& context) {
  return expectFloatOperands(context, {});
}

Status prepareLstm(OperationContext& context) {
  const Tensor& in = context.input(0);
  if (in.rank() != 2) return unsupported(context) << "input must have shape [batches, inputSize]";
  NN_ASSIGN_OR_RETURN(const LstmCell cell, prepareDirection(context, singleCellOperands(context, 27, 23), in.dim(1), 0,
                                                            in.dim(0), nullptr, nullptr));
  NN_RETURN_IF_ERROR(readParams(context, kLstmActivation).status());
  const uint32_t batches = in.dim(0);
  context.output(0).dimensions = {batches, cell.cells * (cell.cifg ? 3 : 4)};
  context.output(1).dimensions = {batches, cell.outputs};
  context.output(2).dimensions = {batches, cell.cells};
  context.output(3).dimensions = {batches, cell.outputs};
  return {};
}

Status executeLstm(OperationContext& context) {
  const Tensor& in = context.input(0);
  std::vector<float> h, c;
  NN_ASSIGN_OR_RETURN(const LstmCell cell, prepareDirection(context, singleCellOperands(context, 27, 23), in.dim(1), 0,
                                                            in.dim(0), &h, &c));
  NN_ASSIGN_OR_RETURN(const LstmParams params, readParams(context, kLstmActivation));
  runLstmSequence(cell, params, {1, in.dim(0), true}, in.as<float>(), nullptr, false, h.data(), c.data(),
                  context.output(3).asMutable<float>(), cell.outputs, 0);
  // NNAPI leaves the scratch buffer's contents unspecified.
  std::memset(context.output(0).data, 0, context.output(0).elementCount() * sizeof(float));
  std::memcpy(context.output(1).data, h.data(), h.size() * sizeof(float));
  std::memcpy(context.output(2).data, c.data(), c.size() * sizeof(float));
  return {};
}

// ---- UNIDIRECTIONAL_SEQUENCE_LSTM: LSTM's 23 inputs, time_major, [4 layer norm weights] ->
// output [, output state, cell state] ---------------------------------------------------------

constexpr size_t kTimeMajor = 23;

Status validateUnidirectionalLstm(const OperationContext& context) {
  if ((context.inputCount() != 24 && context.inputCount() != 28) ||
      (context.outputCount() != 1 && context.outputCount() != 3)) {
    return unsupported(context) << "takes 24 or 28 inputs and 1 or 3 outputs";
  }
  return expectFloatOperands(context, {});
}

SequenceLayout sequenceLayout(const Tensor& in, bool timeMajor) {
  return {timeMajor ? in.dim(0) : in.dim(1), timeMajor ? in.dim(1) : in.dim(0), timeMajor};
}

Status prepareUnidirectionalLstm(OperationContext& context) {
  const Tensor& in = context.input(0);
  if (in.rank() != 3) return unsupported(context) << "input must have rank 3";
  const SequenceLayout layout = sequenceLayout(in, context.scalar<uint8_t>(kTimeMajor) != 0);
  NN_ASSIGN_OR_RETURN(const LstmCell cell, prepareDirection(context, singleCellOperands(context, 28, 24), in.dim(2), 0,
                                                            layout.batches, nullptr, nullptr));
  NN_RETURN_IF_ERROR(readParams(context, kLstmActivation).status());
  context.output(0).dimensions = {in.dim(0), in.dim(1), cell.outputs};
  if (context.outputCount() == 3) {
    context.output(1).dimensions = {layout.batches, cell.outputs};
    context.output(2).dimensions = {layout.batches, cell.cells};
  }
  return {};
}

Status executeUnidirectionalLstm(OperationContext& context) {
  const Tensor& in = context.input(0);
  const SequenceLayout layout = sequenceLayout(in, context.scalar<uint8_t>(kTimeMajor) != 0);
  std::vector<float> h, c;
  NN_ASSIGN_OR_RETURN(const LstmCell cell, prepareDirection(context, singleCellOperands(context, 28, 24), in.dim(2), 0,
                                                            layout.batches, &h, &c));
  NN_ASSIGN_OR_RETURN(const LstmParams params, readParams(context, kLstmActivation));
  runLstmSequence(cell, params, layout, in.as<float>(), nullptr, false, h.data(), c.data(),
                  context.output(0).asMutable<float>(), cell.outputs, 0);
  if (context.outputCount() == 3) {
    std::memcpy(context.output(1).data, h.data(), h.size() * sizeof(float));
    std::memcpy(context.output(2).data, c.data(), c.size() * sizeof(float));
  }
  return {};
}

// ---- BIDIRECTIONAL_SEQUENCE_LSTM: 61 inputs -> fw output [, bw output] [, fw output state,
// fw cell state, bw output state, bw cell state] ----------------------------------------------

constexpr size_t kBiActivation = 48, kBiMergeOutputs = 51, kBiTimeMajor = 52, kAuxInput = 39;

Status validateBidirectionalLstm(const OperationContext& context) {
  if (context.inputCount() != 61 || context.outputCount() < 1 || context.outputCount() > 6) {
    return unsupported(context) << "takes 61 inputs and 1 to 6 outputs";
  }
  return expectFloatOperands(context, {});
}

// How the auxiliary input is used (NNAPI's linking modes): not at all; as the backward cell's
// input instead of the main one (parallel, no aux weights); or through the aux weights of both
// cells (cross).
struct BidirectionalInputs {
  const float* bwInput;
  uint32_t bwInputSize;
  const float* aux;  // for the aux weights, or nullptr
  uint32_t auxSize;
};

BidirectionalInputs bidirectionalInputs(const OperationContext& context) {
  const Tensor& in = context.input(0);
  const Tensor& aux = context.input(kAuxInput);
  const bool hasAux = present(aux), hasAuxWeights = present(context.input(41));
  if (hasAux && !hasAuxWeights) return {aux.as<float>(), aux.dim(2), nullptr, 0};
  return {in.as<float>(), in.dim(2), hasAux ? aux.as<float>() : nullptr, hasAux ? aux.dim(2) : 0};
}

bool mergeLstmOutputs(const OperationContext& context) { return context.scalar<uint8_t>(kBiMergeOutputs) != 0; }

Status prepareBidirectionalLstm(OperationContext& context) {
  const Tensor& in = context.input(0);
  if (in.rank() != 3) return unsupported(context) << "input must have rank 3";
  // The auxiliary input is a sequence like the input: the same steps and batches, its own size.
  const Tensor& aux = context.input(kAuxInput);
  if (present(aux) && (aux.rank() != 3 || aux.dim(0) != in.dim(0) || aux.dim(1) != in.dim(1))) {
    return unsupported(context) << "the auxiliary input (input " << kAuxInput
                                << ") must have rank 3 and the input's first two dimensions";
  }
  const SequenceLayout layout = sequenceLayout(in, context.scalar<uint8_t>(kBiTimeMajor) != 0);
  const BidirectionalInputs inputs = bidirectionalInputs(context);
  NN_ASSIGN_OR_RETURN(const LstmCell fw, prepareDirection(context, bidirectionalOperands(false), in.dim(2),
                                                          inputs.auxSize, layout.batches, nullptr, nullptr));
  NN_ASSIGN_OR_RETURN(const LstmCell bw, prepareDirection(context, bidirectionalOperands(true), inputs.bwInputSize,
                                                          inputs.auxSize, layout.batches, nullptr, nullptr));
  NN_RETURN_IF_ERROR(readParams(context, kBiActivation).status());
  const bool merge = mergeLstmOutputs(context);
  size_t next = 0;
  context.output(next++).dimensions = {in.dim(0), in.dim(1), merge ? fw.outputs + bw.outputs : fw.outputs};
  if (!merge && context.outputCount() > next) context.output(next++).dimensions = {in.dim(0), in.dim(1), bw.outputs};
  if (context.outputCount() >= next + 4) {
    context.output(next++).dimensions = {layout.batches, fw.outputs};
    context.output(next++).dimensions = {layout.batches, fw.cells};
    context.output(next++).dimensions = {layout.batches, bw.outputs};
    context.output(next++).dimensions = {layout.batches, bw.cells};
  }
  if (next != context.outputCount()) {
    return unsupported(context) << "has " << context.outputCount() << " outputs; merge_outputs = " << merge
                                << " calls for " << (merge ? 1 : 2) << ", plus 4 optional state outputs";
  }
  return {};
}

Status executeBidirectionalLstm(OperationContext& context) {
  const Tensor& in = context.input(0);
  const SequenceLayout layout = sequenceLayout(in, context.scalar<uint8_t>(kBiTimeMajor) != 0);
  const BidirectionalInputs inputs = bidirectionalInputs(context);
  std::vector<float> fwH, fwC, bwH, bwC;
  NN_ASSIGN_OR_RETURN(const LstmCell fw, prepareDirection(context, bidirectionalOperands(false), in.dim(2),
                                                          inputs.auxSize, layout.batches, &fwH, &fwC));
  NN_ASSIGN_OR_RETURN(const LstmCell bw, prepareDirection(context, bidirectionalOperands(true), inputs.bwInputSize,
                                                          inputs.auxSize, layout.batches, &bwH, &bwC));
  NN_ASSIGN_OR_RETURN(const LstmParams params, readParams(context, kBiActivation));
  const bool merge = mergeLstmOutputs(context);
  float* fwOut = context.output(0).asMutable<float>();
  float* bwOut = merge ? fwOut : context.output(1).asMutable<float>();
  const uint32_t fwFeatures = merge ? fw.outputs + bw.outputs : fw.outputs;
  runLstmSequence(fw, params, layout, in.as<float>(), inputs.aux, false, fwH.data(), fwC.data(), fwOut, fwFeatures, 0);
  runLstmSequence(bw, params, layout, inputs.bwInput, inputs.aux, true, bwH.data(), bwC.data(), bwOut,
                  merge ? fwFeatures : bw.outputs, merge ? fw.outputs : 0);
  const size_t states = merge ? 1 : 2;
  if (context.outputCount() == states + 4) {
    const std::vector<float>* finals[] = {&fwH, &fwC, &bwH, &bwC};
    for (size_t i = 0; i < 4; ++i) {
      std::memcpy(context.output(states + i).data, finals[i]->data(), finals[i]->size() * sizeof(float));
    }
  }
  return {};
}

}  // namespace

const OperationKernel kLstmKernel = {&validateLstm, &prepareLstm, &executeLstm, &lstmWork,
    /*layoutOperand=*/nullptr, /*layoutShapeOperand=*/nullptr, /*takesOmittedTensors=*/true};
NNREMOTE_REGISTER_KERNEL(OperationType::LSTM, kLstmKernel);
const OperationKernel kUnidirectionalSequenceLstmKernel = {&validateUnidirectionalLstm, &prepareUnidirectionalLstm,
                                                           &executeUnidirectionalLstm, &lstmWork,
    /*layoutOperand=*/nullptr, /*layoutShapeOperand=*/nullptr, /*takesOmittedTensors=*/true};
NNREMOTE_REGISTER_KERNEL(OperationType::UNIDIRECTIONAL_SEQUENCE_LSTM, kUnidirectionalSequenceLstmKernel);
const OperationKernel kBidirectionalSequenceLstmKernel = {&validateBidirectionalLstm, &prepareBidirectionalLstm,
                                                          &executeBidirectionalLstm, &lstmWork,
    /*layoutOperand=*/nullptr, /*layoutShapeOperand=*/nullptr, /*takesOmittedTensors=*/true};
NNREMOTE_REGISTER_KERNEL(OperationType::BIDIRECTIONAL_SEQUENCE_LSTM, kBidirectionalSequenceLstmKernel);

}  // namespace nnremote::sim
