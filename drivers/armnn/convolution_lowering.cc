// Arm NN lowerings of hal's convolution family (hal/operations/convolution.cc): CONV_2D and
// DEPTHWISE_CONV_2D, the three poolings, FULLY_CONNECTED, SOFTMAX and LOG_SOFTMAX, the two
// normalizations and the two resizes. NNAPI spells windows as explicit or implicit padding with
// an optional layout flag and dilation, and filters in its own dimension order; this file turns
// those into Arm NN's descriptors and filter layouts. The operations are listed once, in
// convolutionLowerings() at the end.
#include <armnn/Descriptors.hpp>

#include <array>
#include <cstring>
#include <vector>

#include "drivers/armnn/lowering_context.h"

namespace nnremote::armnn::lowering {
namespace {

using hal::OperandType;
using hal::OperationType;

size_t heightIndex(::armnn::DataLayout layout) { return layout == ::armnn::DataLayout::NHWC ? 1 : 2; }
size_t channelIndex(::armnn::DataLayout layout) { return layout == ::armnn::DataLayout::NHWC ? 3 : 1; }

// NNAPI's implicit padding (1 SAME, 2 VALID) as explicit head and tail padding.
hal::Status implicitPadding(int32_t scheme, uint32_t in, uint32_t stride, uint32_t kernel, uint32_t dilation,
                            uint32_t* head, uint32_t* tail) {
  if (scheme == 2) {
    *head = *tail = 0;
    return {};
  }
  if (scheme != 1 || stride == 0) return unsupported() << "padding scheme " << scheme << " with stride " << stride;
  const uint32_t out = (in + stride - 1) / stride;
  const int64_t needed = int64_t(out - 1) * stride + int64_t(kernel - 1) * dilation + 1 - in;
  const uint32_t total = needed > 0 ? static_cast<uint32_t>(needed) : 0;
  *head = total / 2;
  *tail = total - *head;
  return {};
}

// Reads the convolution and pooling parameters after the leading operands: explicit padding
// (left, right, top, bottom) or an implicit scheme, then strides, for an input in `layout` and a
// kernel of `kernelW` x `kernelH`. Returns the index after the strides.
template <typename Descriptor>
hal::Result<size_t> readWindow(const LoweringContext& context, const hal::Operation& operation, size_t first,
                               bool explicitPadding, uint32_t kernelW, uint32_t kernelH, uint32_t dilationW,
                               uint32_t dilationH, ::armnn::DataLayout layout, Descriptor* descriptor) {
  const auto& inputDims = context.operand(operation.inputs[0]).dimensions;
  const uint32_t inputH = inputDims[heightIndex(layout)], inputW = inputDims[heightIndex(layout) + 1];
  size_t next = first;
  std::vector<int32_t> values;
  const size_t count = explicitPadding ? 6 : 3;
  for (size_t i = 0; i < count; ++i) {
    NN_ASSIGN_OR_RETURN(int32_t value, context.int32Scalar(operation.inputs[next + i]));
    if (value < 0) return unsupported() << "a negative padding or stride";
    values.push_back(value);
  }
  next += count;
  if (explicitPadding) {
    descriptor->m_PadLeft = values[0];
    descriptor->m_PadRight = values[1];
    descriptor->m_PadTop = values[2];
    descriptor->m_PadBottom = values[3];
    descriptor->m_StrideX = values[4];
    descriptor->m_StrideY = values[5];
  } else {
    descriptor->m_StrideX = values[1];
    descriptor->m_StrideY = values[2];
    NN_RETURN_IF_ERROR(implicitPadding(values[0], inputW, values[1], kernelW, dilationW, &descriptor->m_PadLeft,
                                       &descriptor->m_PadRight));
    NN_RETURN_IF_ERROR(implicitPadding(values[0], inputH, values[2], kernelH, dilationH, &descriptor->m_PadTop,
                                       &descriptor->m_PadBottom));
  }
  return next;
}

// `filter` with its dimensions reordered: output dimension i is input dimension order[i]. The
// bytes are kept until the network is built; per-channel scales stay on dimension 0, which
// every order used here keeps in place.
::armnn::ConstTensor permutedFilter(LoweringContext& context, const ::armnn::ConstTensor& filter,
                                  const std::array<unsigned, 4>& order) {
  const ::armnn::TensorShape& from = filter.GetShape();
  const unsigned to[4] = {from[order[0]], from[order[1]], from[order[2]], from[order[3]]};
  const size_t elementBytes = filter.GetInfo().GetNumBytes() / filter.GetInfo().GetNumElements();
  const auto* source = static_cast<const uint8_t*>(filter.GetMemoryArea());
  auto& permuted = context.keptBytes(filter.GetInfo().GetNumBytes());
  unsigned index[4];
  for (index[0] = 0; index[0] < to[0]; ++index[0])
    for (index[1] = 0; index[1] < to[1]; ++index[1])
      for (index[2] = 0; index[2] < to[2]; ++index[2])
        for (index[3] = 0; index[3] < to[3]; ++index[3]) {
          unsigned sourceIndex[4];
          for (int d = 0; d < 4; ++d) sourceIndex[order[d]] = index[d];
          const size_t target = ((size_t(index[0]) * to[1] + index[1]) * to[2] + index[2]) * to[3] + index[3];
          const size_t origin =
              ((size_t(sourceIndex[0]) * from[1] + sourceIndex[1]) * from[2] + sourceIndex[2]) * from[3] +
              sourceIndex[3];
          std::memcpy(&permuted[target * elementBytes], &source[origin * elementBytes], elementBytes);
        }
  ::armnn::TensorInfo info = filter.GetInfo();
  info.SetShape(::armnn::TensorShape(4, to));
  return ::armnn::ConstTensor(info, permuted.data());
}

hal::Status lowerConvolution(LoweringContext& context, const hal::Operation& operation) {
  const size_t n = operation.inputs.size();
  const bool depthwise = operation.type == OperationType::DEPTHWISE_CONV_2D;
  // Implicit padding has a scheme where explicit padding has its left pad; the forms differ by
  // input count, except where the layout flag makes them equal (told apart by its BOOL type).
  const size_t base = depthwise ? 8 : 7;
  const bool implicitForm = n == base || n == base + 1 ||
                            (n == base + 3 && context.operand(operation.inputs[base]).type == OperandType::BOOL);
  NN_RETURN_IF_ERROR(expectInputs(operation, depthwise ? std::initializer_list<size_t>{8, 9, 11, 12, 14}
                                                       : std::initializer_list<size_t>{7, 8, 10, 11, 13}));
  if (context.rankOf(operation.inputs[0]) != 4) return unsupported() << "the input is not 4-D";
  NN_ASSIGN_OR_RETURN(auto filter, context.constantTensor(operation.inputs[1]));
  NN_ASSIGN_OR_RETURN(auto bias, context.constantTensor(operation.inputs[2]));
  if (filter.GetInfo().HasPerAxisQuantization()) {
    // NNAPI leaves a per-channel bias's scale 0: each channel's is the input's times the
    // filter's. Arm NN wants them spelled out (and aborts on a single scale of 0).
    const float inputScale = context.operand(operation.inputs[0]).scale;
    std::vector<float> biasScales;
    for (float filterScale : filter.GetInfo().GetQuantizationScales()) biasScales.push_back(inputScale * filterScale);
    ::armnn::TensorInfo biasInfo(bias.GetShape(), ::armnn::DataType::Signed32, biasScales, 0);
    bias = ::armnn::ConstTensor(biasInfo, bias.GetMemoryArea());
  }
  const auto& filterDims = context.operand(operation.inputs[1]).dimensions;
  const size_t afterStrides = implicitForm ? 6 : 9;
  const size_t activationIndex = afterStrides + (depthwise ? 1 : 0);
  const size_t layoutIndex = activationIndex + 1;
  uint32_t dilationW = 1, dilationH = 1;
  if (n == layoutIndex + 3) {
    NN_ASSIGN_OR_RETURN(int32_t w, context.int32Scalar(operation.inputs[layoutIndex + 1]));
    NN_ASSIGN_OR_RETURN(int32_t h, context.int32Scalar(operation.inputs[layoutIndex + 2]));
    if (w < 1 || h < 1) return unsupported() << "dilation below 1";
    dilationW = w;
    dilationH = h;
  }
  NN_ASSIGN_OR_RETURN(const ::armnn::DataLayout layout, context.layoutOf(operation, layoutIndex));
  NN_ASSIGN_OR_RETURN(const int32_t activation, context.int32Scalar(operation.inputs[activationIndex]));
  ::armnn::IConnectableLayer* layer = nullptr;
  if (!depthwise) {
    ::armnn::Convolution2dDescriptor descriptor;
    descriptor.m_DataLayout = layout;
    descriptor.m_BiasEnabled = true;
    descriptor.m_DilationX = dilationW;
    descriptor.m_DilationY = dilationH;
    NN_RETURN_IF_ERROR(readWindow(context, operation, 3, !implicitForm, filterDims[2], filterDims[1], dilationW,
                                  dilationH, layout, &descriptor)
                           .status());
    // NNAPI's [O, H, W, I] filter is what Arm NN takes for NHWC; for NCHW it takes [O, I, H, W].
    if (layout == ::armnn::DataLayout::NCHW) filter = permutedFilter(context, filter, {0, 3, 1, 2});
    layer = context.network().AddConvolution2dLayer(descriptor, filter, ::armnn::Optional<::armnn::ConstTensor>(bias));
  } else {
    ::armnn::DepthwiseConvolution2dDescriptor descriptor;
    descriptor.m_DataLayout = layout;
    descriptor.m_BiasEnabled = true;
    descriptor.m_DilationX = dilationW;
    descriptor.m_DilationY = dilationH;
    NN_RETURN_IF_ERROR(readWindow(context, operation, 3, !implicitForm, filterDims[2], filterDims[1], dilationW,
                                  dilationH, layout, &descriptor)
                           .status());
    NN_ASSIGN_OR_RETURN(const int32_t multiplier, context.int32Scalar(operation.inputs[afterStrides]));
    const uint32_t inputChannels = context.operand(operation.inputs[0]).dimensions[channelIndex(layout)];
    if (multiplier < 1 || filterDims[0] != 1 || filterDims[3] != inputChannels * uint32_t(multiplier)) {
      return unsupported() << "the filter is not [1, H, W, channels x multiplier]";
    }
    // NNAPI's [1, H, W, I*M] filter to Arm NN's [M, I, H, W], element by element whatever the
    // type. Per-channel scales would have to follow the permutation; they are not lowered.
    if (filter.GetInfo().HasPerAxisQuantization()) return unsupported() << "a per-channel depthwise filter";
    // [1, H, W, I*M] is [H, W, I, M] in memory.
    ::armnn::TensorInfo hwim = filter.GetInfo();
    hwim.SetShape(::armnn::TensorShape({filterDims[1], filterDims[2], inputChannels, uint32_t(multiplier)}));
    const ::armnn::ConstTensor weights =
        permutedFilter(context, ::armnn::ConstTensor(hwim, filter.GetMemoryArea()), {3, 2, 0, 1});
    layer = context.network().AddDepthwiseConvolution2dLayer(descriptor, weights,
                                                             ::armnn::Optional<::armnn::ConstTensor>(bias));
  }
  NN_RETURN_IF_ERROR(context.connectInputs(layer, {operation.inputs[0]}));
  return context.produce(&layer->GetOutputSlot(0), operation.outputs[0], activation);
}

hal::Status lowerPooling(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {7, 8, 10, 11}));
  if (context.rankOf(operation.inputs[0]) != 4) return unsupported() << "the input is not 4-D";
  const bool implicitForm = operation.inputs.size() <= 8;
  ::armnn::Pooling2dDescriptor descriptor;
  descriptor.m_PaddingMethod = ::armnn::PaddingMethod::Exclude;
  descriptor.m_OutputShapeRounding = ::armnn::OutputShapeRounding::Floor;
  descriptor.m_PoolType = operation.type == OperationType::MAX_POOL_2D       ? ::armnn::PoolingAlgorithm::Max
                          : operation.type == OperationType::AVERAGE_POOL_2D ? ::armnn::PoolingAlgorithm::Average
                                                                             : ::armnn::PoolingAlgorithm::L2;
  const size_t filterIndex = implicitForm ? 4 : 7;
  NN_ASSIGN_OR_RETURN(const int32_t filterW, context.int32Scalar(operation.inputs[filterIndex]));
  NN_ASSIGN_OR_RETURN(const int32_t filterH, context.int32Scalar(operation.inputs[filterIndex + 1]));
  if (filterW < 1 || filterH < 1) return unsupported() << "a filter below 1";
  descriptor.m_PoolWidth = filterW;
  descriptor.m_PoolHeight = filterH;
  // Pooling lists strides before the filter, so read the window with the filter known.
  NN_ASSIGN_OR_RETURN(descriptor.m_DataLayout, context.layoutOf(operation, filterIndex + 3));
  NN_RETURN_IF_ERROR(
      readWindow(context, operation, 1, !implicitForm, filterW, filterH, 1, 1, descriptor.m_DataLayout, &descriptor)
          .status());
  NN_ASSIGN_OR_RETURN(const int32_t activation, context.int32Scalar(operation.inputs[filterIndex + 2]));
  auto* layer = context.network().AddPooling2dLayer(descriptor);
  NN_RETURN_IF_ERROR(context.connectInputs(layer, {operation.inputs[0]}));
  return context.produce(&layer->GetOutputSlot(0), operation.outputs[0], activation);
}

