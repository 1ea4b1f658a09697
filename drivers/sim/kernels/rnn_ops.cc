// Basic recurrent cells: RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN and SVDF
// (float; float16 through lowering). One step is h = act(x W^T + h R^T + bias [+ aux W_aux^T]).
#include <cmath>
#include <cstring>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"
#include "drivers/sim/kernels/recurrent_utils.h"

namespace nnremote::sim {
namespace {

// One time step for a batch: out[b] = act(in[b] W^T + hidden[b] R^T + bias + aux[b] A^T).
void rnnStep(const float* in, uint32_t inputSize, const float* aux, uint32_t auxSize, const float* hidden,
             const Tensor& weights, const Tensor& recurrent, const Tensor& bias, const Tensor* auxWeights,
             uint32_t batches, uint32_t units, int32_t activation, size_t inStride, size_t auxStride,
             size_t hiddenStride, float* out, size_t outStride) {
  const float* w = weights.as<float>();
  const float* r = recurrent.as<float>();
  const float* bv = bias.as<float>();
  for (uint32_t b = 0; b < batches; ++b) {
    for (uint32_t u = 0; u < units; ++u) {
      float sum = bv[u];
      for (uint32_t i = 0; i < inputSize; ++i) sum += in[b * inStride + i] * w[size_t(u) * inputSize + i];
      if (aux != nullptr && auxWeights != nullptr) {
        const float* a = auxWeights->as<float>();
        for (uint32_t i = 0; i < auxSize; ++i) sum += aux[b * auxStride + i] * a[size_t(u) * auxSize + i];
      }
      for (uint32_t j = 0; j < units; ++j) sum += hidden[b * hiddenStride + j] * r[size_t(u) * units + j];
      out[b * outStride + u] = activate(activation, sum);
    }
  }
}

// The shapes of one cell's operands, which the kernels index without further checks:
// weights [units, inputSize], recurrent weights [units, units], bias [units], hidden state
// [batches, units], and auxiliary weights [units, auxSize] when given.
Status checkCell(const OperationContext& context, size_t weights, size_t recurrent, size_t bias, size_t hidden,
                 uint32_t batches, uint32_t inputSize, const Tensor* auxWeights = nullptr, uint32_t auxSize = 0) {
  const Tensor& w = context.input(weights);
  if (w.rank() != 2 || w.dim(1) != inputSize || w.dim(0) == 0) {
    return unsupported(context) << "input " << weights << " must be [units, " << inputSize << "], is "
                                << hal::toString(w.dimensions);
  }
  const uint32_t units = w.dim(0);
  const std::pair<size_t, std::vector<uint32_t>> expected[] = {
      {recurrent, {units, units}}, {bias, {units}}, {hidden, {batches, units}}};
  for (const auto& [index, dims] : expected) {
    if (context.input(index).dimensions != dims) {
      return unsupported(context) << "input " << index << " must be " << hal::toString(dims) << ", is "
                                  << hal::toString(context.input(index).dimensions);
    }
  }
  if (auxWeights != nullptr && auxWeights->dimensions != std::vector<uint32_t>{units, auxSize}) {
    return unsupported(context) << "the auxiliary weights must be " << hal::toString(std::vector<uint32_t>{units, auxSize})
                                << ", are " << hal::toString(auxWeights->dimensions);
  }
  return {};
}

OperationWork recurrentWork(const OperationContext& context) {
  OperationWork work;
  const Tensor& weights = context.input(1);
  const Tensor& recurrent = context.input(2);
  GemmWork gemm;
  gemm.m = context.input(0).elementCount() / std::max<uint32_t>(1, weights.dim(1));  // steps x batch
  gemm.n = weights.dim(0);
  gemm.k = weights.dim(1) + recurrent.dim(1);
  work.gemms.push_back(gemm);
  return work;
}

// ---- RNN (input, W, R, bias, hidden, activation) -> (hidden out, output) ---------------------

Status validateRnn(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectFloatOperands(context, {0, 1, 2, 3, 4}));
  return {};
}

Status prepareRnn(OperationContext& context) {
  if (context.input(0).rank() != 2) return unsupported(context) << "input must have rank 2";
  NN_RETURN_IF_ERROR(checkCell(context, 1, 2, 3, 4, context.input(0).dim(0), context.input(0).dim(1)));
  const uint32_t batches = context.input(0).dim(0), units = context.input(1).dim(0);
  context.output(0).dimensions = {batches, units};
  context.output(1).dimensions = {batches, units};
  return {};
}

Status executeRnn(OperationContext& context) {
  const Tensor& in = context.input(0);
  const uint32_t batches = in.dim(0), inputSize = in.dim(1), units = context.input(1).dim(0);
  std::vector<float> next(size_t(batches) * units);
  rnnStep(in.as<float>(), inputSize, nullptr, 0, context.input(4).as<float>(), context.input(1), context.input(2),
          context.input(3), nullptr, batches, units, context.scalar<int32_t>(5), inputSize, 0, units, next.data(), units);
  std::memcpy(context.output(0).data, next.data(), next.size() * sizeof(float));
  std::memcpy(context.output(1).data, next.data(), next.size() * sizeof(float));
  return {};
}

// Runs a sequence in one direction. Sequences are [time, batch, features] when time-major,
// else [batch, time, features]; `out` has `outFeatures` per step, written from `outOffset`.
void runSequence(const float* in, uint32_t inputSize, const float* aux, uint32_t auxSize, const Tensor& weights,
                 const Tensor& recurrent, const Tensor& bias, const Tensor* auxWeights, const float* initial,
                 uint32_t steps, uint32_t batches, uint32_t units, int32_t activation, bool timeMajor, bool reverse,
                 float* out, uint32_t outFeatures, uint32_t outOffset, float* finalState) {
  std::vector<float> hidden(initial, initial + size_t(batches) * units), next(hidden.size());
  for (uint32_t s = 0; s < steps; ++s) {
    const uint32_t t = reverse ? steps - 1 - s : s;
    // Element (b, t) of a sequence with `features` per step.
    auto at = [&](uint32_t features) { return timeMajor ? size_t(t) * batches * features : size_t(t) * features; };
    auto stride = [&](uint32_t features) { return timeMajor ? size_t(features) : size_t(steps) * features; };
    rnnStep(in + at(inputSize), inputSize, aux ? aux + at(auxSize) : nullptr, auxSize, hidden.data(), weights, recurrent,
            bias, auxWeights, batches, units, activation, stride(inputSize), stride(auxSize), units, next.data(), units);
    for (uint32_t b = 0; b < batches; ++b) {
      float* row = out + (timeMajor ? (size_t(t) * batches + b) : (size_t(b) * steps + t)) * outFeatures + outOffset;
      std::memcpy(row, &next[size_t(b) * units], units * sizeof(float));
    }
    hidden.swap(next);
  }
  if (finalState != nullptr) std::memcpy(finalState, hidden.data(), hidden.size() * sizeof(float));
}

// ---- UNIDIRECTIONAL_SEQUENCE_RNN (input, W, R, bias, hidden, activation, time_major) ---------

Status validateUnidirectional(const OperationContext& context) {
  if (context.inputCount() != 7 || context.outputCount() < 1 || context.outputCount() > 2) {
    return unsupported(context) << "takes 7 inputs and 1 or 2 outputs";
  }
  NN_RETURN_IF_ERROR(expectFloatOperands(context, {0, 1, 2, 3, 4}));
  if (context.input(0).rank() != 3) return unsupported(context) << "input must have rank 3";
  return {};
}

Status prepareUnidirectional(OperationContext& context) {
  const Tensor& in = context.input(0);
  const bool timeMajor = context.scalar<int32_t>(6) != 0;
  NN_RETURN_IF_ERROR(checkCell(context, 1, 2, 3, 4, timeMajor ? in.dim(1) : in.dim(0), in.dim(2)));
  std::vector<uint32_t> dims = context.input(0).dimensions;
  dims[2] = context.input(1).dim(0);
  context.output(0).dimensions = dims;
  if (context.outputCount() == 2) context.output(1).dimensions = context.input(4).dimensions;
  return {};
}

Status executeUnidirectional(OperationContext& context) {
  const Tensor& in = context.input(0);
  const bool timeMajor = context.scalar<int32_t>(6) != 0;
  const uint32_t steps = timeMajor ? in.dim(0) : in.dim(1), batches = timeMajor ? in.dim(1) : in.dim(0);
  const uint32_t units = context.input(1).dim(0);
  runSequence(in.as<float>(), in.dim(2), nullptr, 0, context.input(1), context.input(2), context.input(3), nullptr,
              context.input(4).as<float>(), steps, batches, units, context.scalar<int32_t>(5), timeMajor, false,
              context.output(0).asMutable<float>(), units, 0,
              context.outputCount() == 2 ? context.output(1).asMutable<float>() : nullptr);
  return {};
}

// ---- BIDIRECTIONAL_SEQUENCE_RNN: input, fw W/R/bias/hidden, bw W/R/bias/hidden, aux input,
// fw aux W, bw aux W, activation, time_major, merge_outputs -> fw output [, bw output]
// [, fw state, bw state] ---------------------------------------------------------------------

Status validateBidirectional(const OperationContext& context) {
  if (context.inputCount() != 15 || context.outputCount() < 1 || context.outputCount() > 4) {
    return unsupported(context) << "takes 15 inputs and 1 to 4 outputs";
  }
  NN_RETURN_IF_ERROR(expectFloatOperands(context, {0, 1, 2, 3, 4, 5, 6, 7, 8}));
  if (context.input(0).rank() != 3) return unsupported(context) << "input must have rank 3";
  return {};
}

bool mergeOutputs(const OperationContext& context) { return context.scalar<uint8_t>(14) != 0; }

Status prepareBidirectional(OperationContext& context) {
  const Tensor& in = context.input(0);
  const Tensor& aux = context.input(9);
  const bool timeMajor = context.scalar<uint8_t>(13) != 0;
  const uint32_t batches = timeMajor ? in.dim(1) : in.dim(0);
  const bool hasAux = present(aux), hasAuxWeights = present(context.input(10)) && present(context.input(11));
  if (hasAux && (aux.rank() != 3 || aux.dim(0) != in.dim(0) || aux.dim(1) != in.dim(1))) {
    return unsupported(context) << "the auxiliary input must be a sequence like the input, is "
                                << hal::toString(aux.dimensions);
  }
  if (!hasAux && (present(context.input(10)) || present(context.input(11)))) {
    return unsupported(context) << "auxiliary weights need an auxiliary input";
  }
  const uint32_t auxSize = hasAux ? aux.dim(2) : 0;
  // With an auxiliary input but no auxiliary weights, the backward cell reads the auxiliary input.
  const uint32_t bwInputSize = hasAux && !hasAuxWeights ? auxSize : in.dim(2);
  NN_RETURN_IF_ERROR(checkCell(context, 1, 2, 3, 4, batches, in.dim(2), hasAuxWeights ? &context.input(10) : nullptr,
                               auxSize));
  NN_RETURN_IF_ERROR(checkCell(context, 5, 6, 7, 8, batches, bwInputSize, hasAuxWeights ? &context.input(11) : nullptr,
                               auxSize));
  const uint32_t units = context.input(1).dim(0);
  std::vector<uint32_t> dims = context.input(0).dimensions;
  const bool merge = mergeOutputs(context);
  dims[2] = merge ? 2 * units : units;
  size_t next = 0;
  context.output(next++).dimensions = dims;
  if (!merge) {
    dims[2] = context.input(5).dim(0);
    context.output(next++).dimensions = dims;
  }
  if (context.outputCount() > next) context.output(next++).dimensions = context.input(4).dimensions;
  if (context.outputCount() > next) context.output(next++).dimensions = context.input(8).dimensions;
  return {};
}

Status executeBidirectional(OperationContext& context) {
  const Tensor& in = context.input(0);
  const bool timeMajor = context.scalar<uint8_t>(13) != 0, merge = mergeOutputs(context);
  const uint32_t steps = timeMajor ? in.dim(0) : in.dim(1), batches = timeMajor ? in.dim(1) : in.dim(0);
  const uint32_t fwUnits = context.input(1).dim(0), bwUnits = context.input(5).dim(0);
  const int32_t activation = context.scalar<int32_t>(12);
  const Tensor& aux = context.input(9);
  const bool hasAux = present(aux), hasAuxWeights = present(context.input(10)) && present(context.input(11));
  // With an auxiliary input but no auxiliary weights, the backward cell reads the auxiliary
  // input instead of the main one (NNAPI's parallel linking).
  const float* bwInput = hasAux && !hasAuxWeights ? aux.as<float>() : in.as<float>();
  const uint32_t bwInputSize = hasAux && !hasAuxWeights ? aux.dim(2) : in.dim(2);
  const float* auxData = hasAux && hasAuxWeights ? aux.as<float>() : nullptr;
  const uint32_t auxSize = hasAux ? aux.dim(2) : 0;
  size_t next = merge ? 1 : 2;
  float* fwState = context.outputCount() > next ? context.output(next).asMutable<float>() : nullptr;
  float* bwState = context.outputCount() > next + 1 ? context.output(next + 1).asMutable<float>() : nullptr;
  float* fwOut = context.output(0).asMutable<float>();
  float* bwOut = merge ? fwOut : context.output(1).asMutable<float>();
  const uint32_t outFeatures = merge ? fwUnits + bwUnits : fwUnits;
  runSequence(in.as<float>(), in.dim(2), auxData, auxSize, context.input(1), context.input(2), context.input(3),
              auxData ? &context.input(10) : nullptr, context.input(4).as<float>(), steps, batches, fwUnits, activation,
              timeMajor, false, fwOut, outFeatures, 0, fwState);
  runSequence(bwInput, bwInputSize, auxData, auxSize, context.input(5), context.input(6), context.input(7),
              auxData ? &context.input(11) : nullptr, context.input(8).as<float>(), steps, batches, bwUnits, activation,
              timeMajor, true, bwOut, merge ? outFeatures : bwUnits, merge ? fwUnits : 0, bwState);
  return {};
}


// ---- SVDF (input, feature weights, time weights, bias, state, rank, activation) -> (state,
// output) ----------------------------------------------------------------------------------------
// A rank-decomposed fully-connected layer over time: each of the units' `rank` filters keeps a
// memory of its last `memory` feature activations and weighs them over time.

Status validateSvdf(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectFloatOperands(context, {0, 1, 2, 3, 4}));
  if (context.scalar<int32_t>(5) <= 0) return unsupported(context) << "rank must be positive";
  if (!isRecurrentActivation(context.scalar<int32_t>(6))) return unsupported(context) << "unknown activation";
  return {};
}

