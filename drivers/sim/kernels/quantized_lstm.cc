// QUANTIZED_LSTM (NN HAL 1.3): one LSTM step on signed 8-bit activations and weights with 16-bit
// gates and cell state: TF Lite's integer "8x8_16" LSTM, which AOSP's CPU reference follows.
// Variants: CIFG (no input gate: i = 1 - f), peepholes, layer normalization, projection, cell
// and projection clipping.
//
// Inputs: 0 input [batches, inputSize]; 1-4 input-to-{input, forget, cell, output} weights;
// 5-8 recurrent-to-{...} weights; 9-11 cell-to-{input, forget, output} peepholes; 12-15 gate
// biases; 16 projection weights; 17 projection bias; 18 previous output; 19 previous cell state;
// 20-23 layer norm weights; 24 cell clip; 25 projection clip; 26-29 the scales of the gates'
// matrix products; 30, 31 the hidden state's zero point and scale.
// Outputs: 0 output state, 1 cell state, 2 output.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "drivers/sim/kernels/fixed_point16.h"
#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"
#include "drivers/sim/kernels/recurrent_utils.h"

namespace nnremote::sim {
namespace {

constexpr size_t kInput = 0, kProjectionWeights = 16, kProjectionBias = 17, kPrevOutput = 18, kPrevCellState = 19,
                 kCellClip = 24, kProjectionClip = 25, kHiddenZeroPoint = 30, kHiddenScale = 31;
constexpr size_t kOutputStateOut = 0, kCellStateOut = 1, kOutput = 2;
constexpr int kNone = -1;

// Where each gate's tensors are; the cell gate has no peephole.
struct GateOperands {
  int inputWeights, recurrentWeights, peephole, bias, layerNorm, intermediateScale;
};
enum Gate { kInputGate = 0, kForgetGate = 1, kCellGate = 2, kOutputGate = 3 };
constexpr GateOperands kGates[4] = {
    {1, 5, 9, 12, 20, 26},       // input
    {2, 6, 10, 13, 21, 27},      // forget
    {3, 7, kNone, 14, 22, 28},   // cell
    {4, 8, 11, 15, 23, 29},      // output
};

bool given(const OperationContext& context, int index) { return index != kNone && present(context.input(index)); }

Status validateQuantizedLstm(const OperationContext& context) {
  auto expectTensor = [&](size_t i, OperandType type) -> Status {
    return {};
  };
  for (const GateOperands& gate : kGates) {
    NN_RETURN_IF_ERROR(expectTensor(gate.inputWeights, OperandType::TENSOR_QUANT8_SYMM));
    NN_RETURN_IF_ERROR(expectTensor(gate.recurrentWeights, OperandType::TENSOR_QUANT8_SYMM));
    if (gate.peephole != kNone) NN_RETURN_IF_ERROR(expectTensor(gate.peephole, OperandType::TENSOR_QUANT16_SYMM));
    NN_RETURN_IF_ERROR(expectTensor(gate.bias, OperandType::TENSOR_INT32));
    NN_RETURN_IF_ERROR(expectTensor(gate.layerNorm, OperandType::TENSOR_QUANT16_SYMM));
  }
  NN_RETURN_IF_ERROR(expectTensor(kProjectionWeights, OperandType::TENSOR_QUANT8_SYMM));
  NN_RETURN_IF_ERROR(expectTensor(kProjectionBias, OperandType::TENSOR_INT32));
  if (context.output(kOutputStateOut).type != OperandType::TENSOR_QUANT8_ASYMM_SIGNED ||
      context.output(kCellStateOut).type != OperandType::TENSOR_QUANT16_SYMM ||
      context.output(kOutput).type != OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    return unsupported(context) << "outputs must be TENSOR_QUANT8_ASYMM_SIGNED, TENSOR_QUANT16_SYMM and "
                                   "TENSOR_QUANT8_ASYMM_SIGNED";
  }
  return {};
}

Status prepareQuantizedLstm(OperationContext& context) {
  for (int required : {0, 2, 3, 4, 6, 7, 8, 13, 14, 15, 18, 19}) {
    if (!given(context, required)) return unsupported(context) << "required input " << required << " is omitted";
  }
  const Tensor& input = context.input(kInput);
  if (input.rank() != 2) return unsupported(context) << "input 0 must have rank 2";
  const Tensor& outputWeights = context.input(kGates[kOutputGate].inputWeights);
  const Tensor& outputRecurrent = context.input(kGates[kOutputGate].recurrentWeights);
  if (outputWeights.rank() != 2 || outputRecurrent.rank() != 2) {
    return unsupported(context) << "input and recurrent weights must have rank 2";
  }
  const uint32_t batches = input.dim(0), inputSize = input.dim(1);
  const uint32_t units = outputWeights.dim(0), outputSize = outputRecurrent.dim(1);
  auto check = [&](int index, std::vector<uint32_t> expected) -> Status {
    if (!given(context, index) || context.input(index).dimensions == expected) return {};
    return unsupported(context) << "input " << index << " has dimensions "
                                << hal::toString(context.input(index).dimensions) << ", expected "
                                << hal::toString(expected);
  };
  const bool cifg = !given(context, kGates[kInputGate].inputWeights);
  for (int g = 0; g < 4; ++g) {
    const GateOperands& gate = kGates[g];
    NN_RETURN_IF_ERROR(check(gate.inputWeights, {units, inputSize}));
    NN_RETURN_IF_ERROR(check(gate.recurrentWeights, {units, outputSize}));
    NN_RETURN_IF_ERROR(check(gate.peephole, {units}));
    NN_RETURN_IF_ERROR(check(gate.bias, {units}));
    NN_RETURN_IF_ERROR(check(gate.layerNorm, {units}));
  }
  if (cifg != !given(context, kGates[kInputGate].recurrentWeights) || cifg == given(context, kGates[kInputGate].bias)) {
    return unsupported(context) << "the input gate's weights and bias must be all present or, for CIFG, all omitted";
  }
  const bool anyPeephole = given(context, 9) || given(context, 10) || given(context, 11);
  const bool allPeepholes = (cifg || given(context, 9)) && given(context, 10) && given(context, 11);
  if (anyPeephole && !allPeepholes) return unsupported(context) << "peephole weights must be all present or all omitted";
  if (cifg && given(context, 9)) return unsupported(context) << "CIFG takes no cell-to-input peephole";
  const int layerNorms = given(context, 20) + given(context, 21) + given(context, 22) + given(context, 23);
  if (cifg && given(context, 20)) return unsupported(context) << "CIFG takes no input layer norm weights";
  if (layerNorms != 0 && layerNorms != (cifg ? 3 : 4)) {
    return unsupported(context) << "layer norm weights must be all present or all omitted";
  }
  NN_RETURN_IF_ERROR(check(kProjectionWeights, {outputSize, units}));
  NN_RETURN_IF_ERROR(check(kProjectionBias, {outputSize}));
  if (!given(context, kProjectionWeights) && outputSize != units) {
    return unsupported(context) << "without projection the output size " << outputSize
                                << " must equal the number of units " << units;
  }
  NN_RETURN_IF_ERROR(check(kPrevOutput, {batches, outputSize}));
  NN_RETURN_IF_ERROR(check(kPrevCellState, {batches, units}));
  // The cell state's fixed point: its tanh takes 15 + shift integer bits (0 to 6), so a shift
  // below -15 has no tanh, and would shift by a negative amount (found by
  // model_validation_fuzzer: UBSan).
  const double cellScaleLog2 = std::log2(context.input(kPrevCellState).scale);
  if (std::abs(cellScaleLog2 - std::round(cellScaleLog2)) > 1e-3 || std::round(cellScaleLog2) > -9 ||
      std::round(cellScaleLog2) < -15) {
    return unsupported(context) << "the cell state scale must be a power of two from 2^-15 to 2^-9";
  }
  context.output(kOutputStateOut).dimensions = {batches, outputSize};
  context.output(kCellStateOut).dimensions = {batches, units};
  context.output(kOutput).dimensions = {batches, outputSize};
  return {};
}

// ---- Integer building blocks (TF Lite's reference tensor utilities) --------------------------

// out[b, r] = saturate(out[b, r] + requantize(bias[r] + sum_c in[b, c] * w[r, c]) + zeroPoint).
template <typename T>
void multiplyAccumulate(const int8_t* in, const std::vector<int32_t>& bias, const int8_t* weights,
                        QuantizedMultiplier multiplier, uint32_t batches, uint32_t inputs, uint32_t outputs,
                        int32_t zeroPoint, T* out) {
  for (uint32_t b = 0; b < batches; ++b) {
    for (uint32_t r = 0; r < outputs; ++r) {
      // In 64 bits, saturated before rescaling: a bias near int32's limits would overflow.
      int64_t accumulator = bias[r];
      const int8_t* row = weights + size_t(r) * inputs;
      for (uint32_t c = 0; c < inputs; ++c) accumulator += int32_t(in[size_t(b) * inputs + c]) * row[c];
      const int64_t sum =
          int64_t{requantizeSaturating(accumulator, multiplier, zeroPoint)} + out[size_t(b) * outputs + r];
      out[size_t(b) * outputs + r] = static_cast<T>(
          std::min<int64_t>(std::numeric_limits<T>::max(), std::max<int64_t>(std::numeric_limits<T>::min(), sum)));
    }
  }
}

// bias[r] + zeroPoint * sum_c w[r, c]: folds an input zero point (and a bias) into the product.
std::vector<int32_t> zeroPointTimesRowSums(int32_t zeroPoint, const int8_t* weights, uint32_t rows, uint32_t columns,
                                           const int32_t* bias) {
  std::vector<int32_t> result(rows);
  for (uint32_t r = 0; r < rows; ++r) {
    int64_t sum = 0;
    for (uint32_t c = 0; c < columns; ++c) sum += weights[size_t(r) * columns + c];
    // Saturated, not wrapped, where a bias near int32's limits would overflow.
    result[r] = saturateToInt32((bias != nullptr ? bias[r] : 0) + sum * zeroPoint);
  }
  return result;
}

// gemmlowp's saturating x * 2^exponent for int32 raw values.
int32_t saturatingShiftLeft(int32_t x, int exponent) {
  const int32_t threshold = (exponent >= 31) ? 0 : int32_t((int64_t{1} << (31 - exponent)) - 1);
  if (x > threshold) return std::numeric_limits<int32_t>::max();
  if (x < -threshold) return std::numeric_limits<int32_t>::min();
  return int32_t(uint32_t(x) << exponent);
}

// 1 / sqrt(input) as a multiplier, by five Newton-Raphson steps in 32-bit fixed point with
// 3 integer bits (TF Lite's GetInvSqrtQuantizedMultiplierExp with a right-to-left shift flip).
QuantizedMultiplier inverseSqrtMultiplier(int32_t input) {
  if (input <= 1) return {std::numeric_limits<int32_t>::max(), 0};
  int shift = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++shift;
  }
  const int leadingZeros = __builtin_clz(uint32_t(input));
  const int leftShiftBitPairs = (leadingZeros - 1) / 2 - 1;
  shift -= leftShiftBitPairs;
  input <<= 2 * leftShiftBitPairs;
  const int32_t halfInput = roundingDivideByPowerOfTwo(input >> 1, 1);
  const int32_t halfThree = (1 << 28) + (1 << 27);
  int32_t x = 1 << 28;  // 1.0 with 3 integer bits
  for (int i = 0; i < 5; ++i) {
    const int32_t x3 =
        saturatingShiftLeft(saturatingRoundingDoublingHighMul(saturatingRoundingDoublingHighMul(x, x), x), 6);
    const int32_t difference = int32_t(uint32_t(saturatingRoundingDoublingHighMul(halfThree, x)) -
                                       uint32_t(saturatingRoundingDoublingHighMul(halfInput, x3)));
    x = saturatingShiftLeft(difference, 3);
  }
  int32_t inverse = saturatingRoundingDoublingHighMul(x, 1518500250);  // * sqrt(2) / 2
  if (shift < 0) {
    inverse = int32_t(uint32_t(inverse) << -shift);
    shift = 0;
  }
  return {inverse, -shift};
}

// Integer layer normalization of each batch row, then * weights + bias, rescaled to the gate's
// 2^-12 scale.
void layerNormalize(int16_t* gate, const int16_t* weights, const int32_t* bias, QuantizedMultiplier scale,
                    int32_t varianceLimit, uint32_t batches, uint32_t units) {
  constexpr int64_t kTwoToThe20 = 1 << 20;
  const QuantizedMultiplier toGateScale{scale.multiplier, scale.shift + 12};
  for (uint32_t b = 0; b < batches; ++b) {
    int16_t* row = gate + size_t(b) * units;
    int64_t sum = 0, sumOfSquares = 0;
    for (uint32_t j = 0; j < units; ++j) {
      sum += row[j];
      sumOfSquares += int32_t(row[j]) * row[j];
    }
    const int32_t mean = int32_t(sum * 1024 / units);
    const int64_t variance = sumOfSquares * int32_t(kTwoToThe20 / units) - int64_t(mean) * mean;
    int32_t scaledVariance = int32_t(variance / kTwoToThe20);
    if (scaledVariance < 1) scaledVariance = varianceLimit;
    const QuantizedMultiplier inverseStddev = inverseSqrtMultiplier(scaledVariance);
    for (uint32_t j = 0; j < units; ++j) {
      const int32_t normalized = multiplyByQuantizedMultiplier(1024 * row[j] - mean, inverseStddev);
      const int64_t weighted = int64_t(normalized) * weights[j] + bias[j];
      const int32_t rounded = int32_t((weighted > 0 ? weighted + 512 : weighted - 512) / 1024);
      row[j] = fixed16::saturate(multiplyByQuantizedMultiplier(rounded, toGateScale));
    }
  }
}

template <int IntegerBits>
void applyTanh(const int16_t* in, size_t count, int16_t* out) {
  for (size_t i = 0; i < count; ++i) out[i] = fixed16::tanh(fixed16::Fixed<IntegerBits>{in[i]}).raw;
}

void applyTanh(int integerBits, const int16_t* in, size_t count, int16_t* out) {
  switch (integerBits) {
    case 0: return applyTanh<0>(in, count, out);
    case 1: return applyTanh<1>(in, count, out);
    case 2: return applyTanh<2>(in, count, out);
    case 3: return applyTanh<3>(in, count, out);
    case 4: return applyTanh<4>(in, count, out);
    case 5: return applyTanh<5>(in, count, out);
    default: return applyTanh<6>(in, count, out);
  }
}

// ---- One step ------------------------------------------------------------------------------

struct Shapes {
  uint32_t batches, inputSize, units, outputSize;
};

// The pre-activation of one gate at the 2^-12 scale (Q3.12) the activations expect.
std::vector<int16_t> gatePreActivation(const OperationContext& context, const GateOperands& gate, const Shapes& s,
                                       const int16_t* peepholeState, int cellShift) {
  const Tensor& input = context.input(kInput);
  const Tensor& previousOutput = context.input(kPrevOutput);
  const Tensor& inputWeights = context.input(gate.inputWeights);
  const Tensor& recurrentWeights = context.input(gate.recurrentWeights);
  const float intermediateScale = context.scalar<float>(gate.intermediateScale);
  const bool layerNorm = given(context, gate.layerNorm);
  // Without layer normalization the bias joins the matrix product (with it, the normalization
  // adds it).
  const int32_t* bias = layerNorm ? nullptr : context.input(gate.bias).as<int32_t>();

  std::vector<int16_t> result(size_t(s.batches) * s.units, 0);
  // Effective scales are computed in float, as the reference does, so multipliers match bit for bit.
  const float inputScale = inputWeights.scale * input.scale / intermediateScale;
  const float recurrentScale = recurrentWeights.scale * previousOutput.scale / intermediateScale;
  multiplyAccumulate(input.as<int8_t>(),
                     zeroPointTimesRowSums(-input.zeroPoint, inputWeights.as<int8_t>(), s.units, s.inputSize, bias),
                     inputWeights.as<int8_t>(), quantizeMultiplier(inputScale), s.batches, s.inputSize, s.units, 0,
                     result.data());
  multiplyAccumulate(previousOutput.as<int8_t>(),
                     zeroPointTimesRowSums(-previousOutput.zeroPoint, recurrentWeights.as<int8_t>(), s.units,
                                           s.outputSize, nullptr),
                     recurrentWeights.as<int8_t>(), quantizeMultiplier(recurrentScale), s.batches, s.outputSize,
                     s.units, 0, result.data());
  if (given(context, gate.peephole)) {
    const Tensor& peephole = context.input(gate.peephole);
    const float peepholeScale = float(std::ldexp(1.0, cellShift)) * peephole.scale / intermediateScale;
    const QuantizedMultiplier multiplier = quantizeMultiplier(peepholeScale);
    const int16_t* weights = peephole.as<int16_t>();
    for (uint32_t b = 0; b < s.batches; ++b) {
      for (uint32_t u = 0; u < s.units; ++u) {
        const size_t i = size_t(b) * s.units + u;
        const int32_t product = multiplyByQuantizedMultiplier(int32_t(weights[u]) * peepholeState[i], multiplier);
        result[i] = fixed16::saturate(product + result[i]);
      }
    }
  }
  if (layerNorm) {
    const Tensor& weights = context.input(gate.layerNorm);
    // The reference guards a zero variance with this value. Taken in float first: converted to
    // int straight away, 10000 x a legal scale past 2^31 / 10000 overflowed (found by wire_fuzzer).
    const int32_t varianceLimit = int32_t(std::min(1.0f, 10000.0f * weights.scale));
    layerNormalize(result.data(), weights.as<int16_t>(), context.input(gate.bias).as<int32_t>(),
                   quantizeMultiplier(weights.scale), varianceLimit, s.batches, s.units);
  }
  return result;
}

Status executeQuantizedLstm(OperationContext& context) {
  const Tensor& input = context.input(kInput);
  const Shapes s{input.dim(0), input.dim(1), context.input(kGates[kOutputGate].inputWeights).dim(0),
                 context.input(kGates[kOutputGate].recurrentWeights).dim(1)};
  const size_t cells = size_t(s.batches) * s.units;
  const Tensor& previousCellState = context.input(kPrevCellState);
  const int16_t* previousCell = previousCellState.as<int16_t>();
  const int cellShift = int(std::round(std::log2(previousCellState.scale)));
  const bool cifg = !given(context, kGates[kInputGate].inputWeights);

  std::vector<int16_t> forget = gatePreActivation(context, kGates[kForgetGate], s, previousCell, cellShift);
  for (int16_t& v : forget) v = fixed16::logistic(fixed16::Fixed<3>{v}).raw;
  std::vector<int16_t> cellGate = gatePreActivation(context, kGates[kCellGate], s, nullptr, cellShift);
  applyTanh(3, cellGate.data(), cells, cellGate.data());
  std::vector<int16_t> inputGate(cells);
  if (cifg) {
    for (size_t i = 0; i < cells; ++i) inputGate[i] = int16_t(32767 - forget[i]);
  } else {
    inputGate = gatePreActivation(context, kGates[kInputGate], s, previousCell, cellShift);
    for (int16_t& v : inputGate) v = fixed16::logistic(fixed16::Fixed<3>{v}).raw;
  }

  // c' = f * c + i * g, saturated to int16, then clipped.
  int16_t* cell = context.output(kCellStateOut).asMutable<int16_t>();
  const float cellClip = context.scalar<float>(kCellClip);
  const int16_t quantizedCellClip =
      cellClip > 0 ? int16_t(std::min(std::max(cellClip / previousCellState.scale, -32768.0f), 32767.0f)) : 0;
  for (size_t i = 0; i < cells; ++i) {
    const int32_t kept = roundingDivideByPowerOfTwo(int32_t(forget[i]) * previousCell[i], 15);
    const int32_t added = roundingDivideByPowerOfTwo(int32_t(inputGate[i]) * cellGate[i], 30 + cellShift);
    int16_t value = fixed16::saturate(int32_t(int16_t(kept)) + int16_t(added));
    if (quantizedCellClip > 0) value = std::min<int16_t>(quantizedCellClip, std::max<int16_t>(-quantizedCellClip, value));
    cell[i] = value;
  }

  std::vector<int16_t> outputGate = gatePreActivation(context, kGates[kOutputGate], s, cell, cellShift);
  for (int16_t& v : outputGate) v = fixed16::logistic(fixed16::Fixed<3>{v}).raw;

  // h = o * tanh(c'), requantized to the hidden state's scale and zero point.
  std::vector<int16_t> cellTanh(cells);
  applyTanh(cellShift + 15, cell, cells, cellTanh.data());
  const int32_t hiddenZeroPoint = context.scalar<int32_t>(kHiddenZeroPoint);
  const float hiddenScale = context.scalar<float>(kHiddenScale);
  const float hiddenEffectiveScale = float(std::ldexp(1.0, -15) / hiddenScale * std::ldexp(1.0, -15));
  const QuantizedMultiplier toHidden = quantizeMultiplier(hiddenEffectiveScale);
  std::vector<int8_t> hidden(cells);
  for (size_t i = 0; i < cells; ++i) {
    const int32_t value = multiplyByQuantizedMultiplier(int32_t(outputGate[i]) * cellTanh[i], toHidden) + hiddenZeroPoint;
    hidden[i] = int8_t(std::min(127, std::max(-128, value)));
  }

  int8_t* output = context.output(kOutput).asMutable<int8_t>();
  const size_t outputs = size_t(s.batches) * s.outputSize;
  if (given(context, kProjectionWeights)) {
    const Tensor& projection = context.input(kProjectionWeights);
    const Tensor& previousOutput = context.input(kPrevOutput);
    const int32_t* projectionBias = given(context, kProjectionBias) ? context.input(kProjectionBias).as<int32_t>() : nullptr;
    const float projectionScale = projection.scale * hiddenScale / previousOutput.scale;
    std::memset(output, 0, outputs);
    multiplyAccumulate(hidden.data(),
                       zeroPointTimesRowSums(-hiddenZeroPoint, projection.as<int8_t>(), s.outputSize, s.units,
                                             projectionBias),
                       projection.as<int8_t>(), quantizeMultiplier(projectionScale), s.batches, s.units, s.outputSize,
                       previousOutput.zeroPoint, output);
    const float projectionClip = context.scalar<float>(kProjectionClip);
    if (projectionClip > 0) {
      // The reference measures the projection clip in units of the projection weights' scale.
      const int8_t clip = int8_t(std::min(std::max(projectionClip / projection.scale, -128.0f), 127.0f));
      for (size_t i = 0; i < outputs; ++i) output[i] = std::min<int8_t>(clip, std::max<int8_t>(int8_t(-clip), output[i]));
    }
  } else {
    std::memcpy(output, hidden.data(), outputs);
  }
  std::memcpy(context.output(kOutputStateOut).data, output, outputs);
  return {};
}

OperationWork quantizedLstmWork(const OperationContext& context) {
  OperationWork work;
  const Tensor& input = context.input(kInput);
  const uint32_t units = context.input(kGates[kOutputGate].inputWeights).dim(0);
  const uint32_t outputSize = context.input(kGates[kOutputGate].recurrentWeights).dim(1);
  GemmWork gates;
  gates.m = input.dim(0);
  gates.n = 4 * units;
  gates.k = input.dim(1) + outputSize;
  work.gemms.push_back(gates);
  if (given(context, kProjectionWeights)) {
    GemmWork projection;
    projection.m = input.dim(0);
    projection.n = outputSize;
    projection.k = units;
    work.gemms.push_back(projection);
  }
  // Gate activations, layer norms, the state update and the output tanh per cell.
  work.vectorElements = uint64_t(input.dim(0)) * units * 16;
  return work;
}

}  // namespace

const OperationKernel kQuantizedLstmKernel = {&validateQuantizedLstm, &prepareQuantizedLstm, &executeQuantizedLstm,
                                              &quantizedLstmWork,
    /*layoutOperand=*/nullptr, /*layoutShapeOperand=*/nullptr, /*takesOmittedTensors=*/true};
NNREMOTE_REGISTER_KERNEL(OperationType::QUANTIZED_LSTM, kQuantizedLstmKernel);

}  // namespace nnremote::sim
