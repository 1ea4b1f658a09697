// Shared by the data-movement kernels (movement_ops.cc, slice_ops.cc, space_depth_batch_ops.cc).
// Each of their operations is an index mapping: an output coordinate names the input element it
// copies, or the fill value; so each is written once over bytes and serves every element type.
#ifndef NNREMOTE_DRIVERS_SIM_KERNELS_MOVEMENT_UTILS_H_
#define NNREMOTE_DRIVERS_SIM_KERNELS_MOVEMENT_UTILS_H_

#include <cstdint>
#include <cstring>
#include <vector>

#include "drivers/sim/operation_context.h"
#include "drivers/sim/timing/operation_work.h"

namespace nnremote::sim {

using Coordinates = std::vector<uint32_t>;

// Calls sourceOf(outputCoordinates) for every output element in row-major order. It returns the
// row-major input coordinates as a flat element index, or -1 for the fill value.
template <typename SourceOf>
void gatherElements(const Tensor& in, Tensor& out, const uint8_t* fill, SourceOf&& sourceOf) {
  const size_t elementSize = hal::elementSize(out.type);
  const size_t count = out.elementCount();
  Coordinates coordinates(out.rank(), 0);
  for (size_t i = 0; i < count; ++i) {
    const int64_t source = sourceOf(coordinates);
    std::memcpy(out.data + i * elementSize, source < 0 ? fill : in.data + size_t(source) * elementSize, elementSize);
    for (size_t d = coordinates.size(); d-- > 0;) {
      if (++coordinates[d] < out.dim(d)) break;
      coordinates[d] = 0;
    }
  }
}

// Row-major flat index of `coordinates` in `dims`. Inline: it runs once per element.
inline int64_t flatIndex(const Coordinates& coordinates, const std::vector<uint32_t>& dims) {
  int64_t index = 0;
  for (size_t d = 0; d < dims.size(); ++d) index = index * dims[d] + coordinates[d];
  return index;
}

// The elements of an int32 tensor (block shapes, paddings, axes, indices).
std::vector<int32_t> int32Values(const Tensor& t);

// The bytes of the value padding writes: zero, or the zero point of a quantized tensor.
std::vector<uint8_t> zeroFill(const Tensor& t);

// Signed quant8 reaches these kernels only for PAD_V2 (the others see it lowered to unsigned).
bool isMovableType(OperandType type);

// Input 0 and output 0 have one movable type and the same quantization.
Status expectMovable(const OperationContext& context);

// `axis` in [-rank, rank), made non-negative.
hal::Result<uint32_t> axisOf(const OperationContext& context, int32_t axis, uint32_t rank);

// The timing model's work: one vector element per element written.
OperationWork movedElements(const OperationContext& context);

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_KERNELS_MOVEMENT_UTILS_H_