struct SvdfShape {
  uint32_t batches, inputSize, filters, units, memory, rank;
};

hal::Result<SvdfShape> svdfShape(const OperationContext& context) {
  const Tensor& in = context.input(0);
  const Tensor& features = context.input(1);
  const Tensor& time = context.input(2);
  if (in.rank() != 2 || features.rank() != 2 || time.rank() != 2) {
    return unsupported(context) << "input and weights must have rank 2";
  }
  SvdfShape shape{in.dim(0), in.dim(1), features.dim(0), 0, time.dim(1), uint32_t(context.scalar<int32_t>(5))};
  if (shape.filters % shape.rank != 0) return unsupported(context) << "filters must be a multiple of the rank";
  shape.units = shape.filters / shape.rank;
  if (features.dim(1) != shape.inputSize || time.dim(0) != shape.filters) {
    return unsupported(context) << "feature weights must be [filters, inputSize] and time weights [filters, memory]";
  }
  if (present(context.input(3)) && context.input(3).dimensions != std::vector<uint32_t>{shape.units}) {
    return unsupported(context) << "bias must have shape [" << shape.units << "]";
  }
  if (context.input(4).dimensions != std::vector<uint32_t>{shape.batches, shape.memory * shape.filters}) {
    return unsupported(context) << "state must have shape [" << shape.batches << ", " << shape.memory * shape.filters
                                << "]";
  }
  return shape;
}