hal::Status lowerFullyConnected(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {4}));
  NN_ASSIGN_OR_RETURN(auto weights, context.constantTensor(operation.inputs[1]));
  NN_ASSIGN_OR_RETURN(auto bias, context.constantTensor(operation.inputs[2]));
  NN_ASSIGN_OR_RETURN(const int32_t activation, context.int32Scalar(operation.inputs[3]));
  NN_ASSIGN_OR_RETURN(auto input, context.tensorInfo(operation.inputs[0]));
  const unsigned inputSize = weights.GetShape()[1];
  if (weights.GetNumDimensions() != 2 || inputSize == 0 || input.GetNumElements() % inputSize != 0) {
    return unsupported() << "the weights are not [units, input size] for this input";
  }
  const unsigned shape[] = {input.GetNumElements() / inputSize, inputSize};
  NN_ASSIGN_OR_RETURN(auto* slot, context.reshaped(operation.inputs[0], ::armnn::TensorShape(2, shape)));
  ::armnn::FullyConnectedDescriptor descriptor;
  descriptor.m_BiasEnabled = true;
  descriptor.m_TransposeWeightMatrix = true;
  auto* layer =
      context.network().AddFullyConnectedLayer(descriptor, weights, ::armnn::Optional<::armnn::ConstTensor>(bias));
  slot->Connect(layer->GetInputSlot(0));
  return context.produce(&layer->GetOutputSlot(0), operation.outputs[0], activation);
}

