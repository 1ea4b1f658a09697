#include "drivers/sim/kernels/kernel_utils.h"

#include <algorithm>
#include <cmath>

namespace nnremote::sim {

Status expectCounts(const OperationContext& context, std::initializer_list<size_t> inputCounts,
                    size_t outputCount) {
  if (std::find(inputCounts.begin(), inputCounts.end(), context.inputCount()) == inputCounts.end()) {
    auto error = unsupported(context);
    error << "takes ";
    size_t n = 0;
    for (size_t count : inputCounts) error << (n++ ? " or " : "") << count;
    return error << " inputs, got " << context.inputCount();
  }
  if (context.outputCount() != outputCount) {
    return unsupported(context) << "has " << outputCount << " outputs, got "
                                << context.outputCount();
  }
  return {};
}

Status expectInputType(const OperationContext& context, size_t i, OperandType type) {
  if (context.inputType(i) != type) {
    return unsupported(context) << "input " << i << " must be " << hal::toString(type) << ", got "
                                << hal::toString(context.inputType(i));
  }
  return {};
}

Status expectScalar(const OperationContext& context, size_t i, OperandType type) {
  NN_RETURN_IF_ERROR(expectInputType(context, i, type));
  if (context.input(i).isOmitted) {
    return unsupported(context) << "input " << i << " (a scalar parameter) has no value";
  }
  return {};
}

Status expectSameTypeAsFirst(const OperationContext& context, std::initializer_list<size_t> inputs) {
  const OperandType type = context.inputType(0);
  for (size_t i : inputs) NN_RETURN_IF_ERROR(expectInputType(context, i, type));
  for (size_t i = 0; i < context.outputCount(); ++i) {
    if (context.output(i).type != type) {
      return unsupported(context) << "output " << i << " must be " << hal::toString(type)
                                  << ", got " << hal::toString(context.output(i).type);
    }
  }
  return {};
}

Status expectFloatOrQuant8(const OperationContext& context, OperandType type) {
  if (type != OperandType::TENSOR_FLOAT32 && type != OperandType::TENSOR_QUANT8_ASYMM) {
    return unsupported(context) << hal::toString(type) << " is not implemented";
  }
  return {};
}

Status expectNhwc(const OperationContext& context, size_t i) {
  if (i >= context.inputCount()) return {};
  NN_RETURN_IF_ERROR(expectScalar(context, i, OperandType::BOOL));
  if (!context.hasValue(i)) {
    return unsupported(context) << "the layout flag (input " << i << ") must be a constant";
  }
  if (context.scalar<uint8_t>(i) != 0) {
    return unsupported(context) << "NCHW layout is not implemented";
  }
  return {};
}

Status expectSameQuantizationAsInput(const OperationContext& context) {
  const Tensor& in = context.input(0);
  const Tensor& out = context.output(0);
  if (in.type == OperandType::TENSOR_QUANT8_ASYMM &&
      (in.scale != out.scale || in.zeroPoint != out.zeroPoint)) {
    return unsupported(context) << "quantized output must keep the input's scale and zero point";
  }
  return {};
}

Status expectFusedActivation(const OperationContext& context, size_t i) {
  NN_RETURN_IF_ERROR(expectScalar(context, i, OperandType::INT32));
  if (context.hasValue(i)) {
    const int32_t code = context.scalar<int32_t>(i);
    if (code < 0 || code > 3) {
      return unsupported(context) << "input " << i << " = " << code
                                  << " is not a fused activation (0..3)";
    }
  }
  return {};
}

Status expectBiasPerOutputChannel(const OperationContext& context, uint32_t outputChannels) {
  const Tensor& bias = context.input(2);
  if (bias.rank() == 1 && bias.dim(0) == outputChannels) return {};
  return unsupported(context) << "bias " << hal::toString(bias.dimensions) << " must have one entry for each of the "
                              << outputChannels << " output channels";
}

FloatRange activationRange(FusedActivation activation) {
  switch (activation) {
    case FusedActivation::RELU: return {0.0f, std::numeric_limits<float>::max()};
    case FusedActivation::RELU1: return {-1.0f, 1.0f};
    case FusedActivation::RELU6: return {0.0f, 6.0f};
    case FusedActivation::NONE: break;
  }
  return {std::numeric_limits<float>::lowest(), std::numeric_limits<float>::max()};
}

QuantRange activationRange(FusedActivation activation, const Tensor& output, int32_t qmin,
                           int32_t qmax) {
  auto quantize = [&](float x) -> int32_t {
    // A tiny (subnormal) scale puts a bound past any int32, even at infinity: clamp before
    // converting, which an out-of-range float-to-int conversion is not.
    const double q = static_cast<double>(output.zeroPoint) + static_cast<double>(std::round(x / output.scale));
    if (std::isnan(q)) return output.zeroPoint;
    return static_cast<int32_t>(std::clamp(q, static_cast<double>(std::numeric_limits<int32_t>::min()),
                                           static_cast<double>(std::numeric_limits<int32_t>::max())));
  };
  switch (activation) {
    case FusedActivation::RELU:
      return {std::max(qmin, quantize(0.0f)), qmax};
    case FusedActivation::RELU1:
      return {std::max(qmin, quantize(-1.0f)), std::min(qmax, quantize(1.0f))};
    case FusedActivation::RELU6:
      return {std::max(qmin, quantize(0.0f)), std::min(qmax, quantize(6.0f))};
    case FusedActivation::NONE:
      break;
  }
  return {qmin, qmax};
}

QuantizedMultiplier quantizeMultiplier(double realMultiplier) {
  QuantizedMultiplier result;
  if (realMultiplier == 0.0 || std::isnan(realMultiplier)) return result;
  if (std::isinf(realMultiplier)) {  // scales so far apart that their ratio overflows: saturate
    result.multiplier = realMultiplier > 0 ? std::numeric_limits<int32_t>::max() : -std::numeric_limits<int32_t>::max();
    result.shift = 30;
    return result;
  }
  int shift = 0;
  const double fraction = std::frexp(realMultiplier, &shift);
  int64_t q = static_cast<int64_t>(std::round(fraction * (int64_t{1} << 31)));
  if (q == (int64_t{1} << 31)) {
    q /= 2;
    ++shift;
  }
  if (shift < -31) {
    shift = 0;
    q = 0;
  }
  // A multiplier of 2^30 or more (scales 30 binary orders apart) saturates every result anyway;
  // a larger shift would overflow the fixed-point arithmetic.
  if (shift > 30) {
    shift = 30;
    q = std::numeric_limits<int32_t>::max();
  }
  result.multiplier = static_cast<int32_t>(q);
  result.shift = shift;
  return result;
}

Padding implicitPadding(PaddingScheme scheme, uint32_t inSize, uint32_t stride, uint32_t filter,
                        uint32_t dilation) {
  if (scheme != PaddingScheme::SAME) return {};
  const int64_t effectiveFilter = int64_t{filter - 1} * dilation + 1;
  const int64_t out = (int64_t{inSize} + stride - 1) / stride;
  const int64_t total = std::max<int64_t>(0, (out - 1) * stride + effectiveFilter - inSize);
  return {static_cast<uint32_t>(total / 2), static_cast<uint32_t>(total - total / 2)};
}

uint32_t outputSize(uint32_t inSize, uint32_t filter, uint32_t dilation, uint32_t stride,
                    Padding padding) {
  const int64_t effectiveFilter = int64_t{filter - 1} * dilation + 1;
  const int64_t span = int64_t{inSize} + padding.before + padding.after - effectiveFilter;
  if (span < 0 || stride == 0) return 0;
  return static_cast<uint32_t>(span / stride + 1);
}

Status broadcastShapes(const OperationContext& context, const std::vector<uint32_t>& a,
                       const std::vector<uint32_t>& b, std::vector<uint32_t>* out) {
  const size_t rank = std::max(a.size(), b.size());
  out->assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const uint32_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const uint32_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return unsupported(context) << "shapes " << hal::toString(a) << " and " << hal::toString(b)
                                  << " cannot be broadcast";
    }
    (*out)[i] = da == 1 ? db : da;
  }
  return {};
}

}  // namespace nnremote::sim
