#include "accelerator_sim/operation_registry.h"

#include <unordered_map>

#include "accelerator_sim/kernels/kernels.h"

namespace nnremote::sim {

const OperationKernel* findKernel(OperationType type) {
  static const auto* const kKernels = new std::unordered_map<OperationType, const OperationKernel*>{
      {OperationType::ADD, &kAddKernel},
      {OperationType::SUB, &kSubKernel},
      {OperationType::MUL, &kMulKernel},
      {OperationType::DIV, &kDivKernel},
      {OperationType::RELU, &kReluKernel},
      {OperationType::RELU1, &kRelu1Kernel},
      {OperationType::RELU6, &kRelu6Kernel},
      {OperationType::LOGISTIC, &kLogisticKernel},
      {OperationType::TANH, &kTanhKernel},
      {OperationType::CONV_2D, &kConv2dKernel},
      {OperationType::DEPTHWISE_CONV_2D, &kDepthwiseConv2dKernel},
      {OperationType::FULLY_CONNECTED, &kFullyConnectedKernel},
      {OperationType::AVERAGE_POOL_2D, &kAveragePool2dKernel},
      {OperationType::MAX_POOL_2D, &kMaxPool2dKernel},
      {OperationType::SOFTMAX, &kSoftmaxKernel},
      {OperationType::RESHAPE, &kReshapeKernel},
      {OperationType::CONCATENATION, &kConcatenationKernel},
      {OperationType::ABS, &kAbsKernel},
      {OperationType::NEG, &kNegKernel},
      {OperationType::EXP, &kExpKernel},
      {OperationType::LOG, &kLogKernel},
      {OperationType::SIN, &kSinKernel},
      {OperationType::SQRT, &kSqrtKernel},
      {OperationType::RSQRT, &kRsqrtKernel},
      {OperationType::FLOOR, &kFloorKernel},
      {OperationType::LOGICAL_NOT, &kLogicalNotKernel},
      {OperationType::HARD_SWISH, &kHardSwishKernel},
      {OperationType::MAXIMUM, &kMaximumKernel},
      {OperationType::MINIMUM, &kMinimumKernel},
      {OperationType::POW, &kPowKernel},
      {OperationType::EQUAL, &kEqualKernel},
      {OperationType::NOT_EQUAL, &kNotEqualKernel},
      {OperationType::GREATER, &kGreaterKernel},
      {OperationType::GREATER_EQUAL, &kGreaterEqualKernel},
      {OperationType::LESS, &kLessKernel},
      {OperationType::LESS_EQUAL, &kLessEqualKernel},
      {OperationType::LOGICAL_AND, &kLogicalAndKernel},
      {OperationType::LOGICAL_OR, &kLogicalOrKernel},
      {OperationType::PRELU, &kPreluKernel},
      {OperationType::ELU, &kEluKernel},
      {OperationType::SELECT, &kSelectKernel},
      {OperationType::RESIZE_BILINEAR, &kResizeBilinearKernel},
      {OperationType::RESIZE_NEAREST_NEIGHBOR, &kResizeNearestNeighborKernel},
      {OperationType::L2_NORMALIZATION, &kL2NormalizationKernel},
      {OperationType::LOCAL_RESPONSE_NORMALIZATION, &kLocalResponseNormalizationKernel},
      {OperationType::L2_POOL_2D, &kL2Pool2dKernel},
      {OperationType::GROUPED_CONV_2D, &kGroupedConv2dKernel},
      {OperationType::TRANSPOSE_CONV_2D, &kTransposeConv2dKernel},
      {OperationType::SPACE_TO_DEPTH, &kSpaceToDepthKernel},
      {OperationType::DEPTH_TO_SPACE, &kDepthToSpaceKernel},
      {OperationType::SPACE_TO_BATCH_ND, &kSpaceToBatchNdKernel},
      {OperationType::BATCH_TO_SPACE_ND, &kBatchToSpaceNdKernel},
      {OperationType::CHANNEL_SHUFFLE, &kChannelShuffleKernel},
      {OperationType::TRANSPOSE, &kTransposeKernel},
      {OperationType::SQUEEZE, &kSqueezeKernel},
      {OperationType::EXPAND_DIMS, &kExpandDimsKernel},
      {OperationType::GATHER, &kGatherKernel},
      {OperationType::SLICE, &kSliceKernel},
      {OperationType::STRIDED_SLICE, &kStridedSliceKernel},
      {OperationType::SPLIT, &kSplitKernel},
      {OperationType::TILE, &kTileKernel},
      {OperationType::PAD, &kPadKernel},
      {OperationType::PAD_V2, &kPadV2Kernel},
      {OperationType::MIRROR_PAD, &kMirrorPadKernel},
      {OperationType::REVERSE, &kReverseKernel},
      {OperationType::PACK, &kPackKernel},
  };
  const auto it = kKernels->find(type);
  return it == kKernels->end() ? nullptr : it->second;
}

}  // namespace nnremote::sim
