// Arm NN lowerings of hal's shape family (hal/operations/shape.cc): reshapes (RESHAPE, SQUEEZE,
// EXPAND_DIMS), CONCATENATION, TRANSPOSE, the pads, slices, GATHER, MEAN, ARGMAX/ARGMIN and the
// block rearrangements between space, depth and batch. Their axes, shapes and paddings must be
// constants, which are read into the Arm NN descriptors. The operations are listed once, in
// shapeLowerings() at the end.
#include <armnn/Descriptors.hpp>

#include <algorithm>
#include <vector>

#include "drivers/armnn/lowering_context.h"

namespace nnremote::armnn::lowering {
namespace {

using hal::Operand;
using hal::OperandType;
using hal::OperationType;

hal::Status lowerReshape(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {2}));
  NN_ASSIGN_OR_RETURN(auto output, context.tensorInfo(operation.outputs[0]));
  NN_ASSIGN_OR_RETURN(auto* slot, context.reshaped(operation.inputs[0], output.GetShape()));
  return context.produce(slot, operation.outputs[0], 0);
}

// SQUEEZE, EXPAND_DIMS: a reshape to the output's shape, which the model gives.
hal::Status lowerReshapeToOutput(LoweringContext& context, const hal::Operation& operation) {
  NN_ASSIGN_OR_RETURN(auto output, context.tensorInfo(operation.outputs[0]));
  NN_ASSIGN_OR_RETURN(auto* slot, context.reshaped(operation.inputs[0], output.GetShape()));
  return context.produce(slot, operation.outputs[0], 0);
}

hal::Status lowerConcatenation(LoweringContext& context, const hal::Operation& operation) {
  if (operation.inputs.size() < 2) return unsupported() << "no tensors to concatenate";
  const size_t tensors = operation.inputs.size() - 1;
  NN_ASSIGN_OR_RETURN(int32_t axis, context.int32Scalar(operation.inputs[tensors]));
  std::vector<::armnn::TensorShape> shapes;
  for (size_t i = 0; i < tensors; ++i) {
    NN_ASSIGN_OR_RETURN(auto info, context.tensorInfo(operation.inputs[i]));
    shapes.push_back(info.GetShape());
  }
  const int rank = static_cast<int>(shapes[0].GetNumDimensions());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return unsupported() << "axis " << axis << " outside the rank";
  auto descriptor = ::armnn::CreateDescriptorForConcatenation(shapes.begin(), shapes.end(), static_cast<unsigned>(axis));
  auto* layer = context.network().AddConcatLayer(descriptor);
  NN_RETURN_IF_ERROR(
      context.connectInputs(layer, std::vector<uint32_t>(operation.inputs.begin(), operation.inputs.end() - 1)));
  return context.produce(&layer->GetOutputSlot(0), operation.outputs[0], 0);
}

hal::Status lowerPad(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {operation.type == OperationType::PAD ? size_t{2} : size_t{3}}));
  NN_ASSIGN_OR_RETURN(const auto paddings, context.int32Values(operation.inputs[1]));
  if (paddings.size() != 2 * context.rankOf(operation.inputs[0])) return unsupported() << "paddings are not [rank, 2]";
  ::armnn::PadDescriptor descriptor;
  for (size_t i = 0; i < paddings.size(); i += 2) {
    if (paddings[i] < 0 || paddings[i + 1] < 0) return unsupported() << "a negative padding";
    descriptor.m_PadList.emplace_back(paddings[i], paddings[i + 1]);
  }
  // Arm NN writes m_PadValue into quantized tensors as it is, so a quantized tensor's padding
  // is given in its own units: the zero point (NNAPI pads with real 0), or PAD_V2's value.
  const Operand& input = context.operand(operation.inputs[0]);
  const bool quantized =
      input.type == OperandType::TENSOR_QUANT8_ASYMM || input.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  if (operation.type == OperationType::PAD_V2) {
    if (context.operand(operation.inputs[2]).type == OperandType::INT32) {
      NN_ASSIGN_OR_RETURN(const int32_t value, context.int32Scalar(operation.inputs[2]));
      descriptor.m_PadValue = float(value);
    } else {
      NN_ASSIGN_OR_RETURN(descriptor.m_PadValue, context.floatScalar(operation.inputs[2]));
    }
  } else if (quantized) {
    descriptor.m_PadValue = float(input.zeroPoint);
  }
  return context.lowerThrough(context.network().AddPadLayer(descriptor), operation);
}

