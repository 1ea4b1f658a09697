// Data movement: every operation here copies elements (or a fill value) to new places, so each
// is written once over bytes and serves every element type (float32, int32, quant8, bool8; and
// through lowering float16 and signed quant8). Each operation is an index mapping: an output
// coordinate names the input element it comes from, or the fill value.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "accelerator_sim/kernels/kernel_utils.h"
#include "accelerator_sim/operation_registry.h"

namespace nnremote::sim {
namespace {

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

// Row-major flat index of `coordinates` in `dims`.
int64_t flatIndex(const Coordinates& coordinates, const std::vector<uint32_t>& dims) {
  int64_t index = 0;
  for (size_t d = 0; d < dims.size(); ++d) index = index * dims[d] + coordinates[d];
  return index;
}

std::vector<int32_t> int32Values(const Tensor& t) {
  std::vector<int32_t> values(t.elementCount());
  if (!values.empty()) std::memcpy(values.data(), t.data, values.size() * sizeof(int32_t));
  return values;
}

// The bytes of the value padding writes: zero, or the zero point of a quantized tensor.
std::vector<uint8_t> zeroFill(const Tensor& t) {
  std::vector<uint8_t> fill(hal::elementSize(t.type), 0);
  if (t.type == OperandType::TENSOR_QUANT8_ASYMM || t.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    fill[0] = static_cast<uint8_t>(t.zeroPoint);
  }
  return fill;
}

// Signed quant8 reaches these kernels only for PAD_V2 (the others see it lowered to unsigned).
bool isMovableType(OperandType type) {
  return type == OperandType::TENSOR_FLOAT32 || type == OperandType::TENSOR_INT32 ||
         type == OperandType::TENSOR_QUANT8_ASYMM || type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ||
         type == OperandType::TENSOR_BOOL8;
}

// Input 0 and output 0 have one movable type and the same quantization.
Status expectMovable(const OperationContext& context) {
  const OperandType type = context.inputType(0);
  if (!isMovableType(type)) return unsupported(context) << hal::toString(type) << " is not implemented";
  for (size_t i = 0; i < context.outputCount(); ++i) {
    if (context.output(i).type != type) {
      return unsupported(context) << "output " << i << " must be " << hal::toString(type);
    }
  }
  return expectSameQuantizationAsInput(context);
}

hal::Result<uint32_t> axisOf(const OperationContext& context, int32_t axis, uint32_t rank) {
  if (axis < -int32_t(rank) || axis >= int32_t(rank)) {
    return unsupported(context) << "axis " << axis << " is out of range for rank " << rank;
  }
  return static_cast<uint32_t>(axis < 0 ? axis + int32_t(rank) : axis);
}

OperationWork movedElements(const OperationContext& context) {
  OperationWork work;
  for (size_t i = 0; i < context.outputCount(); ++i) work.vectorElements += context.output(i).elementCount();
  return work;
}

// Output 0's four dimensions, computed in 64 bits; refused if one does not fit the HAL's 32.
Status setOutputDimensions(OperationContext& context, const uint64_t (&dims)[4]) {
  for (uint64_t d : dims) {
    if (d > UINT32_MAX) return unsupported(context) << "the output would have a dimension of " << d;
  }
  context.output(0).dimensions = {uint32_t(dims[0]), uint32_t(dims[1]), uint32_t(dims[2]), uint32_t(dims[3])};
  return {};
}

// ---- SPACE_TO_DEPTH, DEPTH_TO_SPACE: input, block size, [layout] ----------------------------

template <bool kToDepth>
Status validateDepthSpace(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectMovable(context));
  NN_RETURN_IF_ERROR(expectNhwc(context, 2));
  if (context.input(0).rank() != 4) return unsupported(context) << "input must have rank 4";
  if (context.hasValue(1) && context.scalar<int32_t>(1) < 1) return unsupported(context) << "block size must be >= 1";
  return {};
}

template <bool kToDepth>
Status prepareDepthSpace(OperationContext& context) {
  const Tensor& in = context.input(0);
  // In 64 bits: a block of 65536 squared must not wrap to 0 (a division by zero) or shrink the
  // output below what the kernel writes.
  const uint64_t b = static_cast<uint64_t>(context.scalar<int32_t>(1));
  uint64_t dims[4];
  if (kToDepth) {
    if (in.dim(1) % b || in.dim(2) % b) return unsupported(context) << "height and width must divide by the block size";
    dims[0] = in.dim(0), dims[1] = in.dim(1) / b, dims[2] = in.dim(2) / b, dims[3] = in.dim(3) * b * b;
  } else {
    if (in.dim(3) % (b * b)) return unsupported(context) << "depth must divide by block size squared";
    dims[0] = in.dim(0), dims[1] = in.dim(1) * b, dims[2] = in.dim(2) * b, dims[3] = in.dim(3) / (b * b);
  }
  return setOutputDimensions(context, dims);
}

template <bool kToDepth>
Status executeDepthSpace(OperationContext& context) {
  const Tensor& in = context.input(0);
  Tensor& out = context.output(0);
  const uint32_t b = static_cast<uint32_t>(context.scalar<int32_t>(1));
  gatherElements(in, out, nullptr, [&](const Coordinates& o) -> int64_t {
    if (kToDepth) {
      const uint32_t channels = in.dim(3), block = o[3] / channels, c = o[3] % channels;
      return flatIndex({o[0], o[1] * b + block / b, o[2] * b + block % b, c}, in.dimensions);
    }
    const uint32_t channels = out.dim(3);
    const uint32_t block = (o[1] % b) * b + o[2] % b;
    return flatIndex({o[0], o[1] / b, o[2] / b, block * channels + o[3]}, in.dimensions);
  });
  return {};
}

int layoutAt2(const OperationContext&) { return 2; }
int layoutAt3(const OperationContext&) { return 3; }

// ---- SPACE_TO_BATCH_ND (input, block [2], paddings [2, 2], [layout]) ------------------------
// ---- BATCH_TO_SPACE_ND (input, block [2], [layout]) -----------------------------------------

template <bool kToBatch>
Status validateSpaceBatch(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectMovable(context));
  NN_RETURN_IF_ERROR(expectNhwc(context, kToBatch ? 3 : 2));
  if (context.input(0).rank() != 4) return unsupported(context) << "input must have rank 4";
  return {};
}

