// com.nnremote.transformer: nnremote's own vendor extension, the kind an NPU vendor ships for
// transformer models. NNAPI has no GELU, so a framework would otherwise run FULLY_CONNECTED on
// the NPU and the activation elsewhere, sending the intermediate through memory twice.
#ifndef NNREMOTE_DRIVERS_SIM_EXTENSIONS_TRANSFORMER_H_
#define NNREMOTE_DRIVERS_SIM_EXTENSIONS_TRANSFORMER_H_

#include <cstdint>

namespace nnremote::sim::transformer {

constexpr const char* kExtensionName = "com.nnremote.transformer";

// Operations within the extension.
enum : uint16_t {
  // output = GELU(input * weights^T + bias), in one pass of the systolic array: the activation is
  // applied by the vector unit as results drain from the array, so the pre-activation tensor
  // never leaves SRAM. GELU is the tanh approximation,
  //   gelu(x) = 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
  // Input 0: TENSOR_FLOAT32 of rank 1 to 4, read as [batches, inputSize].
  // Input 1: weights, TENSOR_FLOAT32 [units, inputSize].
  // Input 2: bias, TENSOR_FLOAT32 [units].
  // Output 0: TENSOR_FLOAT32 [batches, units].
  NNREMOTE_FULLY_CONNECTED_GELU = 0,
};

// Vector-unit cycles per output element for the GELU (tanh as LOGISTIC/TANH cost, plus the
// polynomial): what the timing model charges on top of the array's GEMM.
constexpr uint64_t kGeluCyclesPerElement = 6;

}  // namespace nnremote::sim::transformer

#endif  // NNREMOTE_DRIVERS_SIM_EXTENSIONS_TRANSFORMER_H_
