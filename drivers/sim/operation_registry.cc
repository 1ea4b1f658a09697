#include "drivers/sim/operation_registry.h"

#include <array>
#include <cstdio>
#include <cstdlib>

namespace nnremote::sim {
namespace {

using Registry = std::array<const OperationKernel*, hal::kLastOperationType + 1>;

// Filled while the program loads, read-only afterwards.
Registry& registry() {
  static Registry kernels{};
  return kernels;
}

}  // namespace

bool registerKernel(OperationType type, const OperationKernel* kernel) {
  const int32_t code = static_cast<int32_t>(type);
  if (code < 0 || code > hal::kLastOperationType || registry()[code] != nullptr) {
    std::fprintf(stderr, "nnremote: kernel for operation %d registered twice or out of range\n", code);
    std::abort();
  }
  registry()[code] = kernel;
  return true;
}

const OperationKernel* findKernel(OperationType type) {
  const int32_t code = static_cast<int32_t>(type);
  if (code < 0 || code > hal::kLastOperationType) return nullptr;
  return registry()[code];
}

}  // namespace nnremote::sim