template <bool kToBatch>
Status prepareSpaceBatch(OperationContext& context) {
  const Tensor& in = context.input(0);
  const auto block = int32Values(context.input(1));
  if (block.size() != 2 || block[0] < 1 || block[1] < 1) return unsupported(context) << "block shape must be 2 positive values";
  // In 64 bits: a block of 65536 x 65536 must not wrap to 0 (a division by zero) or shrink the
  // output below what the kernel writes.
  const uint64_t bh = uint64_t(block[0]), bw = uint64_t(block[1]);
  uint64_t dims[4];
  if (kToBatch) {
    const auto pad = int32Values(context.input(2));
    if (pad.size() != 4 || *std::min_element(pad.begin(), pad.end()) < 0) {
      return unsupported(context) << "paddings must be [2, 2] non-negative values";
    }
    const uint64_t h = uint64_t(in.dim(1)) + pad[0] + pad[1], w = uint64_t(in.dim(2)) + pad[2] + pad[3];
    if (h % bh || w % bw) return unsupported(context) << "padded height and width must divide by the block";
    dims[0] = in.dim(0) * bh * bw, dims[1] = h / bh, dims[2] = w / bw, dims[3] = in.dim(3);
  } else {
    if (in.dim(0) % (bh * bw)) return unsupported(context) << "batch must divide by the block size";
    dims[0] = in.dim(0) / (bh * bw), dims[1] = in.dim(1) * bh, dims[2] = in.dim(2) * bw, dims[3] = in.dim(3);
  }
  return setOutputDimensions(context, dims);
}