hal::Status lowerTranspose(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {1, 2}));
  const size_t rank = context.rankOf(operation.inputs[0]);
  std::vector<unsigned> permutation;
  if (operation.inputs.size() == 2 && context.operand(operation.inputs[1]).lifetime != Operand::LifeTime::NO_VALUE) {
    NN_ASSIGN_OR_RETURN(const auto values, context.int32Values(operation.inputs[1]));
    for (int32_t value : values) permutation.push_back(static_cast<unsigned>(value));
  } else {
    for (size_t i = 0; i < rank; ++i) permutation.push_back(static_cast<unsigned>(rank - 1 - i));
  }
  if (permutation.size() != rank) return unsupported() << "the permutation does not have the input's rank";
  std::vector<unsigned> seen(rank, 0);
  for (unsigned p : permutation) {
    if (p >= rank || seen[p]++) return unsupported() << "not a permutation";
  }
  ::armnn::PermutationVector mappings(permutation.data(), static_cast<::armnn::PermutationVector::SizeType>(rank));
  return context.lowerThrough(context.network().AddTransposeLayer(::armnn::TransposeDescriptor(mappings)), operation);
}

hal::Status lowerMean(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {3}));
  NN_ASSIGN_OR_RETURN(const auto axes, context.int32Values(operation.inputs[1]));
  NN_ASSIGN_OR_RETURN(const int32_t keepDims, context.int32Scalar(operation.inputs[2]));
  std::vector<unsigned> resolved;
  for (int32_t axis : axes) {
    NN_ASSIGN_OR_RETURN(const unsigned a, axisIn(axis, context.rankOf(operation.inputs[0])));
    if (std::find(resolved.begin(), resolved.end(), a) == resolved.end()) resolved.push_back(a);
  }
  std::sort(resolved.begin(), resolved.end());
  return context.lowerThrough(context.network().AddMeanLayer(::armnn::MeanDescriptor(resolved, keepDims != 0)),
                              operation);
}

hal::Status lowerArgMinMax(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {2}));
  NN_ASSIGN_OR_RETURN(const int32_t axis, context.int32Scalar(operation.inputs[1]));
  NN_ASSIGN_OR_RETURN(const unsigned resolved, axisIn(axis, context.rankOf(operation.inputs[0])));
  ::armnn::ArgMinMaxDescriptor descriptor;
  descriptor.m_Function =
      operation.type == OperationType::ARGMAX ? ::armnn::ArgMinMaxFunction::Max : ::armnn::ArgMinMaxFunction::Min;
  descriptor.m_Axis = static_cast<int>(resolved);
  return context.lowerThrough(context.network().AddArgMinMaxLayer(descriptor), operation);
}

hal::Status lowerSlice(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {3}));
  NN_ASSIGN_OR_RETURN(const auto begin, context.int32Values(operation.inputs[1]));
  NN_ASSIGN_OR_RETURN(const auto size, context.int32Values(operation.inputs[2]));
  const auto& dims = context.operand(operation.inputs[0]).dimensions;
  if (begin.size() != dims.size() || size.size() != dims.size()) return unsupported() << "begin or size is not [rank]";
  std::vector<unsigned> from, count;
  for (size_t i = 0; i < dims.size(); ++i) {
    // -1 takes the rest of the dimension.
    const int64_t n = size[i] == -1 ? int64_t(dims[i]) - begin[i] : size[i];
    if (begin[i] < 0 || n < 1 || begin[i] + n > int64_t(dims[i])) return unsupported() << "a slice out of range";
    from.push_back(unsigned(begin[i]));
    count.push_back(unsigned(n));
  }
  return context.lowerThrough(context.network().AddSliceLayer(::armnn::SliceDescriptor(from, count)), operation);
}

hal::Status lowerStridedSlice(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {7}));
  NN_ASSIGN_OR_RETURN(const auto begin, context.int32Values(operation.inputs[1]));
  NN_ASSIGN_OR_RETURN(const auto end, context.int32Values(operation.inputs[2]));
  NN_ASSIGN_OR_RETURN(const auto strides, context.int32Values(operation.inputs[3]));
  for (int32_t stride : strides) {
    if (stride == 0) return unsupported() << "a stride of 0";
  }
  ::armnn::StridedSliceDescriptor descriptor(std::vector<int>(begin.begin(), begin.end()),
                                           std::vector<int>(end.begin(), end.end()),
                                           std::vector<int>(strides.begin(), strides.end()));
  NN_ASSIGN_OR_RETURN(descriptor.m_BeginMask, context.int32Scalar(operation.inputs[4]));
  NN_ASSIGN_OR_RETURN(descriptor.m_EndMask, context.int32Scalar(operation.inputs[5]));
  NN_ASSIGN_OR_RETURN(descriptor.m_ShrinkAxisMask, context.int32Scalar(operation.inputs[6]));
  descriptor.m_DataLayout = ::armnn::DataLayout::NHWC;
  return context.lowerThrough(context.network().AddStridedSliceLayer(descriptor), operation);
}

hal::Status lowerGather(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {3}));
  NN_ASSIGN_OR_RETURN(const int32_t axis, context.int32Scalar(operation.inputs[1]));
  NN_ASSIGN_OR_RETURN(const unsigned resolved, axisIn(axis, context.rankOf(operation.inputs[0])));
  ::armnn::GatherDescriptor descriptor;
  descriptor.m_Axis = static_cast<int32_t>(resolved);
  auto* layer = context.network().AddGatherLayer(descriptor);
  NN_RETURN_IF_ERROR(context.connectInputs(layer, {operation.inputs[0], operation.inputs[2]}));
  return context.produce(&layer->GetOutputSlot(0), operation.outputs[0], 0);
}

