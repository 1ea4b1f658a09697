// RANDOM_MULTINOMIAL (logits [batches, classes], samples, seeds [2]) -> classes drawn
// [batches, samples]. Draws from softmax(logits) per batch. Seeds (a, b) make the draws
// reproducible; (0, 0) asks for fresh randomness, as in TensorFlow.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/operation_registry.h"

namespace nnremote::sim {
namespace {

Status validateRandomMultinomial(const OperationContext& context) {
  if (context.output(0).type != OperandType::TENSOR_INT32) return unsupported(context) << "output must be TENSOR_INT32";
  return {};
}

Status prepareRandomMultinomial(OperationContext& context) {
  const Tensor& logits = context.input(0);
  if (logits.rank() != 2 || logits.dim(1) == 0) return unsupported(context) << "logits must have shape [batches, classes > 0]";
  if (context.input(2).dimensions != std::vector<uint32_t>{2}) return unsupported(context) << "seeds must have shape [2]";
  const int32_t samples = context.scalar<int32_t>(1);
  if (samples <= 0) return unsupported(context) << "the number of samples must be positive";
  context.output(0).dimensions = {logits.dim(0), uint32_t(samples)};
  return {};
}

Status executeRandomMultinomial(OperationContext& context) {
  const Tensor& logits = context.input(0);
  const uint32_t batches = logits.dim(0), classes = logits.dim(1), samples = context.output(0).dim(1);
  const int32_t* seeds = context.input(2).as<int32_t>();
  const uint64_t seed = (uint64_t(uint32_t(seeds[0])) << 32) | uint32_t(seeds[1]);
  std::mt19937_64 generator(seed != 0 ? seed : std::random_device{}());
  int32_t* out = context.output(0).asMutable<int32_t>();
  std::vector<double> cumulative(classes);
  for (uint32_t b = 0; b < batches; ++b) {
    const float* row = logits.as<float>() + size_t(b) * classes;
    const float maxLogit = *std::max_element(row, row + classes);
    double total = 0;
    for (uint32_t c = 0; c < classes; ++c) cumulative[c] = total += std::exp(double(row[c]) - maxLogit);
    std::uniform_real_distribution<double> uniform(0.0, total);
    for (uint32_t i = 0; i < samples; ++i) {
      const auto drawn = std::upper_bound(cumulative.begin(), cumulative.end(), uniform(generator));
      out[size_t(b) * samples + i] = int32_t(std::min<ptrdiff_t>(drawn - cumulative.begin(), classes - 1));
    }
  }
  return {};
}

OperationWork randomMultinomialWork(const OperationContext& context) {
  OperationWork work;
  work.vectorElements = 2 * context.input(0).elementCount() + 8 * context.output(0).elementCount();
  return work;
}

}  // namespace

const OperationKernel kRandomMultinomialKernel = {&validateRandomMultinomial, &prepareRandomMultinomial,
                                                  &executeRandomMultinomial, &randomMultinomialWork};
NNREMOTE_REGISTER_KERNEL(OperationType::RANDOM_MULTINOMIAL, kRandomMultinomialKernel);

}  // namespace nnremote::sim