template <bool kToBatch>
Status executeSpaceBatch(OperationContext& context) {
  const Tensor& in = context.input(0);
  Tensor& out = context.output(0);
  const auto block = int32Values(context.input(1));
  const uint32_t bh = block[0], bw = block[1];
  const std::vector<uint8_t> fill = zeroFill(in);
  if (kToBatch) {
    const auto pad = int32Values(context.input(2));
    const uint32_t batches = in.dim(0);
    gatherElements(in, out, fill.data(), [&](const Coordinates& o) -> int64_t {
      const uint32_t n = o[0] % batches, offset = o[0] / batches;
      const int64_t y = int64_t(o[1]) * bh + offset / bw - pad[0];
      const int64_t x = int64_t(o[2]) * bw + offset % bw - pad[2];
      if (y < 0 || x < 0 || y >= in.dim(1) || x >= in.dim(2)) return -1;
      return flatIndex({n, uint32_t(y), uint32_t(x), o[3]}, in.dimensions);
    });
  } else {
    const uint32_t batches = out.dim(0);
    gatherElements(in, out, nullptr, [&](const Coordinates& o) -> int64_t {
      const uint32_t offset = (o[1] % bh) * bw + o[2] % bw;
      return flatIndex({offset * batches + o[0], o[1] / bh, o[2] / bw, o[3]}, in.dimensions);
    });
  }
  return {};
}

// ---- CHANNEL_SHUFFLE (input, groups, axis) --------------------------------------------------

Status validateChannelShuffle(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectMovable(context));
  return {};
}

Status prepareSame(OperationContext& context) {
  context.output(0).dimensions = context.input(0).dimensions;
  return {};
}

Status executeChannelShuffle(OperationContext& context) {
  const Tensor& in = context.input(0);
  NN_ASSIGN_OR_RETURN(const uint32_t axis, axisOf(context, context.scalar<int32_t>(2), in.rank()));
  const int32_t groups = context.scalar<int32_t>(1);
  const uint32_t channels = in.dim(axis);
  if (groups < 1 || channels % groups) return unsupported(context) << "channels must divide by the groups";
  const uint32_t perGroup = channels / groups;
  gatherElements(in, context.output(0), nullptr, [&](const Coordinates& o) {
    Coordinates i = o;
    // Output channel k * groups + g comes from input channel g * perGroup + k.
    i[axis] = (o[axis] % groups) * perGroup + o[axis] / groups;
    return flatIndex(i, in.dimensions);
  });
  return {};
}

// ---- TRANSPOSE (input, [perm]) --------------------------------------------------------------

Status validateTranspose(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectMovable(context));
  return {};
}

std::vector<uint32_t> permutationOf(const OperationContext& context) {
  const uint32_t rank = context.input(0).rank();
  std::vector<uint32_t> perm(rank);
  if (context.inputCount() == 2 && !context.input(1).isOmitted) {
    const auto values = int32Values(context.input(1));
    for (uint32_t d = 0; d < rank && d < values.size(); ++d) perm[d] = uint32_t(values[d]);
  } else {
    for (uint32_t d = 0; d < rank; ++d) perm[d] = rank - 1 - d;
  }
  return perm;
}

Status prepareTranspose(OperationContext& context) {
  const Tensor& in = context.input(0);
  const auto perm = permutationOf(context);
  std::vector<bool> used(in.rank(), false);
  for (uint32_t p : perm) {
    if (p >= in.rank() || used[p]) return unsupported(context) << "perm is not a permutation of the dimensions";
    used[p] = true;
  }
  std::vector<uint32_t> dims(in.rank());
  for (uint32_t d = 0; d < in.rank(); ++d) dims[d] = in.dim(perm[d]);
  context.output(0).dimensions = dims;
  return {};
}

Status executeTranspose(OperationContext& context) {
  const Tensor& in = context.input(0);
  const auto perm = permutationOf(context);
  gatherElements(in, context.output(0), nullptr, [&](const Coordinates& o) {
    Coordinates i(in.rank());
    for (uint32_t d = 0; d < in.rank(); ++d) i[perm[d]] = o[d];
    return flatIndex(i, in.dimensions);
  });
  return {};
}

// ---- SQUEEZE (input, [axes]), EXPAND_DIMS (input, axis): shape only -------------------------

Status copyAll(OperationContext& context) {
  const Tensor& in = context.input(0);
  const size_t bytes = in.elementCount() * hal::elementSize(in.type);
  if (bytes) std::memmove(context.output(0).data, in.data, bytes);
  return {};
}

Status validateSqueeze(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectMovable(context));
  return {};
}