// SPACE_TO_DEPTH, DEPTH_TO_SPACE, BATCH_TO_SPACE_ND and SPACE_TO_BATCH_ND, on 4-D inputs.
hal::Status lowerBlockRearrangement(LoweringContext& context, const hal::Operation& operation) {
  if (context.rankOf(operation.inputs[0]) != 4) return unsupported() << "the input is not 4-D";
  ::armnn::INetwork& network = context.network();
  switch (operation.type) {
    case OperationType::SPACE_TO_DEPTH:
    case OperationType::DEPTH_TO_SPACE: {
      NN_RETURN_IF_ERROR(expectInputs(operation, {2, 3}));
      NN_ASSIGN_OR_RETURN(const ::armnn::DataLayout layout, context.layoutOf(operation, 2));
      NN_ASSIGN_OR_RETURN(const int32_t block, context.int32Scalar(operation.inputs[1]));
      if (block < 1) return unsupported() << "a block size below 1";
      ::armnn::SpaceToDepthDescriptor descriptor(static_cast<unsigned>(block), layout);
      return context.lowerThrough(operation.type == OperationType::SPACE_TO_DEPTH
                                      ? network.AddSpaceToDepthLayer(descriptor)
                                      : network.AddDepthToSpaceLayer(descriptor),
                                  operation);
    }
    case OperationType::BATCH_TO_SPACE_ND: {
      NN_RETURN_IF_ERROR(expectInputs(operation, {2, 3}));
      NN_ASSIGN_OR_RETURN(const ::armnn::DataLayout layout, context.layoutOf(operation, 2));
      NN_ASSIGN_OR_RETURN(const auto block, context.int32Values(operation.inputs[1]));
      if (block.size() != 2 || block[0] < 1 || block[1] < 1) return unsupported() << "the block shape is not 2 sizes";
      ::armnn::BatchToSpaceNdDescriptor descriptor({unsigned(block[0]), unsigned(block[1])}, {{0, 0}, {0, 0}});
      descriptor.m_DataLayout = layout;
      return context.lowerThrough(network.AddBatchToSpaceNdLayer(descriptor), operation);
    }
    default: {  // SPACE_TO_BATCH_ND
      NN_RETURN_IF_ERROR(expectInputs(operation, {3, 4}));
      NN_ASSIGN_OR_RETURN(const ::armnn::DataLayout layout, context.layoutOf(operation, 3));
      NN_ASSIGN_OR_RETURN(const auto block, context.int32Values(operation.inputs[1]));
      NN_ASSIGN_OR_RETURN(const auto paddings, context.int32Values(operation.inputs[2]));
      if (block.size() != 2 || block[0] < 1 || block[1] < 1 || paddings.size() != 4) {
        return unsupported() << "the block shape is not 2 sizes, or the paddings not [2, 2]";
      }
      for (int32_t padding : paddings) {
        if (padding < 0) return unsupported() << "a negative padding";
      }
      ::armnn::SpaceToBatchNdDescriptor descriptor(
          {unsigned(block[0]), unsigned(block[1])},
          {{unsigned(paddings[0]), unsigned(paddings[1])}, {unsigned(paddings[2]), unsigned(paddings[3])}});
      descriptor.m_DataLayout = layout;
      return context.lowerThrough(network.AddSpaceToBatchNdLayer(descriptor), operation);
    }
  }
}

}  // namespace

LoweringTable shapeLowerings() {
  return {
      {OperationType::RESHAPE, lowerReshape},
      {OperationType::SQUEEZE, lowerReshapeToOutput},
      {OperationType::EXPAND_DIMS, lowerReshapeToOutput},
      {OperationType::CONCATENATION, lowerConcatenation},
      {OperationType::PAD, lowerPad},
      {OperationType::PAD_V2, lowerPad},
      {OperationType::TRANSPOSE, lowerTranspose},
      {OperationType::MEAN, lowerMean},
      {OperationType::ARGMAX, lowerArgMinMax},
      {OperationType::ARGMIN, lowerArgMinMax},
      {OperationType::SLICE, lowerSlice},
      {OperationType::STRIDED_SLICE, lowerStridedSlice},
      {OperationType::GATHER, lowerGather},
      {OperationType::SPACE_TO_DEPTH, lowerBlockRearrangement},
      {OperationType::DEPTH_TO_SPACE, lowerBlockRearrangement},
      {OperationType::BATCH_TO_SPACE_ND, lowerBlockRearrangement},
      {OperationType::SPACE_TO_BATCH_ND, lowerBlockRearrangement},
  };
}

}  // namespace nnremote::armnn::lowering
