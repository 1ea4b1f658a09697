// com.example.fibonacci: AOSP's example vendor extension (packages/modules/NeuralNetworks,
// extensions/example/fibonacci), with the codes, layouts and semantics its header documents.
#ifndef NNREMOTE_DRIVERS_SIM_EXTENSIONS_FIBONACCI_H_
#define NNREMOTE_DRIVERS_SIM_EXTENSIONS_FIBONACCI_H_

#include <cstdint>

namespace nnremote::sim::fibonacci {

constexpr const char* kExtensionName = "com.example.fibonacci";

// Operand types within the extension.
enum : uint16_t {
  // A signed 64-bit integer scalar.
  EXAMPLE_INT64 = 0,
  // A tensor of unsigned 64-bit integers standing for real numbers:
  // real_value = (integer_value - zeroPoint) * scale, with ExampleQuant64AsymmParams attached
  // to the operand as its extension data.
  EXAMPLE_TENSOR_QUANT64_ASYMM = 1,
};

// Operations within the extension.
enum : uint16_t {
  // The Fibonacci sequence up to n.
  // Input 0: n, an EXAMPLE_INT64, or a TENSOR_FLOAT32 of exactly one element.
  // Output 0: a 1-D tensor of n elements, EXAMPLE_TENSOR_QUANT64_ASYMM or TENSOR_FLOAT32:
  // 1, 1, 2, 3, 5, ... each quantized as value / scale + zeroPoint (1 and 0 for float).
  // n must be at least 1.
  EXAMPLE_FIBONACCI = 0,
};

// The extension data of an EXAMPLE_TENSOR_QUANT64_ASYMM operand (16 bytes).
struct ExampleQuant64AsymmParams {
  double scale;
  int64_t zeroPoint;
};

}  // namespace nnremote::sim::fibonacci

#endif  // NNREMOTE_DRIVERS_SIM_EXTENSIONS_FIBONACCI_H_