hal::Status lowerSoftmax(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {2, 3}));
  NN_ASSIGN_OR_RETURN(const float beta, context.floatScalar(operation.inputs[1]));
  const int rank = static_cast<int>(context.rankOf(operation.inputs[0]));
  if (operation.inputs.size() == 3) {
    NN_ASSIGN_OR_RETURN(const int32_t axis, context.int32Scalar(operation.inputs[2]));
    if (axis != -1 && axis != rank - 1) return unsupported() << "softmax over an axis other than the last";
  }
  ::armnn::SoftmaxDescriptor descriptor;
  descriptor.m_Beta = beta;
  auto* layer = context.network().AddSoftmaxLayer(descriptor);
  NN_RETURN_IF_ERROR(context.connectInputs(layer, {operation.inputs[0]}));
  return context.produce(&layer->GetOutputSlot(0), operation.outputs[0], 0);
}

hal::Status lowerLogSoftmax(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {3}));
  ::armnn::LogSoftmaxDescriptor descriptor;
  NN_ASSIGN_OR_RETURN(descriptor.m_Beta, context.floatScalar(operation.inputs[1]));
  NN_ASSIGN_OR_RETURN(const int32_t axis, context.int32Scalar(operation.inputs[2]));
  NN_ASSIGN_OR_RETURN(const unsigned resolved, axisIn(axis, context.rankOf(operation.inputs[0])));
  descriptor.m_Axis = static_cast<int>(resolved);
  return context.lowerThrough(context.network().AddLogSoftmaxLayer(descriptor), operation);
}