Status prepareSvdf(OperationContext& context) {
  NN_ASSIGN_OR_RETURN(const SvdfShape shape, svdfShape(context));
  context.output(0).dimensions = {shape.batches, shape.memory * shape.filters};
  context.output(1).dimensions = {shape.batches, shape.units};
  return {};
}

Status executeSvdf(OperationContext& context) {
  NN_ASSIGN_OR_RETURN(const SvdfShape s, svdfShape(context));
  const float* in = context.input(0).as<float>();
  const float* features = context.input(1).as<float>();
  const float* time = context.input(2).as<float>();
  const float* bias = present(context.input(3)) ? context.input(3).as<float>() : nullptr;
  const int32_t activation = context.scalar<int32_t>(6);
  float* state = context.output(0).asMutable<float>();
  float* out = context.output(1).asMutable<float>();
  std::memcpy(state, context.input(4).data, size_t(s.batches) * s.memory * s.filters * sizeof(float));
  std::vector<float> filtered(s.filters);
  for (uint32_t b = 0; b < s.batches; ++b) {
    for (uint32_t f = 0; f < s.filters; ++f) {
      // The newest memory slot holds this step's feature activation.
      float* memory = state + (size_t(b) * s.filters + f) * s.memory;
      float feature = 0;
      for (uint32_t i = 0; i < s.inputSize; ++i) feature += features[size_t(f) * s.inputSize + i] * in[b * s.inputSize + i];
      memory[s.memory - 1] = feature;
      float sum = 0;
      for (uint32_t m = 0; m < s.memory; ++m) sum += time[size_t(f) * s.memory + m] * memory[m];
      filtered[f] = sum;
      // Age the memory for the next step.
      std::memmove(memory, memory + 1, (s.memory - 1) * sizeof(float));
      memory[s.memory - 1] = 0;
    }
    for (uint32_t u = 0; u < s.units; ++u) {
      float sum = bias ? bias[u] : 0.0f;
      for (uint32_t r = 0; r < s.rank; ++r) sum += filtered[u * s.rank + r];
      out[size_t(b) * s.units + u] = activate(activation, sum);
    }
  }
  return {};
}