Status prepareSqueeze(OperationContext& context) {
  const Tensor& in = context.input(0);
  std::vector<bool> squeeze(in.rank(), false);
  if (context.inputCount() == 2 && !context.input(1).isOmitted && context.input(1).elementCount() > 0) {
    for (int32_t axis : int32Values(context.input(1))) {
      NN_ASSIGN_OR_RETURN(const uint32_t d, axisOf(context, axis, in.rank()));
      if (in.dim(d) != 1) return unsupported(context) << "dimension " << d << " is not 1";
      squeeze[d] = true;
    }
  } else {
    for (uint32_t d = 0; d < in.rank(); ++d) squeeze[d] = in.dim(d) == 1;
  }
  std::vector<uint32_t> dims;
  for (uint32_t d = 0; d < in.rank(); ++d) {
    if (!squeeze[d]) dims.push_back(in.dim(d));
  }
  if (dims.empty()) dims.push_back(1);  // NNAPI has no rank-0 tensors
  context.output(0).dimensions = dims;
  return {};
}

Status validateExpandDims(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectMovable(context));
  return {};
}

Status prepareExpandDims(OperationContext& context) {
  std::vector<uint32_t> dims = context.input(0).dimensions;
  NN_ASSIGN_OR_RETURN(const uint32_t axis, axisOf(context, context.scalar<int32_t>(1), uint32_t(dims.size()) + 1));
  dims.insert(dims.begin() + axis, 1);
  context.output(0).dimensions = dims;
  return {};
}

// ---- GATHER (input, axis, indices) ----------------------------------------------------------

Status validateGather(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectMovable(context));
  return {};
}

Status prepareGather(OperationContext& context) {
  const Tensor& in = context.input(0);
  NN_ASSIGN_OR_RETURN(const uint32_t axis, axisOf(context, context.scalar<int32_t>(1), in.rank()));
  std::vector<uint32_t> dims(in.dimensions.begin(), in.dimensions.begin() + axis);
  const auto& indices = context.input(2).dimensions;
  dims.insert(dims.end(), indices.begin(), indices.end());
  dims.insert(dims.end(), in.dimensions.begin() + axis + 1, in.dimensions.end());
  context.output(0).dimensions = dims;
  return {};
}

Status executeGather(OperationContext& context) {
  const Tensor& in = context.input(0);
  const uint32_t axis = *axisOf(context, context.scalar<int32_t>(1), in.rank());
  const auto indices = int32Values(context.input(2));
  for (int32_t index : indices) {
    if (index < 0 || uint32_t(index) >= in.dim(axis)) {
      return unsupported(context) << "index " << index << " is out of range for dimension " << in.dim(axis);
    }
  }
  const uint32_t indexRank = context.input(2).rank();
  gatherElements(in, context.output(0), nullptr, [&](const Coordinates& o) {
    Coordinates i(o.begin(), o.begin() + axis);
    Coordinates where(o.begin() + axis, o.begin() + axis + indexRank);
    i.push_back(uint32_t(indices[flatIndex(where, context.input(2).dimensions)]));
    i.insert(i.end(), o.begin() + axis + indexRank, o.end());
    return flatIndex(i, in.dimensions);
  });
  return {};
}

// ---- SLICE (input, begin, size), STRIDED_SLICE (input, begin, end, strides, masks x3) --------

Status validateSlice(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectMovable(context));
  return {};
}

Status sliceBounds(const OperationContext& context, std::vector<uint32_t>* begin, std::vector<uint32_t>* size) {
  const Tensor& in = context.input(0);
  const auto b = int32Values(context.input(1)), s = int32Values(context.input(2));
  if (b.size() != in.rank() || s.size() != in.rank()) return unsupported(context) << "begin and size need one entry per dimension";
  begin->resize(in.rank());
  size->resize(in.rank());
  for (uint32_t d = 0; d < in.rank(); ++d) {
    const int64_t length = s[d] == -1 ? int64_t(in.dim(d)) - b[d] : s[d];
    if (b[d] < 0 || length < 0 || b[d] + length > in.dim(d)) {
      return unsupported(context) << "slice [" << b[d] << ", +" << s[d] << ") leaves dimension " << d;
    }
    (*begin)[d] = uint32_t(b[d]);
    (*size)[d] = uint32_t(length);
  }
  return {};
}

Status prepareSlice(OperationContext& context) {
  std::vector<uint32_t> begin, size;
  NN_RETURN_IF_ERROR(sliceBounds(context, &begin, &size));
  context.output(0).dimensions = size;
  return {};
}