// The trailing axis operand of a normalization must name the last dimension of a 4-D input
// (NHWC channels): that is the form Arm NN normalizes.
hal::Status expectLastAxisOf4d(const LoweringContext& context, const hal::Operation& operation, size_t axisIndex) {
  const size_t rank = context.rankOf(operation.inputs[0]);
  if (operation.inputs.size() > axisIndex) {
    NN_ASSIGN_OR_RETURN(const int32_t axis, context.int32Scalar(operation.inputs[axisIndex]));
    NN_ASSIGN_OR_RETURN(const unsigned resolved, axisIn(axis, rank));
    if (resolved != rank - 1) return unsupported() << "normalization over an axis other than the last";
  }
  if (rank != 4) return unsupported() << "the input is not 4-D";
  return {};
}

hal::Status lowerL2Normalization(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {1, 2}));
  NN_RETURN_IF_ERROR(expectLastAxisOf4d(context, operation, 1));
  ::armnn::L2NormalizationDescriptor descriptor;
  descriptor.m_DataLayout = ::armnn::DataLayout::NHWC;
  descriptor.m_Eps = 1e-12f;
  return context.lowerThrough(context.network().AddL2NormalizationLayer(descriptor), operation);
}

hal::Status lowerLocalResponseNormalization(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {5, 6}));
  NN_RETURN_IF_ERROR(expectLastAxisOf4d(context, operation, 5));
  NN_ASSIGN_OR_RETURN(const int32_t radius, context.int32Scalar(operation.inputs[1]));
  if (radius < 0) return unsupported() << "a negative radius";
  ::armnn::NormalizationDescriptor descriptor;
  descriptor.m_NormChannelType = ::armnn::NormalizationAlgorithmChannel::Across;
  descriptor.m_NormMethodType = ::armnn::NormalizationAlgorithmMethod::LocalBrightness;
  descriptor.m_DataLayout = ::armnn::DataLayout::NHWC;
  // Arm NN's window is the whole 2r+1 channels.
  descriptor.m_NormSize = static_cast<uint32_t>(2 * radius + 1);
  NN_ASSIGN_OR_RETURN(descriptor.m_K, context.floatScalar(operation.inputs[2]));
  NN_ASSIGN_OR_RETURN(descriptor.m_Alpha, context.floatScalar(operation.inputs[3]));
  NN_ASSIGN_OR_RETURN(descriptor.m_Beta, context.floatScalar(operation.inputs[4]));
  return context.lowerThrough(context.network().AddNormalizationLayer(descriptor), operation);
}

