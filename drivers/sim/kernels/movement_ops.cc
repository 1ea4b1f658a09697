// Data movement: every operation here copies elements (or a fill value) to new places, so each
// is written once over bytes and serves every element type (float32, int32, quant8, bool8; and
// through lowering float16 and signed quant8). Each operation is an index mapping: an output
// coordinate names the input element it comes from, or the fill value (movement_utils.h).
// Slicing operations are in slice_ops.cc, the space/depth/batch block moves in
// space_depth_batch_ops.cc.
#include <cstring>
#include <utility>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/kernels/movement_utils.h"
#include "drivers/sim/operation_registry.h"

namespace nnremote::sim {
namespace {

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