Status executeSlice(OperationContext& context) {
  std::vector<uint32_t> begin, size;
  NN_RETURN_IF_ERROR(sliceBounds(context, &begin, &size));
  const Tensor& in = context.input(0);
  gatherElements(in, context.output(0), nullptr, [&](const Coordinates& o) {
    Coordinates i(o.size());
    for (size_t d = 0; d < o.size(); ++d) i[d] = o[d] + begin[d];
    return flatIndex(i, in.dimensions);
  });
  return {};
}

Status validateStridedSlice(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectMovable(context));
  return {};
}

// Per input dimension: start, stride and count, with TensorFlow's masks and clamping.
struct StridedAxis {
  int64_t start = 0, stride = 1, count = 0;
  bool shrink = false;
};

hal::Result<std::vector<StridedAxis>> stridedAxes(const OperationContext& context) {
  const Tensor& in = context.input(0);
  const auto begin = int32Values(context.input(1)), end = int32Values(context.input(2)),
             strides = int32Values(context.input(3));
  const int32_t beginMask = context.scalar<int32_t>(4), endMask = context.scalar<int32_t>(5),
                shrinkMask = context.scalar<int32_t>(6);
  if (begin.size() != in.rank() || end.size() != in.rank() || strides.size() != in.rank()) {
    return unsupported(context) << "begin, end and strides need one entry per dimension";
  }
  std::vector<StridedAxis> axes(in.rank());
  for (uint32_t d = 0; d < in.rank(); ++d) {
    const int64_t dim = in.dim(d), stride = strides[d];
    if (stride == 0) return unsupported(context) << "strides[" << d << "] is 0";
    auto clamp = [&](int64_t v) {
      if (v < 0) v += dim;
      if (stride > 0) return std::min(std::max<int64_t>(v, 0), dim);
      return std::min(std::max<int64_t>(v, -1), dim - 1);
    };
    int64_t start = (beginMask >> d) & 1 ? (stride > 0 ? 0 : dim - 1) : clamp(begin[d]);
    int64_t stop = (endMask >> d) & 1 ? (stride > 0 ? dim : -1) : clamp(end[d]);
    StridedAxis& axis = axes[d];
    axis.shrink = (shrinkMask >> d) & 1;
    axis.start = start;
    axis.stride = stride;
    const int64_t span = stride > 0 ? stop - start : start - stop;
    axis.count = span <= 0 ? 0 : (span + std::abs(stride) - 1) / std::abs(stride);
    // As in AOSP: a shrunk axis must select exactly one element, going forward.
    if (axis.shrink && (stride < 0 || axis.count != 1)) {
      return unsupported(context) << "shrink_axis_mask removes dimension " << d
                                  << ", which must then select exactly one element with a positive stride";
    }
  }
  return axes;
}

Status prepareStridedSlice(OperationContext& context) {
  NN_ASSIGN_OR_RETURN(const auto axes, stridedAxes(context));
  std::vector<uint32_t> dims;
  for (const auto& axis : axes) {
    if (!axis.shrink) dims.push_back(uint32_t(axis.count));
  }
  // NNAPI has no rank-0 tensors: shrinking every axis leaves one element of rank 1.
  if (dims.empty()) dims.push_back(1);
  context.output(0).dimensions = dims;
  return {};
}

Status executeStridedSlice(OperationContext& context) {
  NN_ASSIGN_OR_RETURN(const auto axes, stridedAxes(context));
  const Tensor& in = context.input(0);
  gatherElements(in, context.output(0), nullptr, [&](const Coordinates& o) {
    Coordinates i(in.rank());
    size_t k = 0;
    for (uint32_t d = 0; d < in.rank(); ++d) {
      const int64_t position = axes[d].shrink ? 0 : o[k++];
      i[d] = uint32_t(axes[d].start + position * axes[d].stride);
    }
    return flatIndex(i, in.dimensions);
  });
  return {};
}

// ---- SPLIT (input, axis, splits) -> splits outputs ------------------------------------------

Status validateSplit(const OperationContext& context) {
  if (context.inputCount() != 3 || context.outputCount() < 1) return unsupported(context) << "takes 3 inputs";
  NN_RETURN_IF_ERROR(expectMovable(context));
  if (context.hasValue(2) && size_t(context.scalar<int32_t>(2)) != context.outputCount()) {
    return unsupported(context) << "num_splits differs from the number of outputs";
  }
  return {};
}

