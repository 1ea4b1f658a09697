// SPACE_TO_DEPTH, DEPTH_TO_SPACE, SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND: blocks of an NHWC
// feature map's height and width moved into its channels or its batch, and back.
#include <algorithm>
#include <cstdint>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/kernels/movement_utils.h"
#include "drivers/sim/operation_registry.h"

namespace nnremote::sim {
namespace {

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
  if (block.size() != 2 || block[0] < 1 || block[1] < 1) {
    return unsupported(context) << "block shape must be 2 positive values";
  }
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

}  // namespace nnremote::sim
