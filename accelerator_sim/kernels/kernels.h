// Every kernel the simulator implements; operation_registry.cc maps operation types to them.
#ifndef NNREMOTE_ACCELERATOR_SIM_KERNELS_KERNELS_H_
#define NNREMOTE_ACCELERATOR_SIM_KERNELS_KERNELS_H_

#include "accelerator_sim/operation_registry.h"

namespace nnremote::sim {

extern const OperationKernel kAddKernel;
extern const OperationKernel kSubKernel;
extern const OperationKernel kMulKernel;
extern const OperationKernel kDivKernel;
extern const OperationKernel kReluKernel;
extern const OperationKernel kRelu1Kernel;
extern const OperationKernel kRelu6Kernel;
extern const OperationKernel kLogisticKernel;
extern const OperationKernel kTanhKernel;
extern const OperationKernel kConv2dKernel;
extern const OperationKernel kDepthwiseConv2dKernel;
extern const OperationKernel kFullyConnectedKernel;
extern const OperationKernel kAveragePool2dKernel;
extern const OperationKernel kMaxPool2dKernel;
extern const OperationKernel kSoftmaxKernel;
extern const OperationKernel kReshapeKernel;
extern const OperationKernel kConcatenationKernel;
extern const OperationKernel kRnnKernel;
extern const OperationKernel kUnidirectionalSequenceRnnKernel;
extern const OperationKernel kBidirectionalSequenceRnnKernel;
extern const OperationKernel kSvdfKernel;
extern const OperationKernel kLshProjectionKernel;
extern const OperationKernel kRandomMultinomialKernel;

// lstm_ops.cc
extern const OperationKernel kLstmKernel;
extern const OperationKernel kUnidirectionalSequenceLstmKernel;
extern const OperationKernel kBidirectionalSequenceLstmKernel;
// quantized_16bit_lstm.cc
extern const OperationKernel kQuantized16BitLstmKernel;
// quantized_lstm.cc
extern const OperationKernel kQuantizedLstmKernel;
extern const OperationKernel kMeanKernel;
extern const OperationKernel kReduceSumKernel;
extern const OperationKernel kReduceProdKernel;
extern const OperationKernel kReduceMaxKernel;
extern const OperationKernel kReduceMinKernel;
extern const OperationKernel kReduceAnyKernel;
extern const OperationKernel kReduceAllKernel;
extern const OperationKernel kArgmaxKernel;
extern const OperationKernel kArgminKernel;
extern const OperationKernel kTopkV2Kernel;
extern const OperationKernel kLogSoftmaxKernel;
extern const OperationKernel kInstanceNormalizationKernel;
extern const OperationKernel kQuantizeKernel;
extern const OperationKernel kDequantizeKernel;
extern const OperationKernel kCastKernel;
extern const OperationKernel kFillKernel;
extern const OperationKernel kRankKernel;
extern const OperationKernel kEmbeddingLookupKernel;
extern const OperationKernel kHashtableLookupKernel;
extern const OperationKernel kBatchMatmulKernel;
extern const OperationKernel kAbsKernel;
extern const OperationKernel kNegKernel;
extern const OperationKernel kExpKernel;
extern const OperationKernel kLogKernel;
extern const OperationKernel kSinKernel;
extern const OperationKernel kSqrtKernel;
extern const OperationKernel kRsqrtKernel;
extern const OperationKernel kFloorKernel;
extern const OperationKernel kLogicalNotKernel;
extern const OperationKernel kHardSwishKernel;
extern const OperationKernel kMaximumKernel;
extern const OperationKernel kMinimumKernel;
extern const OperationKernel kPowKernel;
extern const OperationKernel kEqualKernel;
extern const OperationKernel kNotEqualKernel;
extern const OperationKernel kGreaterKernel;
extern const OperationKernel kGreaterEqualKernel;
extern const OperationKernel kLessKernel;
extern const OperationKernel kLessEqualKernel;
extern const OperationKernel kLogicalAndKernel;
extern const OperationKernel kLogicalOrKernel;
extern const OperationKernel kPreluKernel;
extern const OperationKernel kEluKernel;
extern const OperationKernel kSelectKernel;
extern const OperationKernel kResizeBilinearKernel;
extern const OperationKernel kResizeNearestNeighborKernel;
extern const OperationKernel kL2NormalizationKernel;
extern const OperationKernel kLocalResponseNormalizationKernel;
extern const OperationKernel kL2Pool2dKernel;

// roi_ops.cc
extern const OperationKernel kRoiAlignKernel;
extern const OperationKernel kRoiPoolingKernel;

// detection_ops.cc
extern const OperationKernel kAxisAlignedBboxTransformKernel;
extern const OperationKernel kBoxWithNmsLimitKernel;
extern const OperationKernel kGenerateProposalsKernel;
extern const OperationKernel kHeatmapMaxKeypointKernel;
extern const OperationKernel kDetectionPostprocessingKernel;
extern const OperationKernel kGroupedConv2dKernel;
extern const OperationKernel kTransposeConv2dKernel;
extern const OperationKernel kSpaceToDepthKernel;
extern const OperationKernel kDepthToSpaceKernel;
extern const OperationKernel kSpaceToBatchNdKernel;
extern const OperationKernel kBatchToSpaceNdKernel;
extern const OperationKernel kChannelShuffleKernel;
extern const OperationKernel kTransposeKernel;
extern const OperationKernel kSqueezeKernel;
extern const OperationKernel kExpandDimsKernel;
extern const OperationKernel kGatherKernel;
extern const OperationKernel kSliceKernel;
extern const OperationKernel kStridedSliceKernel;
extern const OperationKernel kSplitKernel;
extern const OperationKernel kTileKernel;
extern const OperationKernel kPadKernel;
extern const OperationKernel kPadV2Kernel;
extern const OperationKernel kMirrorPadKernel;
extern const OperationKernel kReverseKernel;
extern const OperationKernel kPackKernel;

}  // namespace nnremote::sim

#endif  // NNREMOTE_ACCELERATOR_SIM_KERNELS_KERNELS_H_