Status prepareSplit(OperationContext& context) {
  const Tensor& in = context.input(0);
  NN_ASSIGN_OR_RETURN(const uint32_t axis, axisOf(context, context.scalar<int32_t>(1), in.rank()));
  const uint32_t splits = uint32_t(context.outputCount());
  if (in.dim(axis) % splits) return unsupported(context) << "dimension " << axis << " does not divide into " << splits;
  for (size_t i = 0; i < context.outputCount(); ++i) {
    context.output(i).dimensions = in.dimensions;
    context.output(i).dimensions[axis] = in.dim(axis) / splits;
  }
  return {};
}

Status executeSplit(OperationContext& context) {
  const Tensor& in = context.input(0);
  const uint32_t axis = *axisOf(context, context.scalar<int32_t>(1), in.rank());
  for (size_t s = 0; s < context.outputCount(); ++s) {
    Tensor& out = context.output(s);
    const uint32_t offset = uint32_t(s) * out.dim(axis);
    gatherElements(in, out, nullptr, [&](const Coordinates& o) {
      Coordinates i = o;
      i[axis] += offset;
      return flatIndex(i, in.dimensions);
    });
  }
  return {};
}

// ---- TILE (input, multiples) ----------------------------------------------------------------

Status validateTile(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectMovable(context));
  return {};
}

Status prepareTile(OperationContext& context) {
  const Tensor& in = context.input(0);
  const auto multiples = int32Values(context.input(1));
  if (multiples.size() != in.rank()) return unsupported(context) << "multiples needs one entry per dimension";
  std::vector<uint32_t> dims(in.rank());
  for (uint32_t d = 0; d < in.rank(); ++d) {
    if (multiples[d] < 0) return unsupported(context) << "multiples must not be negative";
    dims[d] = in.dim(d) * uint32_t(multiples[d]);
  }
  context.output(0).dimensions = dims;
  return {};
}

Status executeTile(OperationContext& context) {
  const Tensor& in = context.input(0);
  gatherElements(in, context.output(0), nullptr, [&](const Coordinates& o) {
    Coordinates i(o.size());
    for (size_t d = 0; d < o.size(); ++d) i[d] = o[d] % in.dim(d);
    return flatIndex(i, in.dimensions);
  });
  return {};
}

// ---- PAD (input, paddings), PAD_V2 (input, paddings, value), MIRROR_PAD (..., mode) ---------

template <OperationType kType>
Status validatePad(const OperationContext& context) {
  return expectMovable(context);
}

hal::Result<std::vector<std::pair<uint32_t, uint32_t>>> paddingsOf(const OperationContext& context) {
  const Tensor& in = context.input(0);
  const auto values = int32Values(context.input(1));
  if (values.size() != 2 * size_t(in.rank())) return unsupported(context) << "paddings must be [rank, 2]";
  std::vector<std::pair<uint32_t, uint32_t>> pads(in.rank());
  for (uint32_t d = 0; d < in.rank(); ++d) {
    if (values[2 * d] < 0 || values[2 * d + 1] < 0) return unsupported(context) << "paddings must not be negative";
    pads[d] = {uint32_t(values[2 * d]), uint32_t(values[2 * d + 1])};
  }
  return pads;
}

Status preparePad(OperationContext& context) {
  NN_ASSIGN_OR_RETURN(const auto pads, paddingsOf(context));
  std::vector<uint32_t> dims = context.input(0).dimensions;
  for (size_t d = 0; d < dims.size(); ++d) dims[d] += pads[d].first + pads[d].second;
  context.output(0).dimensions = dims;
  return {};
}