OperationWork svdfWork(const OperationContext& context) {
  OperationWork work;
  GemmWork gemm;
  gemm.m = context.input(0).dim(0);
  gemm.n = context.input(1).dim(0);
  gemm.k = context.input(1).dim(1);
  work.gemms.push_back(gemm);
  work.vectorElements = uint64_t(gemm.m) * gemm.n * context.input(2).dim(1);
  return work;
}
}  // namespace

const OperationKernel kRnnKernel = {&validateRnn, &prepareRnn, &executeRnn, &recurrentWork,
    /*layoutOperand=*/nullptr, /*layoutShapeOperand=*/nullptr, /*takesOmittedTensors=*/true};
NNREMOTE_REGISTER_KERNEL(OperationType::RNN, kRnnKernel);
const OperationKernel kSvdfKernel = {&validateSvdf, &prepareSvdf, &executeSvdf, &svdfWork,
    /*layoutOperand=*/nullptr, /*layoutShapeOperand=*/nullptr, /*takesOmittedTensors=*/true};
NNREMOTE_REGISTER_KERNEL(OperationType::SVDF, kSvdfKernel);
const OperationKernel kUnidirectionalSequenceRnnKernel = {&validateUnidirectional, &prepareUnidirectional,
                                                          &executeUnidirectional, &recurrentWork,
    /*layoutOperand=*/nullptr, /*layoutShapeOperand=*/nullptr, /*takesOmittedTensors=*/true};
NNREMOTE_REGISTER_KERNEL(OperationType::UNIDIRECTIONAL_SEQUENCE_RNN, kUnidirectionalSequenceRnnKernel);
const OperationKernel kBidirectionalSequenceRnnKernel = {&validateBidirectional, &prepareBidirectional,
                                                         &executeBidirectional, &recurrentWork,
    /*layoutOperand=*/nullptr, /*layoutShapeOperand=*/nullptr, /*takesOmittedTensors=*/true};
NNREMOTE_REGISTER_KERNEL(OperationType::BIDIRECTIONAL_SEQUENCE_RNN, kBidirectionalSequenceRnnKernel);

}  // namespace nnremote::sim
