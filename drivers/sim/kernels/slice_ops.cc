// GATHER, SLICE, STRIDED_SLICE and SPLIT: operations that copy part of their input (chosen by
// indices, bounds or strides) or, for SPLIT, cut it into equal parts.
#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/kernels/movement_utils.h"
#include "drivers/sim/operation_registry.h"

namespace nnremote::sim {
namespace {

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
  if (b.size() != in.rank() || s.size() != in.rank()) {
    return unsupported(context) << "begin and size need one entry per dimension";
  }
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

}  // namespace

const OperationKernel kGatherKernel = {&validateGather, &prepareGather, &executeGather, &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::GATHER, kGatherKernel);
const OperationKernel kSliceKernel = {&validateSlice, &prepareSlice, &executeSlice, &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::SLICE, kSliceKernel);
const OperationKernel kStridedSliceKernel = {&validateStridedSlice, &prepareStridedSlice, &executeStridedSlice,
                                             &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::STRIDED_SLICE, kStridedSliceKernel);
const OperationKernel kSplitKernel = {&validateSplit, &prepareSplit, &executeSplit, &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::SPLIT, kSplitKernel);

}  // namespace nnremote::sim