template <OperationType kType>
Status executePad(OperationContext& context) {
  NN_ASSIGN_OR_RETURN(const auto pads, paddingsOf(context));
  const Tensor& in = context.input(0);
  std::vector<uint8_t> fill = zeroFill(in);
  if (kType == OperationType::PAD_V2) {
    if (in.type == OperandType::TENSOR_FLOAT32) {
      std::memcpy(fill.data(), context.input(2).data, sizeof(float));
    } else {
      fill[0] = static_cast<uint8_t>(context.scalar<int32_t>(2));
    }
  }
  const bool mirror = kType == OperationType::MIRROR_PAD;
  const bool symmetric = mirror && context.scalar<int32_t>(2) == 1;
  if (mirror) {
    for (size_t d = 0; d < pads.size(); ++d) {
      const uint32_t limit = symmetric ? in.dim(d) : in.dim(d) - 1;
      if (pads[d].first > limit || pads[d].second > limit) {
        return unsupported(context) << "mirror padding of dimension " << d << " exceeds " << limit;
      }
    }
  }
  // One coordinate buffer for every element: allocating per element made a 64 MiB padded output
  // take seconds (model_validation_fuzzer's one timeout, under ASan).
  Coordinates i(in.rank());
  gatherElements(in, context.output(0), fill.data(), [&](const Coordinates& o) -> int64_t {
    for (size_t d = 0; d < o.size(); ++d) {
      int64_t v = int64_t(o[d]) - pads[d].first;
      const int64_t n = in.dim(d);
      if (v < 0 || v >= n) {
        if (!mirror) return -1;
        if (v < 0) v = symmetric ? -v - 1 : -v;
        if (v >= n) v = symmetric ? 2 * n - v - 1 : 2 * n - v - 2;
      }
      i[d] = uint32_t(v);
    }
    return flatIndex(i, in.dimensions);
  });
  return {};
}

// ---- REVERSE (input, axis [1]) --------------------------------------------------------------

Status validateReverse(const OperationContext& context) {
  NN_RETURN_IF_ERROR(expectMovable(context));
  return {};
}

Status executeReverse(OperationContext& context) {
  const Tensor& in = context.input(0);
  const auto axes = int32Values(context.input(1));
  if (axes.size() != 1) return unsupported(context) << "axis must have one entry";
  NN_ASSIGN_OR_RETURN(const uint32_t axis, axisOf(context, axes[0], in.rank()));
  gatherElements(in, context.output(0), nullptr, [&](const Coordinates& o) {
    Coordinates i = o;
    i[axis] = in.dim(axis) - 1 - o[axis];
    return flatIndex(i, in.dimensions);
  });
  return {};
}

// ---- PACK (axis, tensors...) ----------------------------------------------------------------

Status validatePack(const OperationContext& context) {
  if (context.inputCount() < 2 || context.outputCount() != 1) return unsupported(context) << "needs an axis and tensors";
  const OperandType type = context.inputType(1);
  if (!isMovableType(type)) return unsupported(context) << hal::toString(type) << " is not implemented";
  for (size_t i = 1; i < context.inputCount(); ++i) {
    const Tensor& t = context.input(i);
    if (type == OperandType::TENSOR_QUANT8_ASYMM &&
        (t.scale != context.output(0).scale || t.zeroPoint != context.output(0).zeroPoint)) {
      return unsupported(context) << "inputs must share the output's quantization";
    }
  }
  return {};
}

Status preparePack(OperationContext& context) {
  std::vector<uint32_t> dims = context.input(1).dimensions;
  for (size_t i = 2; i < context.inputCount(); ++i) {
    if (context.input(i).dimensions != dims) return unsupported(context) << "inputs must have one shape";
  }
  NN_ASSIGN_OR_RETURN(const uint32_t axis, axisOf(context, context.scalar<int32_t>(0), uint32_t(dims.size()) + 1));
  dims.insert(dims.begin() + axis, uint32_t(context.inputCount() - 1));
  context.output(0).dimensions = dims;
  return {};
}

Status executePack(OperationContext& context) {
  Tensor& out = context.output(0);
  const uint32_t axis = *axisOf(context, context.scalar<int32_t>(0), out.rank());
  const size_t elementSize = hal::elementSize(out.type);
  Coordinates o(out.rank(), 0);
  for (size_t k = 0; k < out.elementCount(); ++k) {
    const Tensor& in = context.input(1 + o[axis]);
    Coordinates i = o;
    i.erase(i.begin() + axis);
    std::memcpy(out.data + k * elementSize, in.data + size_t(flatIndex(i, in.dimensions)) * elementSize, elementSize);
    for (size_t d = o.size(); d-- > 0;) {
      if (++o[d] < out.dim(d)) break;
      o[d] = 0;
    }
  }
  return {};
}

}  // namespace