hal::Status lowerResize(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {3, 4, 5, 6}));
  if (context.rankOf(operation.inputs[0]) != 4) return unsupported() << "the input is not 4-D";
  const auto& outputDims = context.operand(operation.outputs[0]).dimensions;
  if (outputDims.size() != 4) return unsupported() << "the output shape is not known";
  ::armnn::ResizeDescriptor descriptor;
  descriptor.m_Method = operation.type == OperationType::RESIZE_BILINEAR ? ::armnn::ResizeMethod::Bilinear
                                                                         : ::armnn::ResizeMethod::NearestNeighbor;
  NN_ASSIGN_OR_RETURN(descriptor.m_DataLayout, context.layoutOf(operation, 3));
  // The size operands are sizes (INT32) or scales (FLOAT); the output's shape settles both.
  descriptor.m_TargetHeight = outputDims[heightIndex(descriptor.m_DataLayout)];
  descriptor.m_TargetWidth = outputDims[heightIndex(descriptor.m_DataLayout) + 1];
  if (operation.inputs.size() >= 5) {
    NN_ASSIGN_OR_RETURN(descriptor.m_AlignCorners, context.boolScalar(operation.inputs[4]));
  }
  if (operation.inputs.size() >= 6) {
    NN_ASSIGN_OR_RETURN(descriptor.m_HalfPixelCenters, context.boolScalar(operation.inputs[5]));
  }
  return context.lowerThrough(context.network().AddResizeLayer(descriptor), operation);
}

}  // namespace

LoweringTable convolutionLowerings() {
  return {
      {OperationType::CONV_2D, lowerConvolution},
      {OperationType::DEPTHWISE_CONV_2D, lowerConvolution},
      {OperationType::AVERAGE_POOL_2D, lowerPooling},
      {OperationType::MAX_POOL_2D, lowerPooling},
      {OperationType::L2_POOL_2D, lowerPooling},
      {OperationType::FULLY_CONNECTED, lowerFullyConnected},
      {OperationType::SOFTMAX, lowerSoftmax},
      {OperationType::LOG_SOFTMAX, lowerLogSoftmax},
      {OperationType::L2_NORMALIZATION, lowerL2Normalization},
      {OperationType::LOCAL_RESPONSE_NORMALIZATION, lowerLocalResponseNormalization},
      {OperationType::RESIZE_BILINEAR, lowerResize},
      {OperationType::RESIZE_NEAREST_NEIGHBOR, lowerResize},
  };
}

}  // namespace nnremote::armnn::lowering
