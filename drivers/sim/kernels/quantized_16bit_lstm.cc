// QUANTIZED_16BIT_LSTM: one step of a basic LSTM cell on 8-bit activations and weights with a
// 16-bit cell state (4 integer bits, scale 2^-11), as NN HAL 1.2 defines it.
//
// Inputs: 0 input [batches, inputSize]; 1-4 input-to-{input, forget, cell, output} weights
// [units, inputSize]; 5-8 recurrent-to-{...} weights [units, units]; 9-12 {...} gate biases
// [units] (int32, scale = weights scale / 128); 13 previous cell state [batches, units]
// (quant16); 14 previous output [batches, units]. Outputs: 0 cell state, 1 output.
//
// The arithmetic is integer throughout (int32 accumulation, 16-bit fixed-point gates) so results
// are bit-exact with the CTS goldens; see fixed_point16.h.
#include <cmath>

#include "drivers/sim/kernels/fixed_point16.h"
#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"

namespace nnremote::sim {
namespace {

using fixed16::Fixed;

constexpr size_t kInput = 0, kFirstInputWeights = 1, kFirstRecurrentWeights = 5, kFirstBias = 9,
                 kPrevCellState = 13, kPrevOutput = 14;
constexpr size_t kCellStateOut = 0, kOutput = 1;
// Gate order of the accumulated rows; the operands are ordered input, forget, cell, output.
constexpr size_t kGateOperandOffsets[4] = {0, 2, 1, 3};  // input, cell (modulation), forget, output

bool nearlyEqual(float a, double b) { return std::abs(a - b) <= 1e-6 * std::abs(b); }

Status expectQuantization(const OperationContext& context, const Tensor& t, const char* role, double scale,
                          int32_t zeroPoint) {
  if (!nearlyEqual(t.scale, scale) || t.zeroPoint != zeroPoint) {
    return unsupported(context) << role << " must have scale " << scale << " and zero point " << zeroPoint
                                << ", has " << t.scale << " and " << t.zeroPoint;
  }
  return {};
}

Status validateQuantized16BitLstm(const OperationContext& context) {
  if (context.output(kCellStateOut).type != OperandType::TENSOR_QUANT16_SYMM ||
      context.output(kOutput).type != OperandType::TENSOR_QUANT8_ASYMM) {
    return unsupported(context) << "outputs must be TENSOR_QUANT16_SYMM (cell state) and TENSOR_QUANT8_ASYMM";
  }

  // Activations live in [-1, 1) at scale 1/128; the cell state has 4 integer bits.
  NN_RETURN_IF_ERROR(expectQuantization(context, context.input(kInput), "input 0", 1.0 / 128, 128));
  NN_RETURN_IF_ERROR(expectQuantization(context, context.input(kPrevOutput), "the previous output (input 14)", 1.0 / 128, 128));
  NN_RETURN_IF_ERROR(expectQuantization(context, context.output(kOutput), "output 1", 1.0 / 128, 128));
  NN_RETURN_IF_ERROR(expectQuantization(context, context.input(kPrevCellState), "the previous cell state (input 13)",
                                        1.0 / 2048, 0));
  NN_RETURN_IF_ERROR(expectQuantization(context, context.output(kCellStateOut), "output 0", 1.0 / 2048, 0));
  const Tensor& weights = context.input(kFirstInputWeights);
  if (weights.scale <= 0) return unsupported(context) << "weights need a positive scale";
  for (size_t i = kFirstInputWeights; i < kFirstBias; ++i) {
    NN_RETURN_IF_ERROR(expectQuantization(context, context.input(i), "every weight tensor", weights.scale,
                                          weights.zeroPoint));
  }
  for (size_t i = kFirstBias; i < kFirstBias + 4; ++i) {
    NN_RETURN_IF_ERROR(expectQuantization(context, context.input(i), "every bias", weights.scale / 128.0, 0));
  }
  return {};
}

Status prepareQuantized16BitLstm(OperationContext& context) {
  const Tensor& input = context.input(kInput);
  if (input.rank() != 2) return unsupported(context) << "input 0 must have rank 2";
  const uint32_t batches = input.dim(0), inputSize = input.dim(1);
  const uint32_t units = context.input(kPrevOutput).rank() == 2 ? context.input(kPrevOutput).dim(1) : 0;
  auto expectShape = [&](size_t i, std::vector<uint32_t> expected) -> Status {
    if (context.input(i).dimensions != expected) {
      return unsupported(context) << "input " << i << " has dimensions " << hal::toString(context.input(i).dimensions)
                                  << ", expected " << hal::toString(expected);
    }
    return {};
  };
  NN_RETURN_IF_ERROR(expectShape(kPrevOutput, {batches, units}));
  NN_RETURN_IF_ERROR(expectShape(kPrevCellState, {batches, units}));
  for (size_t g = 0; g < 4; ++g) {
    NN_RETURN_IF_ERROR(expectShape(kFirstInputWeights + g, {units, inputSize}));
    NN_RETURN_IF_ERROR(expectShape(kFirstRecurrentWeights + g, {units, units}));
    NN_RETURN_IF_ERROR(expectShape(kFirstBias + g, {units}));
  }
  context.output(kCellStateOut).dimensions = {batches, units};
  context.output(kOutput).dimensions = {batches, units};
  return {};
}

Status executeQuantized16BitLstm(OperationContext& context) {
  const Tensor& input = context.input(kInput);
  const uint32_t batches = input.dim(0), inputSize = input.dim(1), units = context.input(kPrevOutput).dim(1);
  const int32_t weightsZeroPoint = context.input(kFirstInputWeights).zeroPoint;
  // The gate pre-activations go to 16 bits with 3 integer bits (scale 2^-12).
  const QuantizedMultiplier toGateScale = quantizeMultiplier(4096.0 * context.input(kFirstBias).scale);
  const uint8_t* x = input.as<uint8_t>();
  const uint8_t* previousOutput = context.input(kPrevOutput).as<uint8_t>();
  const int16_t* previousCell = context.input(kPrevCellState).as<int16_t>();
  int16_t* cellOut = context.output(kCellStateOut).asMutable<int16_t>();
  uint8_t* out = context.output(kOutput).asMutable<uint8_t>();
  const uint32_t depth = inputSize + units;

  for (uint32_t b = 0; b < batches; ++b) {
    // The CTS goldens (inherited from TF Lite's 5-input cell, whose weights were one
    // [4 * units, units + inputSize] matrix) pair the activation vector [input, previous output]
    // with the weight row [recurrent row, input row]; we do the same to agree with them.
    auto activation = [&](uint32_t k) {
      return int32_t(k < inputSize ? x[size_t(b) * inputSize + k] : previousOutput[size_t(b) * units + k - inputSize]) - 128;
    };
    for (uint32_t u = 0; u < units; ++u) {
      Fixed<3> gates[4];
      for (size_t g = 0; g < 4; ++g) {
        const size_t offset = kGateOperandOffsets[g];
        const uint8_t* recurrentRow = context.input(kFirstRecurrentWeights + offset).as<uint8_t>() + size_t(u) * units;
        const uint8_t* inputRow = context.input(kFirstInputWeights + offset).as<uint8_t>() + size_t(u) * inputSize;
        // In 64 bits, saturated to 32 before rescaling: a bias near int32's limits (any value
        // is a valid bias) would overflow a 32-bit sum.
        int64_t accumulator = context.input(kFirstBias + offset).as<int32_t>()[u];
        for (uint32_t k = 0; k < depth; ++k) {
          const uint8_t weight = k < units ? recurrentRow[k] : inputRow[k - units];
          accumulator += activation(k) * (int32_t(weight) - weightsZeroPoint);
        }
        gates[g] = Fixed<3>{fixed16::saturate(requantizeSaturating(accumulator, toGateScale, 0))};
      }
      const Fixed<0> inputGate = fixed16::logistic(gates[0]);
      const Fixed<0> modulation = fixed16::tanh(gates[1]);
      const Fixed<0> forgetGate = fixed16::logistic(gates[2]);
      const Fixed<0> outputGate = fixed16::logistic(gates[3]);
      const Fixed<4> previousState{previousCell[size_t(b) * units + u]};
      const Fixed<4> state =
          fixed16::saturatingAdd(fixed16::rescale<4>(inputGate * modulation), forgetGate * previousState);
      const Fixed<0> outputValue = outputGate * fixed16::tanh(fixed16::rescale<3>(state));
      cellOut[size_t(b) * units + u] = state.raw;
      const int32_t scaled = fixed16::roundingDivideByPowerOfTwo(outputValue.raw, 8);
      out[size_t(b) * units + u] = uint8_t(128 + std::min(127, std::max(-128, scaled)));
    }
  }
  return {};
}

OperationWork quantized16BitLstmWork(const OperationContext& context) {
  OperationWork work;
  const Tensor& input = context.input(kInput);
  GemmWork gemm;
  gemm.m = input.dim(0);
  gemm.n = 4 * context.input(kPrevOutput).dim(1);
  gemm.k = input.dim(1) + context.input(kPrevOutput).dim(1);
  work.gemms.push_back(gemm);
  // Four gate activations, the state update and the output tanh per unit.
  work.vectorElements = uint64_t(gemm.m) * context.input(kPrevOutput).dim(1) * 8;
  return work;
}

}  // namespace

const OperationKernel kQuantized16BitLstmKernel = {&validateQuantized16BitLstm, &prepareQuantized16BitLstm,
                                                   &executeQuantized16BitLstm, &quantized16BitLstmWork};
NNREMOTE_REGISTER_KERNEL(OperationType::QUANTIZED_16BIT_LSTM, kQuantized16BitLstmKernel);

}  // namespace nnremote::sim