const OperationKernel kSpaceToDepthKernel = {&validateDepthSpace<true>, &prepareDepthSpace<true>,
                                             &executeDepthSpace<true>, &movedElements, &layoutAt2};
NNREMOTE_REGISTER_KERNEL(OperationType::SPACE_TO_DEPTH, kSpaceToDepthKernel);
const OperationKernel kDepthToSpaceKernel = {&validateDepthSpace<false>, &prepareDepthSpace<false>,
                                             &executeDepthSpace<false>, &movedElements, &layoutAt2};
NNREMOTE_REGISTER_KERNEL(OperationType::DEPTH_TO_SPACE, kDepthToSpaceKernel);
const OperationKernel kSpaceToBatchNdKernel = {&validateSpaceBatch<true>, &prepareSpaceBatch<true>,
                                               &executeSpaceBatch<true>, &movedElements, &layoutAt3};
NNREMOTE_REGISTER_KERNEL(OperationType::SPACE_TO_BATCH_ND, kSpaceToBatchNdKernel);
const OperationKernel kBatchToSpaceNdKernel = {&validateSpaceBatch<false>, &prepareSpaceBatch<false>,
                                               &executeSpaceBatch<false>, &movedElements, &layoutAt2};
NNREMOTE_REGISTER_KERNEL(OperationType::BATCH_TO_SPACE_ND, kBatchToSpaceNdKernel);
const OperationKernel kChannelShuffleKernel = {&validateChannelShuffle, &prepareSame, &executeChannelShuffle,
                                               &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::CHANNEL_SHUFFLE, kChannelShuffleKernel);
const OperationKernel kTransposeKernel = {&validateTranspose, &prepareTranspose, &executeTranspose, &movedElements,
    /*layoutOperand=*/nullptr, /*layoutShapeOperand=*/nullptr, /*takesOmittedTensors=*/true};
NNREMOTE_REGISTER_KERNEL(OperationType::TRANSPOSE, kTransposeKernel);
const OperationKernel kSqueezeKernel = {&validateSqueeze, &prepareSqueeze, &copyAll, &movedElements,
    /*layoutOperand=*/nullptr, /*layoutShapeOperand=*/nullptr, /*takesOmittedTensors=*/true};
NNREMOTE_REGISTER_KERNEL(OperationType::SQUEEZE, kSqueezeKernel);
const OperationKernel kExpandDimsKernel = {&validateExpandDims, &prepareExpandDims, &copyAll, &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::EXPAND_DIMS, kExpandDimsKernel);
const OperationKernel kGatherKernel = {&validateGather, &prepareGather, &executeGather, &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::GATHER, kGatherKernel);
const OperationKernel kSliceKernel = {&validateSlice, &prepareSlice, &executeSlice, &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::SLICE, kSliceKernel);
const OperationKernel kStridedSliceKernel = {&validateStridedSlice, &prepareStridedSlice, &executeStridedSlice,
                                             &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::STRIDED_SLICE, kStridedSliceKernel);
const OperationKernel kSplitKernel = {&validateSplit, &prepareSplit, &executeSplit, &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::SPLIT, kSplitKernel);
const OperationKernel kTileKernel = {&validateTile, &prepareTile, &executeTile, &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::TILE, kTileKernel);
const OperationKernel kPadKernel = {&validatePad<OperationType::PAD>, &preparePad,
                                    &executePad<OperationType::PAD>, &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::PAD, kPadKernel);
const OperationKernel kPadV2Kernel = {&validatePad<OperationType::PAD_V2>, &preparePad,
                                      &executePad<OperationType::PAD_V2>, &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::PAD_V2, kPadV2Kernel);
const OperationKernel kMirrorPadKernel = {&validatePad<OperationType::MIRROR_PAD>, &preparePad,
                                          &executePad<OperationType::MIRROR_PAD>, &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::MIRROR_PAD, kMirrorPadKernel);
const OperationKernel kReverseKernel = {&validateReverse, &prepareSame, &executeReverse, &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::REVERSE, kReverseKernel);
const OperationKernel kPackKernel = {&validatePack, &preparePack, &executePack, &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::PACK, kPackKernel);

}  // namespace nnremote::sim
