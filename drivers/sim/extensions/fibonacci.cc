#include "drivers/sim/extensions/fibonacci.h"

#include <cmath>
#include <cstring>
#include <type_traits>
#include <variant>

#include "drivers/sim/extensions/extension_registry.h"
#include "drivers/sim/extensions/extensions.h"
#include "drivers/sim/kernels/kernel_utils.h"

namespace nnremote::sim {
namespace {

using fibonacci::ExampleQuant64AsymmParams;

// The longest sequence computed: far beyond where the numbers overflow (n = 93 for uint64),
// and it keeps a typo'd n from asking for gigabytes.
constexpr int64_t kMaxN = int64_t{1} << 24;

bool isQuant64(const OperationContext& context, OperandType type) {
  return static_cast<int32_t>(type) ==
         sameExtensionCode(static_cast<int32_t>(context.type()), fibonacci::EXAMPLE_TENSOR_QUANT64_ASYMM);
}

bool isInt64(const OperationContext& context, OperandType type) {
  return static_cast<int32_t>(type) == sameExtensionCode(static_cast<int32_t>(context.type()), fibonacci::EXAMPLE_INT64);
}

// The output's quantization, from its extension data.
hal::Result<ExampleQuant64AsymmParams> quantization(const OperationContext& context) {
  const Tensor& output = context.output(0);
  const auto* data = output.extraParams == nullptr ? nullptr
                                                   : std::get_if<hal::Operand::ExtensionParams>(output.extraParams);
  if (data == nullptr || data->size() != sizeof(ExampleQuant64AsymmParams)) {
    return unsupported(context) << "an EXAMPLE_TENSOR_QUANT64_ASYMM output needs its ExampleQuant64AsymmParams ("
                                << sizeof(ExampleQuant64AsymmParams) << " bytes of extension data), has "
                                << (data == nullptr ? 0 : data->size());
  }
  ExampleQuant64AsymmParams params;
  std::memcpy(&params, data->data(), sizeof(params));
  if (!(params.scale > 0) || !std::isfinite(params.scale)) {
    return unsupported(context) << "the output's scale must be a finite number above 0, is " << params.scale;
  }
  return params;
}

Status validateFibonacci(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectCounts(context, {1}, 1));
  const Tensor& n = context.input(0);
  if (isInt64(context, n.type)) {
    if (!n.dimensions.empty()) return unsupported(context) << "EXAMPLE_INT64 n is a scalar";
  } else if (n.type == OperandType::TENSOR_FLOAT32) {
    if (!hal::hasUnspecifiedDimensions(n.type, n.dimensions) && n.elementCount() != 1) {
      return unsupported(context) << "a TENSOR_FLOAT32 n must hold exactly 1 element, has dimensions "
                                  << hal::toString(n.dimensions);
    }
  } else {
    return unsupported(context) << "n must be EXAMPLE_INT64 or TENSOR_FLOAT32, not " << static_cast<int32_t>(n.type);
  }
  const Tensor& output = context.output(0);
  if (isQuant64(context, output.type)) {
    NN_RETURN_IF_ERROR(quantization(context).status());
  } else if (output.type != OperandType::TENSOR_FLOAT32) {
    return unsupported(context) << "the output must be EXAMPLE_TENSOR_QUANT64_ASYMM or TENSOR_FLOAT32, not "
                                << static_cast<int32_t>(output.type);
  }
  if (output.rank() > 1) return unsupported(context) << "the output is 1-D";
  return {};
}

hal::Result<int64_t> readN(const OperationContext& context) {
  const Tensor& n = context.input(0);
  int64_t value;
  if (n.type == OperandType::TENSOR_FLOAT32) {
    if (n.elementCount() != 1) return unsupported(context) << "a TENSOR_FLOAT32 n must hold exactly 1 element";
    const float f = context.scalar<float>(0);
    // As the reference driver: converted toward zero; NaN and out-of-range values are refused.
    if (!(f >= -9.2e18f && f <= 9.2e18f)) return unsupported(context) << "n = " << f << " is not a number of terms";
    value = static_cast<int64_t>(f);
  } else {
    value = context.scalar<int64_t>(0);
  }
  if (value < 1 || value > kMaxN) {
    return unsupported(context) << "n = " << value << " must be between 1 and " << kMaxN;
  }
  return value;
}

Status prepareFibonacci(OperationContext& context) {
  NN_ASSIGN_OR_RETURN(const int64_t n, readN(context));
  context.output(0).dimensions = {static_cast<uint32_t>(n)};
  return {};
}

// A quantized value in the output's type. uint64 saturates at its ends (converting an
// out-of-range double is undefined in C++; the reference driver leaves it to the compiler).
template <typename T>
T toOutput(double value) {
  if constexpr (std::is_same_v<T, uint64_t>) {
    if (!(value > 0)) return 0;
    if (value >= 18446744073709551615.0) return UINT64_MAX;
  }
  return static_cast<T>(value);
}

template <typename T>
void computeSequence(int64_t n, double scale, int64_t zeroPoint, T* output) {
  output[0] = 1;
  if (n >= 2) output[1] = 1;
  for (int64_t i = 2; i < n; ++i) output[i] = output[i - 1] + output[i - 2];
  // Quantized in place, in the output's own arithmetic, as the reference driver does.
  for (int64_t i = 0; i < n; ++i) output[i] = toOutput<T>(output[i] / scale + static_cast<double>(zeroPoint));
}

Status executeFibonacci(OperationContext& context) {
  NN_ASSIGN_OR_RETURN(const int64_t n, readN(context));
  Tensor& output = context.output(0);
  if (output.type == OperandType::TENSOR_FLOAT32) {
    computeSequence(n, 1.0, 0, output.asMutable<float>());
  } else {
    NN_ASSIGN_OR_RETURN(const ExampleQuant64AsymmParams params, quantization(context));
    computeSequence(n, params.scale, params.zeroPoint, output.asMutable<uint64_t>());
  }
  return {};
}

// One add per term on the vector unit, and one multiply-add to quantize it.
OperationWork fibonacciWork(const OperationContext& context) {
  OperationWork work;
  work.vectorElements = 2 * context.output(0).elementCount();
  return work;
}

const OperationKernel kFibonacciKernel = {validateFibonacci, prepareFibonacci, executeFibonacci, fibonacciWork};

}  // namespace

const ExtensionDefinition kFibonacciExtension = {
    {fibonacci::kExtensionName,
     {{fibonacci::EXAMPLE_INT64, /*isTensor=*/false, /*byteSize=*/8},
      {fibonacci::EXAMPLE_TENSOR_QUANT64_ASYMM, /*isTensor=*/true, /*byteSize=*/8}}},
    {"EXAMPLE_INT64", "EXAMPLE_TENSOR_QUANT64_ASYMM"},
    {{fibonacci::EXAMPLE_FIBONACCI, "EXAMPLE_FIBONACCI", &kFibonacciKernel}},
};

}  // namespace nnremote::sim
