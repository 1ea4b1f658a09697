#include "backends/armnn/model_lowering.h"

#include <armnn/Descriptors.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <string>

#include "hal/float16.h"
#include "hal/operand_types.h"

namespace nnremote::armnn_backend {
namespace {

using hal::Operand;
using hal::OperandType;
using hal::OperationType;

hal::ErrorBuilder unsupported() { return hal::invalidArgument(); }

bool isConstant(const Operand& operand) {
  return operand.lifetime == Operand::LifeTime::CONSTANT_COPY ||
         operand.lifetime == Operand::LifeTime::CONSTANT_REFERENCE || operand.lifetime == Operand::LifeTime::POINTER;
}

// Builds one network from some of a model's operations.
class Lowerer {
 public:
  // `wholeModel`: every temporary must be written before it is read; otherwise temporaries
  // from outside the lowered operations are network inputs.
  Lowerer(const hal::Model& model, bool wholeModel) : model_(model), graph_(model.main), wholeModel_(wholeModel) {
    result_.network = armnn::INetwork::Create();
  }

  hal::Status lower(size_t operationIndex) {
    const hal::Operation& operation = graph_.operations[operationIndex];
    const std::string where = "operations[" + std::to_string(operationIndex) + "] (" + hal::toString(operation.type) + ")";
    auto status = lowerOperation(operation);
    if (!status.ok()) return hal::withContext(status.error(), where);
    return {};
  }

  hal::Status bindOutputs(const std::vector<uint32_t>& operands) {
    for (uint32_t operand : operands) {
      NN_ASSIGN_OR_RETURN(auto* slot, slotOf(operand));
      auto* output = result_.network->AddOutputLayer(static_cast<armnn::LayerBindingId>(result_.outputOperands.size()));
      slot->Connect(output->GetInputSlot(0));
      result_.outputOperands.push_back(operand);
    }
    return {};
  }

  LoweredNetwork take() { return std::move(result_); }

 private:
  const Operand& operand(uint32_t index) const { return graph_.operands[index]; }

  // The operand's Arm NN type, quantization included. Per-channel filters keep NNAPI's channel
  // dimension, which is Arm NN's output-channel axis for CONV_2D's [O, H, W, I] filter.
  hal::Result<armnn::TensorInfo> tensorInfo(uint32_t index) const {
    const Operand& o = operand(index);
    if (o.dimensions.empty() || o.dimensions.size() > 4) {
      return unsupported() << "operand " << index << " has rank " << o.dimensions.size() << "; ranks 1 to 4 are lowered";
    }
    for (uint32_t dimension : o.dimensions) {
      if (dimension == 0) return unsupported() << "operand " << index << " has an unspecified or zero dimension";
    }
    const auto rank = static_cast<unsigned>(o.dimensions.size());
    switch (o.type) {
      case OperandType::TENSOR_FLOAT32:
        return armnn::TensorInfo(rank, o.dimensions.data(), armnn::DataType::Float32);
      case OperandType::TENSOR_FLOAT16:
        return armnn::TensorInfo(rank, o.dimensions.data(), armnn::DataType::Float16);
      case OperandType::TENSOR_QUANT8_ASYMM:
        return armnn::TensorInfo(rank, o.dimensions.data(), armnn::DataType::QAsymmU8, o.scale, o.zeroPoint);
      case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
        return armnn::TensorInfo(rank, o.dimensions.data(), armnn::DataType::QAsymmS8, o.scale, o.zeroPoint);
      case OperandType::TENSOR_INT32:
        return armnn::TensorInfo(rank, o.dimensions.data(), armnn::DataType::Signed32, o.scale, o.zeroPoint);
      case OperandType::TENSOR_BOOL8:
        return armnn::TensorInfo(rank, o.dimensions.data(), armnn::DataType::Boolean);
      case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL: {
        const auto* channels = std::get_if<Operand::SymmPerChannelQuantParams>(&o.extraParams);
        if (channels == nullptr) return unsupported() << "operand " << index << " has no per-channel scales";
        return armnn::TensorInfo(rank, o.dimensions.data(), armnn::DataType::QSymmS8, channels->scales,
                                 channels->channelDim);
      }
      default:
        return unsupported() << "operand " << index << " is " << hal::toString(o.type)
                             << "; float32, float16, quant8, int32 and bool8 tensors are lowered";
    }
  }

  const uint8_t* constantData(const Operand& o) const {
    switch (o.lifetime) {
      case Operand::LifeTime::CONSTANT_COPY: return model_.operandValues.data() + o.location.offset;
      case Operand::LifeTime::CONSTANT_REFERENCE:
        return model_.pools[o.location.poolIndex]->data() + o.location.offset;
      case Operand::LifeTime::POINTER: return static_cast<const uint8_t*>(o.location.pointer);
      default: return nullptr;
    }
  }

  template <typename T>
  hal::Result<T> scalar(uint32_t index, OperandType type) const {
    const Operand& o = operand(index);
    if (o.type != type || !isConstant(o)) {
      return unsupported() << "operand " << index << " must be a constant " << hal::toString(type);
    }
    T value;
    std::memcpy(&value, constantData(o), sizeof value);
    return value;
  }
  hal::Result<int32_t> int32Scalar(uint32_t index) const { return scalar<int32_t>(index, OperandType::INT32); }
  // FLOAT32, or FLOAT16 in float16 models.
  hal::Result<float> floatScalar(uint32_t index) const {
    if (operand(index).type == OperandType::FLOAT16) {
      NN_ASSIGN_OR_RETURN(const uint16_t half, scalar<uint16_t>(index, OperandType::FLOAT16));
      return hal::halfToFloat(half);
    }
    return scalar<float>(index, OperandType::FLOAT32);
  }

  hal::Result<bool> boolScalar(uint32_t index) const {
    NN_ASSIGN_OR_RETURN(const uint8_t value, scalar<uint8_t>(index, OperandType::BOOL));
    return value != 0;
  }

  // A constant TENSOR_INT32's values (axes, shapes, paddings).
  hal::Result<std::vector<int32_t>> int32Values(uint32_t index) const {
    const Operand& o = operand(index);
    if (o.type != OperandType::TENSOR_INT32 || !isConstant(o)) {
      return unsupported() << "operand " << index << " must be a constant TENSOR_INT32";
    }
    std::vector<int32_t> values(hal::elementCount(o.dimensions));
    if (!values.empty()) std::memcpy(values.data(), constantData(o), values.size() * sizeof(int32_t));
    return values;
  }

  // A dimension index that may count from the end, checked against `rank`.
  static hal::Result<unsigned> axisIn(int32_t axis, size_t rank) {
    const int64_t resolved = axis < 0 ? axis + int64_t(rank) : axis;
    if (resolved < 0 || resolved >= int64_t(rank)) return unsupported() << "axis " << axis << " outside rank " << rank;
    return static_cast<unsigned>(resolved);
  }

  size_t rankOf(uint32_t index) const { return operand(index).dimensions.size(); }

  hal::Result<armnn::ConstTensor> constantTensor(uint32_t index) const {
    NN_ASSIGN_OR_RETURN(auto info, tensorInfo(index));
    if (!isConstant(operand(index))) return unsupported() << "operand " << index << " must be constant (weights)";
    return armnn::ConstTensor(info, constantData(operand(index)));
  }

  armnn::IOutputSlot* addInput(uint32_t index) {
    auto* layer = result_.network->AddInputLayer(static_cast<armnn::LayerBindingId>(result_.inputOperands.size()));
    result_.inputOperands.push_back(index);
    auto info = tensorInfo(index);
    if (info.ok()) layer->GetOutputSlot(0).SetTensorInfo(*info);
    slots_[index] = &layer->GetOutputSlot(0);
    return slots_[index];
  }

  // The slot that produces operand `index`: an earlier layer's, a constant layer, or a new
  // network input for a tensor nothing here produces.
  hal::Result<armnn::IOutputSlot*> slotOf(uint32_t index) {
    if (auto found = slots_.find(index); found != slots_.end()) return found->second;
    NN_ASSIGN_OR_RETURN(auto info, tensorInfo(index));
    if (isConstant(operand(index))) {
      auto* layer = result_.network->AddConstantLayer(armnn::ConstTensor(info, constantData(operand(index))));
      layer->GetOutputSlot(0).SetTensorInfo(info);
      return slots_[index] = &layer->GetOutputSlot(0);
    }
    if (operand(index).lifetime == Operand::LifeTime::TEMPORARY_VARIABLE && wholeModel_) {
      return unsupported() << "operand " << index << " is read before it is written";
    }
    return addInput(index);
  }

  // Connects `layer`'s input slots to `operands` in order.
  hal::Status connectInputs(armnn::IConnectableLayer* layer, const std::vector<uint32_t>& operands) {
    for (size_t i = 0; i < operands.size(); ++i) {
      NN_ASSIGN_OR_RETURN(auto* slot, slotOf(operands[i]));
      slot->Connect(layer->GetInputSlot(static_cast<unsigned>(i)));
    }
    return {};
  }

  // Sets `slot` to produce operand `index`, after the fused activation `code`.
  hal::Status produce(armnn::IOutputSlot* slot, uint32_t index, int32_t activationCode) {
    NN_ASSIGN_OR_RETURN(auto info, tensorInfo(index));
    slot->SetTensorInfo(info);
    if (activationCode != 0) {
      armnn::ActivationDescriptor activation;
      switch (activationCode) {
        case 1: activation.m_Function = armnn::ActivationFunction::ReLu; break;
        case 2:
          activation.m_Function = armnn::ActivationFunction::BoundedReLu;
          activation.m_A = 1.0f;
          activation.m_B = -1.0f;
          break;
        case 3:
          activation.m_Function = armnn::ActivationFunction::BoundedReLu;
          activation.m_A = 6.0f;
          activation.m_B = 0.0f;
          break;
        default: return unsupported() << "fused activation " << activationCode << " is not NONE, RELU, RELU1 or RELU6";
      }
      auto* layer = result_.network->AddActivationLayer(activation);
      slot->Connect(layer->GetInputSlot(0));
      slot = &layer->GetOutputSlot(0);
      slot->SetTensorInfo(info);
    }
    slots_[index] = slot;
    return {};
  }

  // A reshape in front of `index`'s slot, to `shape`.
  hal::Result<armnn::IOutputSlot*> reshaped(uint32_t index, const armnn::TensorShape& shape) {
    NN_ASSIGN_OR_RETURN(auto* slot, slotOf(index));
    armnn::ReshapeDescriptor descriptor;
    descriptor.m_TargetShape = shape;
    auto* layer = result_.network->AddReshapeLayer(descriptor);
    slot->Connect(layer->GetInputSlot(0));
    NN_ASSIGN_OR_RETURN(armnn::TensorInfo info, tensorInfo(index));
    info.SetShape(shape);
    layer->GetOutputSlot(0).SetTensorInfo(info);
    return &layer->GetOutputSlot(0);
  }

  hal::Status expectInputs(const hal::Operation& operation, std::initializer_list<size_t> counts) const {
    if (std::find(counts.begin(), counts.end(), operation.inputs.size()) != counts.end()) return {};
    return unsupported() << operation.inputs.size() << " inputs is not a form that is lowered";
  }

  // Two-tensor operations that broadcast: arithmetic (with a fused activation where NNAPI has
  // one), MAXIMUM, MINIMUM, PRELU and the comparisons.
  hal::Status lowerElementwise(const hal::Operation& operation) {
    static const std::map<OperationType, armnn::ComparisonOperation> kComparisons = {
        {OperationType::EQUAL, armnn::ComparisonOperation::Equal},
        {OperationType::NOT_EQUAL, armnn::ComparisonOperation::NotEqual},
        {OperationType::GREATER, armnn::ComparisonOperation::Greater},
        {OperationType::GREATER_EQUAL, armnn::ComparisonOperation::GreaterOrEqual},
        {OperationType::LESS, armnn::ComparisonOperation::Less},
        {OperationType::LESS_EQUAL, armnn::ComparisonOperation::LessOrEqual}};
    const bool fusedActivation = operation.type == OperationType::ADD || operation.type == OperationType::SUB ||
                                 operation.type == OperationType::MUL || operation.type == OperationType::DIV;
    NN_RETURN_IF_ERROR(expectInputs(operation, {fusedActivation ? size_t{3} : size_t{2}}));
    int32_t activation = 0;
    if (fusedActivation) {
      NN_ASSIGN_OR_RETURN(activation, int32Scalar(operation.inputs[2]));
    }
    NN_ASSIGN_OR_RETURN(auto a, tensorInfo(operation.inputs[0]));
    NN_ASSIGN_OR_RETURN(auto b, tensorInfo(operation.inputs[1]));
    if (operation.type == OperationType::DIV && a.GetDataType() == armnn::DataType::Signed32) {
      // Arm NN divides integers with the CPU's own division: a zero divisor kills the process,
      // where NNAPI defines the result.
      return unsupported() << "integer DIV";
    }
    armnn::IConnectableLayer* layer = nullptr;
    switch (operation.type) {
      case OperationType::ADD: layer = result_.network->AddAdditionLayer(); break;
      case OperationType::SUB: layer = result_.network->AddSubtractionLayer(); break;
      case OperationType::MUL: layer = result_.network->AddMultiplicationLayer(); break;
      case OperationType::DIV: layer = result_.network->AddDivisionLayer(); break;
      case OperationType::MAXIMUM: layer = result_.network->AddMaximumLayer(); break;
      case OperationType::MINIMUM: layer = result_.network->AddMinimumLayer(); break;
      case OperationType::PRELU: layer = result_.network->AddPreluLayer(); break;
      default:
        layer = result_.network->AddComparisonLayer(armnn::ComparisonDescriptor(kComparisons.at(operation.type)));
        break;
    }
    // Arm NN broadcasts between tensors of one rank; NNAPI aligns lower ranks to the right.
    const unsigned rank = std::max(a.GetNumDimensions(), b.GetNumDimensions());
    for (unsigned i = 0; i < 2; ++i) {
      const auto& info = i == 0 ? a : b;
      armnn::IOutputSlot* slot = nullptr;
      if (info.GetNumDimensions() == rank) {
        NN_ASSIGN_OR_RETURN(slot, slotOf(operation.inputs[i]));
      } else {
        std::vector<unsigned> dims(rank - info.GetNumDimensions(), 1u);
        for (unsigned d = 0; d < info.GetNumDimensions(); ++d) dims.push_back(info.GetShape()[d]);
        NN_ASSIGN_OR_RETURN(slot, reshaped(operation.inputs[i], armnn::TensorShape(rank, dims.data())));
      }
      slot->Connect(layer->GetInputSlot(i));
    }
    return produce(&layer->GetOutputSlot(0), operation.outputs[0], activation);
  }

  hal::Status lowerActivation(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {1}));
    armnn::ActivationDescriptor descriptor;
    switch (operation.type) {
      case OperationType::RELU: descriptor.m_Function = armnn::ActivationFunction::ReLu; break;
      case OperationType::RELU1:
        descriptor.m_Function = armnn::ActivationFunction::BoundedReLu;
        descriptor.m_A = 1.0f;
        descriptor.m_B = -1.0f;
        break;
      case OperationType::RELU6:
        descriptor.m_Function = armnn::ActivationFunction::BoundedReLu;
        descriptor.m_A = 6.0f;
        descriptor.m_B = 0.0f;
        break;
      case OperationType::LOGISTIC: descriptor.m_Function = armnn::ActivationFunction::Sigmoid; break;
      default:
        descriptor.m_Function = armnn::ActivationFunction::TanH;
        descriptor.m_A = 1.0f;
        descriptor.m_B = 1.0f;
        break;
    }
    auto* layer = result_.network->AddActivationLayer(descriptor);
    NN_RETURN_IF_ERROR(connectInputs(layer, {operation.inputs[0]}));
    return produce(&layer->GetOutputSlot(0), operation.outputs[0], 0);
  }

  // NNAPI's implicit padding (1 SAME, 2 VALID) as explicit head and tail padding.
  static hal::Status implicitPadding(int32_t scheme, uint32_t in, uint32_t stride, uint32_t kernel, uint32_t dilation,
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
  hal::Result<size_t> readWindow(const hal::Operation& operation, size_t first, bool explicitPadding, uint32_t kernelW,
                                 uint32_t kernelH, uint32_t dilationW, uint32_t dilationH, armnn::DataLayout layout,
                                 Descriptor* descriptor) {
    const auto& inputDims = operand(operation.inputs[0]).dimensions;
    const uint32_t inputH = inputDims[heightIndex(layout)], inputW = inputDims[heightIndex(layout) + 1];
    size_t next = first;
    std::vector<int32_t> values;
    const size_t count = explicitPadding ? 6 : 3;
    for (size_t i = 0; i < count; ++i) {
      NN_ASSIGN_OR_RETURN(int32_t value, int32Scalar(operation.inputs[next + i]));
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

  // The optional trailing layout flag: NCHW when true, NHWC when false or absent.
  hal::Result<armnn::DataLayout> layoutOf(const hal::Operation& operation, size_t layoutIndex) const {
    if (operation.inputs.size() <= layoutIndex) return armnn::DataLayout::NHWC;
    NN_ASSIGN_OR_RETURN(const bool nchw, boolScalar(operation.inputs[layoutIndex]));
    return nchw ? armnn::DataLayout::NCHW : armnn::DataLayout::NHWC;
  }
  static size_t heightIndex(armnn::DataLayout layout) { return layout == armnn::DataLayout::NHWC ? 1 : 2; }
  static size_t channelIndex(armnn::DataLayout layout) { return layout == armnn::DataLayout::NHWC ? 3 : 1; }

  // `filter` with its dimensions reordered: output dimension i is input dimension order[i]. The
  // bytes are kept until the network is built; per-channel scales stay on dimension 0, which
  // every order used here keeps in place.
  armnn::ConstTensor permutedFilter(const armnn::ConstTensor& filter, const std::array<unsigned, 4>& order) {
    const armnn::TensorShape& from = filter.GetShape();
    const unsigned to[4] = {from[order[0]], from[order[1]], from[order[2]], from[order[3]]};
    const size_t elementBytes = filter.GetInfo().GetNumBytes() / filter.GetInfo().GetNumElements();
    const auto* source = static_cast<const uint8_t*>(filter.GetMemoryArea());
    auto& permuted = permutedWeights_.emplace_back(filter.GetInfo().GetNumBytes());
    unsigned index[4];
    for (index[0] = 0; index[0] < to[0]; ++index[0])
      for (index[1] = 0; index[1] < to[1]; ++index[1])
        for (index[2] = 0; index[2] < to[2]; ++index[2])
          for (index[3] = 0; index[3] < to[3]; ++index[3]) {
            unsigned sourceIndex[4];
            for (int d = 0; d < 4; ++d) sourceIndex[order[d]] = index[d];
            const size_t target = ((size_t(index[0]) * to[1] + index[1]) * to[2] + index[2]) * to[3] + index[3];
            const size_t origin =
                ((size_t(sourceIndex[0]) * from[1] + sourceIndex[1]) * from[2] + sourceIndex[2]) * from[3] + sourceIndex[3];
            std::memcpy(&permuted[target * elementBytes], &source[origin * elementBytes], elementBytes);
          }
    armnn::TensorInfo info = filter.GetInfo();
    info.SetShape(armnn::TensorShape(4, to));
    return armnn::ConstTensor(info, permuted.data());
  }

  hal::Status lowerConvolution(const hal::Operation& operation) {
    const size_t n = operation.inputs.size();
    const bool depthwise = operation.type == OperationType::DEPTHWISE_CONV_2D;
    // Implicit padding has a scheme where explicit padding has its left pad; the forms differ by
    // input count, except where the layout flag makes them equal (told apart by its BOOL type).
    const size_t base = depthwise ? 8 : 7;
    const bool implicitForm = n == base || n == base + 1 || (n == base + 3 && operand(operation.inputs[base]).type == OperandType::BOOL);
    NN_RETURN_IF_ERROR(expectInputs(operation, depthwise ? std::initializer_list<size_t>{8, 9, 11, 12, 14}
                                                         : std::initializer_list<size_t>{7, 8, 10, 11, 13}));
    if (operand(operation.inputs[0]).dimensions.size() != 4) return unsupported() << "the input is not 4-D";
    NN_ASSIGN_OR_RETURN(auto filter, constantTensor(operation.inputs[1]));
    NN_ASSIGN_OR_RETURN(auto bias, constantTensor(operation.inputs[2]));
    if (filter.GetInfo().HasPerAxisQuantization()) {
      // NNAPI leaves a per-channel bias's scale 0: each channel's is the input's times the
      // filter's. Arm NN wants them spelled out (and aborts on a single scale of 0).
      const float inputScale = operand(operation.inputs[0]).scale;
      std::vector<float> biasScales;
      for (float filterScale : filter.GetInfo().GetQuantizationScales()) biasScales.push_back(inputScale * filterScale);
      armnn::TensorInfo biasInfo(bias.GetShape(), armnn::DataType::Signed32, biasScales, 0);
      bias = armnn::ConstTensor(biasInfo, bias.GetMemoryArea());
    }
    const auto& filterDims = operand(operation.inputs[1]).dimensions;
    const size_t afterStrides = implicitForm ? 6 : 9;
    const size_t activationIndex = afterStrides + (depthwise ? 1 : 0);
    const size_t layoutIndex = activationIndex + 1;
    uint32_t dilationW = 1, dilationH = 1;
    if (n == layoutIndex + 3) {
      NN_ASSIGN_OR_RETURN(int32_t w, int32Scalar(operation.inputs[layoutIndex + 1]));
      NN_ASSIGN_OR_RETURN(int32_t h, int32Scalar(operation.inputs[layoutIndex + 2]));
      if (w < 1 || h < 1) return unsupported() << "dilation below 1";
      dilationW = w;
      dilationH = h;
    }
    NN_ASSIGN_OR_RETURN(const armnn::DataLayout layout, layoutOf(operation, layoutIndex));
    NN_ASSIGN_OR_RETURN(const int32_t activation, int32Scalar(operation.inputs[activationIndex]));
    armnn::IConnectableLayer* layer = nullptr;
    if (!depthwise) {
      armnn::Convolution2dDescriptor descriptor;
      descriptor.m_DataLayout = layout;
      descriptor.m_BiasEnabled = true;
      descriptor.m_DilationX = dilationW;
      descriptor.m_DilationY = dilationH;
      NN_RETURN_IF_ERROR(readWindow(operation, 3, !implicitForm, filterDims[2], filterDims[1], dilationW, dilationH,
                                    layout, &descriptor)
                             .status());
      // NNAPI's [O, H, W, I] filter is what Arm NN takes for NHWC; for NCHW it takes [O, I, H, W].
      if (layout == armnn::DataLayout::NCHW) filter = permutedFilter(filter, {0, 3, 1, 2});
      layer = result_.network->AddConvolution2dLayer(descriptor, filter, armnn::Optional<armnn::ConstTensor>(bias));
    } else {
      armnn::DepthwiseConvolution2dDescriptor descriptor;
      descriptor.m_DataLayout = layout;
      descriptor.m_BiasEnabled = true;
      descriptor.m_DilationX = dilationW;
      descriptor.m_DilationY = dilationH;
      NN_RETURN_IF_ERROR(readWindow(operation, 3, !implicitForm, filterDims[2], filterDims[1], dilationW, dilationH,
                                    layout, &descriptor)
                             .status());
      NN_ASSIGN_OR_RETURN(const int32_t multiplier, int32Scalar(operation.inputs[afterStrides]));
      const uint32_t inputChannels = operand(operation.inputs[0]).dimensions[channelIndex(layout)];
      if (multiplier < 1 || filterDims[0] != 1 || filterDims[3] != inputChannels * uint32_t(multiplier)) {
        return unsupported() << "the filter is not [1, H, W, channels x multiplier]";
      }
      // NNAPI's [1, H, W, I*M] filter to Arm NN's [M, I, H, W], element by element whatever the
      // type. Per-channel scales would have to follow the permutation; they are not lowered.
      if (filter.GetInfo().HasPerAxisQuantization()) return unsupported() << "a per-channel depthwise filter";
      // [1, H, W, I*M] is [H, W, I, M] in memory.
      armnn::TensorInfo hwim = filter.GetInfo();
      hwim.SetShape(armnn::TensorShape({filterDims[1], filterDims[2], inputChannels, uint32_t(multiplier)}));
      const armnn::ConstTensor weights = permutedFilter(armnn::ConstTensor(hwim, filter.GetMemoryArea()), {3, 2, 0, 1});
      layer = result_.network->AddDepthwiseConvolution2dLayer(descriptor, weights, armnn::Optional<armnn::ConstTensor>(bias));
    }
    NN_RETURN_IF_ERROR(connectInputs(layer, {operation.inputs[0]}));
    return produce(&layer->GetOutputSlot(0), operation.outputs[0], activation);
  }

  hal::Status lowerPooling(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {7, 8, 10, 11}));
    if (operand(operation.inputs[0]).dimensions.size() != 4) return unsupported() << "the input is not 4-D";
    const bool implicitForm = operation.inputs.size() <= 8;
    armnn::Pooling2dDescriptor descriptor;
    descriptor.m_PaddingMethod = armnn::PaddingMethod::Exclude;
    descriptor.m_OutputShapeRounding = armnn::OutputShapeRounding::Floor;
    descriptor.m_PoolType = operation.type == OperationType::MAX_POOL_2D       ? armnn::PoolingAlgorithm::Max
                            : operation.type == OperationType::AVERAGE_POOL_2D ? armnn::PoolingAlgorithm::Average
                                                                                : armnn::PoolingAlgorithm::L2;
    const size_t filterIndex = implicitForm ? 4 : 7;
    NN_ASSIGN_OR_RETURN(const int32_t filterW, int32Scalar(operation.inputs[filterIndex]));
    NN_ASSIGN_OR_RETURN(const int32_t filterH, int32Scalar(operation.inputs[filterIndex + 1]));
    if (filterW < 1 || filterH < 1) return unsupported() << "a filter below 1";
    descriptor.m_PoolWidth = filterW;
    descriptor.m_PoolHeight = filterH;
    // Pooling lists strides before the filter, so read the window with the filter known.
    NN_ASSIGN_OR_RETURN(descriptor.m_DataLayout, layoutOf(operation, filterIndex + 3));
    NN_RETURN_IF_ERROR(
        readWindow(operation, 1, !implicitForm, filterW, filterH, 1, 1, descriptor.m_DataLayout, &descriptor).status());
    NN_ASSIGN_OR_RETURN(const int32_t activation, int32Scalar(operation.inputs[filterIndex + 2]));
    auto* layer = result_.network->AddPooling2dLayer(descriptor);
    NN_RETURN_IF_ERROR(connectInputs(layer, {operation.inputs[0]}));
    return produce(&layer->GetOutputSlot(0), operation.outputs[0], activation);
  }

  hal::Status lowerFullyConnected(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {4}));
    NN_ASSIGN_OR_RETURN(auto weights, constantTensor(operation.inputs[1]));
    NN_ASSIGN_OR_RETURN(auto bias, constantTensor(operation.inputs[2]));
    NN_ASSIGN_OR_RETURN(const int32_t activation, int32Scalar(operation.inputs[3]));
    NN_ASSIGN_OR_RETURN(auto input, tensorInfo(operation.inputs[0]));
    const unsigned inputSize = weights.GetShape()[1];
    if (weights.GetNumDimensions() != 2 || inputSize == 0 || input.GetNumElements() % inputSize != 0) {
      return unsupported() << "the weights are not [units, input size] for this input";
    }
    const unsigned shape[] = {input.GetNumElements() / inputSize, inputSize};
    NN_ASSIGN_OR_RETURN(auto* slot, reshaped(operation.inputs[0], armnn::TensorShape(2, shape)));
    armnn::FullyConnectedDescriptor descriptor;
    descriptor.m_BiasEnabled = true;
    descriptor.m_TransposeWeightMatrix = true;
    auto* layer = result_.network->AddFullyConnectedLayer(descriptor, weights, armnn::Optional<armnn::ConstTensor>(bias));
    slot->Connect(layer->GetInputSlot(0));
    return produce(&layer->GetOutputSlot(0), operation.outputs[0], activation);
  }

  hal::Status lowerSoftmax(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {2, 3}));
    NN_ASSIGN_OR_RETURN(const float beta, floatScalar(operation.inputs[1]));
    const int rank = static_cast<int>(operand(operation.inputs[0]).dimensions.size());
    if (operation.inputs.size() == 3) {
      NN_ASSIGN_OR_RETURN(const int32_t axis, int32Scalar(operation.inputs[2]));
      if (axis != -1 && axis != rank - 1) return unsupported() << "softmax over an axis other than the last";
    }
    armnn::SoftmaxDescriptor descriptor;
    descriptor.m_Beta = beta;
    auto* layer = result_.network->AddSoftmaxLayer(descriptor);
    NN_RETURN_IF_ERROR(connectInputs(layer, {operation.inputs[0]}));
    return produce(&layer->GetOutputSlot(0), operation.outputs[0], 0);
  }

  hal::Status lowerReshape(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {2}));
    NN_ASSIGN_OR_RETURN(auto output, tensorInfo(operation.outputs[0]));
    NN_ASSIGN_OR_RETURN(auto* slot, reshaped(operation.inputs[0], output.GetShape()));
    return produce(slot, operation.outputs[0], 0);
  }

  hal::Status lowerConcatenation(const hal::Operation& operation) {
    if (operation.inputs.size() < 2) return unsupported() << "no tensors to concatenate";
    const size_t tensors = operation.inputs.size() - 1;
    NN_ASSIGN_OR_RETURN(int32_t axis, int32Scalar(operation.inputs[tensors]));
    std::vector<armnn::TensorShape> shapes;
    for (size_t i = 0; i < tensors; ++i) {
      NN_ASSIGN_OR_RETURN(auto info, tensorInfo(operation.inputs[i]));
      shapes.push_back(info.GetShape());
    }
    const int rank = static_cast<int>(shapes[0].GetNumDimensions());
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return unsupported() << "axis " << axis << " outside the rank";
    auto descriptor = armnn::CreateDescriptorForConcatenation(shapes.begin(), shapes.end(), static_cast<unsigned>(axis));
    auto* layer = result_.network->AddConcatLayer(descriptor);
    NN_RETURN_IF_ERROR(connectInputs(layer, std::vector<uint32_t>(operation.inputs.begin(), operation.inputs.end() - 1)));
    return produce(&layer->GetOutputSlot(0), operation.outputs[0], 0);
  }

  // One input tensor through `layer`; the other inputs were read into its descriptor.
  hal::Status lowerThrough(armnn::IConnectableLayer* layer, const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(connectInputs(layer, {operation.inputs[0]}));
    return produce(&layer->GetOutputSlot(0), operation.outputs[0], 0);
  }

  hal::Status lowerUnary(const hal::Operation& operation) {
    static const std::map<OperationType, armnn::UnaryOperation> kUnary = {
        {OperationType::ABS, armnn::UnaryOperation::Abs},     {OperationType::EXP, armnn::UnaryOperation::Exp},
        {OperationType::NEG, armnn::UnaryOperation::Neg},     {OperationType::RSQRT, armnn::UnaryOperation::Rsqrt},
        {OperationType::SQRT, armnn::UnaryOperation::Sqrt}};
    NN_RETURN_IF_ERROR(expectInputs(operation, {1}));
    return lowerThrough(
        result_.network->AddElementwiseUnaryLayer(armnn::ElementwiseUnaryDescriptor(kUnary.at(operation.type))),
        operation);
  }

  // SQUEEZE, EXPAND_DIMS: a reshape to the output's shape, which the model gives.
  hal::Status lowerReshapeToOutput(const hal::Operation& operation) {
    NN_ASSIGN_OR_RETURN(auto output, tensorInfo(operation.outputs[0]));
    NN_ASSIGN_OR_RETURN(auto* slot, reshaped(operation.inputs[0], output.GetShape()));
    return produce(slot, operation.outputs[0], 0);
  }

  hal::Status lowerPad(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {operation.type == OperationType::PAD ? size_t{2} : size_t{3}}));
    NN_ASSIGN_OR_RETURN(const auto paddings, int32Values(operation.inputs[1]));
    if (paddings.size() != 2 * rankOf(operation.inputs[0])) return unsupported() << "paddings are not [rank, 2]";
    armnn::PadDescriptor descriptor;
    for (size_t i = 0; i < paddings.size(); i += 2) {
      if (paddings[i] < 0 || paddings[i + 1] < 0) return unsupported() << "a negative padding";
      descriptor.m_PadList.emplace_back(paddings[i], paddings[i + 1]);
    }
    // Arm NN writes m_PadValue into quantized tensors as it is, so a quantized tensor's padding
    // is given in its own units: the zero point (NNAPI pads with real 0), or PAD_V2's value.
    const Operand& input = operand(operation.inputs[0]);
    const bool quantized = input.type == OperandType::TENSOR_QUANT8_ASYMM || input.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    if (operation.type == OperationType::PAD_V2) {
      if (operand(operation.inputs[2]).type == OperandType::INT32) {
        NN_ASSIGN_OR_RETURN(const int32_t value, int32Scalar(operation.inputs[2]));
        descriptor.m_PadValue = float(value);
      } else {
        NN_ASSIGN_OR_RETURN(descriptor.m_PadValue, floatScalar(operation.inputs[2]));
      }
    } else if (quantized) {
      descriptor.m_PadValue = float(input.zeroPoint);
    }
    return lowerThrough(result_.network->AddPadLayer(descriptor), operation);
  }

  hal::Status lowerTranspose(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {1, 2}));
    const size_t rank = rankOf(operation.inputs[0]);
    std::vector<unsigned> permutation;
    if (operation.inputs.size() == 2 && operand(operation.inputs[1]).lifetime != Operand::LifeTime::NO_VALUE) {
      NN_ASSIGN_OR_RETURN(const auto values, int32Values(operation.inputs[1]));
      for (int32_t value : values) permutation.push_back(static_cast<unsigned>(value));
    } else {
      for (size_t i = 0; i < rank; ++i) permutation.push_back(static_cast<unsigned>(rank - 1 - i));
    }
    if (permutation.size() != rank) return unsupported() << "the permutation does not have the input's rank";
    std::vector<unsigned> seen(rank, 0);
    for (unsigned p : permutation) {
      if (p >= rank || seen[p]++) return unsupported() << "not a permutation";
    }
    armnn::PermutationVector mappings(permutation.data(), static_cast<armnn::PermutationVector::SizeType>(rank));
    return lowerThrough(result_.network->AddTransposeLayer(armnn::TransposeDescriptor(mappings)), operation);
  }

  hal::Status lowerMean(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {3}));
    NN_ASSIGN_OR_RETURN(const auto axes, int32Values(operation.inputs[1]));
    NN_ASSIGN_OR_RETURN(const int32_t keepDims, int32Scalar(operation.inputs[2]));
    std::vector<unsigned> resolved;
    for (int32_t axis : axes) {
      NN_ASSIGN_OR_RETURN(const unsigned a, axisIn(axis, rankOf(operation.inputs[0])));
      if (std::find(resolved.begin(), resolved.end(), a) == resolved.end()) resolved.push_back(a);
    }
    std::sort(resolved.begin(), resolved.end());
    return lowerThrough(result_.network->AddMeanLayer(armnn::MeanDescriptor(resolved, keepDims != 0)), operation);
  }

  hal::Status lowerBlockRearrangement(const hal::Operation& operation) {
    if (rankOf(operation.inputs[0]) != 4) return unsupported() << "the input is not 4-D";
    switch (operation.type) {
      case OperationType::SPACE_TO_DEPTH:
      case OperationType::DEPTH_TO_SPACE: {
        NN_RETURN_IF_ERROR(expectInputs(operation, {2, 3}));
        NN_ASSIGN_OR_RETURN(const armnn::DataLayout layout, layoutOf(operation, 2));
        NN_ASSIGN_OR_RETURN(const int32_t block, int32Scalar(operation.inputs[1]));
        if (block < 1) return unsupported() << "a block size below 1";
        armnn::SpaceToDepthDescriptor descriptor(static_cast<unsigned>(block), layout);
        return lowerThrough(operation.type == OperationType::SPACE_TO_DEPTH
                                ? result_.network->AddSpaceToDepthLayer(descriptor)
                                : result_.network->AddDepthToSpaceLayer(descriptor),
                            operation);
      }
      case OperationType::BATCH_TO_SPACE_ND: {
        NN_RETURN_IF_ERROR(expectInputs(operation, {2, 3}));
        NN_ASSIGN_OR_RETURN(const armnn::DataLayout layout, layoutOf(operation, 2));
        NN_ASSIGN_OR_RETURN(const auto block, int32Values(operation.inputs[1]));
        if (block.size() != 2 || block[0] < 1 || block[1] < 1) return unsupported() << "the block shape is not 2 sizes";
        armnn::BatchToSpaceNdDescriptor descriptor({unsigned(block[0]), unsigned(block[1])}, {{0, 0}, {0, 0}});
        descriptor.m_DataLayout = layout;
        return lowerThrough(result_.network->AddBatchToSpaceNdLayer(descriptor), operation);
      }
      default: {  // SPACE_TO_BATCH_ND
        NN_RETURN_IF_ERROR(expectInputs(operation, {3, 4}));
        NN_ASSIGN_OR_RETURN(const armnn::DataLayout layout, layoutOf(operation, 3));
        NN_ASSIGN_OR_RETURN(const auto block, int32Values(operation.inputs[1]));
        NN_ASSIGN_OR_RETURN(const auto paddings, int32Values(operation.inputs[2]));
        if (block.size() != 2 || block[0] < 1 || block[1] < 1 || paddings.size() != 4) {
          return unsupported() << "the block shape is not 2 sizes, or the paddings not [2, 2]";
        }
        for (int32_t padding : paddings) {
          if (padding < 0) return unsupported() << "a negative padding";
        }
        armnn::SpaceToBatchNdDescriptor descriptor(
            {unsigned(block[0]), unsigned(block[1])},
            {{unsigned(paddings[0]), unsigned(paddings[1])}, {unsigned(paddings[2]), unsigned(paddings[3])}});
        descriptor.m_DataLayout = layout;
        return lowerThrough(result_.network->AddSpaceToBatchNdLayer(descriptor), operation);
      }
    }
  }

  // The trailing axis operand of a normalization must name the last dimension of a 4-D input
  // (NHWC channels): that is the form Arm NN normalizes.
  hal::Status expectLastAxisOf4d(const hal::Operation& operation, size_t axisIndex) const {
    const size_t rank = rankOf(operation.inputs[0]);
    if (operation.inputs.size() > axisIndex) {
      NN_ASSIGN_OR_RETURN(const int32_t axis, int32Scalar(operation.inputs[axisIndex]));
      NN_ASSIGN_OR_RETURN(const unsigned resolved, axisIn(axis, rank));
      if (resolved != rank - 1) return unsupported() << "normalization over an axis other than the last";
    }
    if (rank != 4) return unsupported() << "the input is not 4-D";
    return {};
  }

  hal::Status lowerL2Normalization(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {1, 2}));
    NN_RETURN_IF_ERROR(expectLastAxisOf4d(operation, 1));
    armnn::L2NormalizationDescriptor descriptor;
    descriptor.m_DataLayout = armnn::DataLayout::NHWC;
    descriptor.m_Eps = 1e-12f;
    return lowerThrough(result_.network->AddL2NormalizationLayer(descriptor), operation);
  }

  hal::Status lowerResize(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {3, 4, 5, 6}));
    if (rankOf(operation.inputs[0]) != 4) return unsupported() << "the input is not 4-D";
    const auto& outputDims = operand(operation.outputs[0]).dimensions;
    if (outputDims.size() != 4) return unsupported() << "the output shape is not known";
    armnn::ResizeDescriptor descriptor;
    descriptor.m_Method = operation.type == OperationType::RESIZE_BILINEAR ? armnn::ResizeMethod::Bilinear
                                                                         : armnn::ResizeMethod::NearestNeighbor;
    NN_ASSIGN_OR_RETURN(descriptor.m_DataLayout, layoutOf(operation, 3));
    // The size operands are sizes (INT32) or scales (FLOAT); the output's shape settles both.
    descriptor.m_TargetHeight = outputDims[heightIndex(descriptor.m_DataLayout)];
    descriptor.m_TargetWidth = outputDims[heightIndex(descriptor.m_DataLayout) + 1];
    if (operation.inputs.size() >= 5) {
      NN_ASSIGN_OR_RETURN(descriptor.m_AlignCorners, boolScalar(operation.inputs[4]));
    }
    if (operation.inputs.size() >= 6) {
      NN_ASSIGN_OR_RETURN(descriptor.m_HalfPixelCenters, boolScalar(operation.inputs[5]));
    }
    return lowerThrough(result_.network->AddResizeLayer(descriptor), operation);
  }

  hal::Status lowerArgMinMax(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {2}));
    NN_ASSIGN_OR_RETURN(const int32_t axis, int32Scalar(operation.inputs[1]));
    NN_ASSIGN_OR_RETURN(const unsigned resolved, axisIn(axis, rankOf(operation.inputs[0])));
    armnn::ArgMinMaxDescriptor descriptor;
    descriptor.m_Function =
        operation.type == OperationType::ARGMAX ? armnn::ArgMinMaxFunction::Max : armnn::ArgMinMaxFunction::Min;
    descriptor.m_Axis = static_cast<int>(resolved);
    return lowerThrough(result_.network->AddArgMinMaxLayer(descriptor), operation);
  }

  hal::Status lowerLogSoftmax(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {3}));
    armnn::LogSoftmaxDescriptor descriptor;
    NN_ASSIGN_OR_RETURN(descriptor.m_Beta, floatScalar(operation.inputs[1]));
    NN_ASSIGN_OR_RETURN(const int32_t axis, int32Scalar(operation.inputs[2]));
    NN_ASSIGN_OR_RETURN(const unsigned resolved, axisIn(axis, rankOf(operation.inputs[0])));
    descriptor.m_Axis = static_cast<int>(resolved);
    return lowerThrough(result_.network->AddLogSoftmaxLayer(descriptor), operation);
  }

  hal::Status lowerSlice(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {3}));
    NN_ASSIGN_OR_RETURN(const auto begin, int32Values(operation.inputs[1]));
    NN_ASSIGN_OR_RETURN(const auto size, int32Values(operation.inputs[2]));
    const auto& dims = operand(operation.inputs[0]).dimensions;
    if (begin.size() != dims.size() || size.size() != dims.size()) return unsupported() << "begin or size is not [rank]";
    std::vector<unsigned> from, count;
    for (size_t i = 0; i < dims.size(); ++i) {
      // -1 takes the rest of the dimension.
      const int64_t n = size[i] == -1 ? int64_t(dims[i]) - begin[i] : size[i];
      if (begin[i] < 0 || n < 1 || begin[i] + n > int64_t(dims[i])) return unsupported() << "a slice out of range";
      from.push_back(unsigned(begin[i]));
      count.push_back(unsigned(n));
    }
    return lowerThrough(result_.network->AddSliceLayer(armnn::SliceDescriptor(from, count)), operation);
  }

  hal::Status lowerStridedSlice(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {7}));
    NN_ASSIGN_OR_RETURN(const auto begin, int32Values(operation.inputs[1]));
    NN_ASSIGN_OR_RETURN(const auto end, int32Values(operation.inputs[2]));
    NN_ASSIGN_OR_RETURN(const auto strides, int32Values(operation.inputs[3]));
    for (int32_t stride : strides) {
      if (stride == 0) return unsupported() << "a stride of 0";
    }
    armnn::StridedSliceDescriptor descriptor(std::vector<int>(begin.begin(), begin.end()),
                                             std::vector<int>(end.begin(), end.end()),
                                             std::vector<int>(strides.begin(), strides.end()));
    NN_ASSIGN_OR_RETURN(descriptor.m_BeginMask, int32Scalar(operation.inputs[4]));
    NN_ASSIGN_OR_RETURN(descriptor.m_EndMask, int32Scalar(operation.inputs[5]));
    NN_ASSIGN_OR_RETURN(descriptor.m_ShrinkAxisMask, int32Scalar(operation.inputs[6]));
    descriptor.m_DataLayout = armnn::DataLayout::NHWC;
    return lowerThrough(result_.network->AddStridedSliceLayer(descriptor), operation);
  }

  hal::Status lowerLocalResponseNormalization(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {5, 6}));
    NN_RETURN_IF_ERROR(expectLastAxisOf4d(operation, 5));
    NN_ASSIGN_OR_RETURN(const int32_t radius, int32Scalar(operation.inputs[1]));
    if (radius < 0) return unsupported() << "a negative radius";
    armnn::NormalizationDescriptor descriptor;
    descriptor.m_NormChannelType = armnn::NormalizationAlgorithmChannel::Across;
    descriptor.m_NormMethodType = armnn::NormalizationAlgorithmMethod::LocalBrightness;
    descriptor.m_DataLayout = armnn::DataLayout::NHWC;
    // Arm NN's window is the whole 2r+1 channels.
    descriptor.m_NormSize = static_cast<uint32_t>(2 * radius + 1);
    NN_ASSIGN_OR_RETURN(descriptor.m_K, floatScalar(operation.inputs[2]));
    NN_ASSIGN_OR_RETURN(descriptor.m_Alpha, floatScalar(operation.inputs[3]));
    NN_ASSIGN_OR_RETURN(descriptor.m_Beta, floatScalar(operation.inputs[4]));
    return lowerThrough(result_.network->AddNormalizationLayer(descriptor), operation);
  }

  hal::Status lowerGather(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {3}));
    NN_ASSIGN_OR_RETURN(const int32_t axis, int32Scalar(operation.inputs[1]));
    NN_ASSIGN_OR_RETURN(const unsigned resolved, axisIn(axis, rankOf(operation.inputs[0])));
    armnn::GatherDescriptor descriptor;
    descriptor.m_Axis = static_cast<int32_t>(resolved);
    auto* layer = result_.network->AddGatherLayer(descriptor);
    NN_RETURN_IF_ERROR(connectInputs(layer, {operation.inputs[0], operation.inputs[2]}));
    return produce(&layer->GetOutputSlot(0), operation.outputs[0], 0);
  }

  hal::Status lowerQuantization(const hal::Operation& operation) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {1}));
    return lowerThrough(operation.type == OperationType::QUANTIZE ? result_.network->AddQuantizeLayer()
                                                                 : result_.network->AddDequantizeLayer(),
                        operation);
  }

  hal::Status lowerActivationFunction(const hal::Operation& operation) {
    armnn::ActivationDescriptor descriptor;
    if (operation.type == OperationType::HARD_SWISH) {
      NN_RETURN_IF_ERROR(expectInputs(operation, {1}));
      descriptor.m_Function = armnn::ActivationFunction::HardSwish;
    } else {  // ELU
      NN_RETURN_IF_ERROR(expectInputs(operation, {2}));
      descriptor.m_Function = armnn::ActivationFunction::Elu;
      NN_ASSIGN_OR_RETURN(descriptor.m_A, floatScalar(operation.inputs[1]));
    }
    return lowerThrough(result_.network->AddActivationLayer(descriptor), operation);
  }

  hal::Status lowerOperation(const hal::Operation& operation) {
    if (operation.outputs.size() != 1) return unsupported() << "more than one output";
    switch (operation.type) {
      case OperationType::ADD:
      case OperationType::SUB:
      case OperationType::MUL:
      case OperationType::DIV:
      case OperationType::MAXIMUM:
      case OperationType::MINIMUM:
      case OperationType::PRELU:
      case OperationType::EQUAL:
      case OperationType::NOT_EQUAL:
      case OperationType::GREATER:
      case OperationType::GREATER_EQUAL:
      case OperationType::LESS:
      case OperationType::LESS_EQUAL:
        return lowerElementwise(operation);
      case OperationType::ABS:
      case OperationType::EXP:
      case OperationType::NEG:
      case OperationType::RSQRT:
      case OperationType::SQRT:
        return lowerUnary(operation);
      case OperationType::HARD_SWISH:
      case OperationType::ELU:
        return lowerActivationFunction(operation);
      case OperationType::SQUEEZE:
      case OperationType::EXPAND_DIMS:
        return lowerReshapeToOutput(operation);
      case OperationType::PAD:
      case OperationType::PAD_V2:
        return lowerPad(operation);
      case OperationType::TRANSPOSE:
        return lowerTranspose(operation);
      case OperationType::MEAN:
        return lowerMean(operation);
      case OperationType::SPACE_TO_DEPTH:
      case OperationType::DEPTH_TO_SPACE:
      case OperationType::BATCH_TO_SPACE_ND:
      case OperationType::SPACE_TO_BATCH_ND:
        return lowerBlockRearrangement(operation);
      case OperationType::L2_NORMALIZATION:
        return lowerL2Normalization(operation);
      case OperationType::LOCAL_RESPONSE_NORMALIZATION:
        return lowerLocalResponseNormalization(operation);
      case OperationType::RESIZE_BILINEAR:
      case OperationType::RESIZE_NEAREST_NEIGHBOR:
        return lowerResize(operation);
      case OperationType::ARGMAX:
      case OperationType::ARGMIN:
        return lowerArgMinMax(operation);
      case OperationType::LOG_SOFTMAX:
        return lowerLogSoftmax(operation);
      case OperationType::SLICE:
        return lowerSlice(operation);
      case OperationType::STRIDED_SLICE:
        return lowerStridedSlice(operation);
      case OperationType::GATHER:
        return lowerGather(operation);
      case OperationType::QUANTIZE:
      case OperationType::DEQUANTIZE:
        return lowerQuantization(operation);
      case OperationType::RELU:
      case OperationType::RELU1:
      case OperationType::RELU6:
      case OperationType::LOGISTIC:
      case OperationType::TANH:
        return lowerActivation(operation);
      case OperationType::FLOOR: {
        NN_RETURN_IF_ERROR(expectInputs(operation, {1}));
        auto* layer = result_.network->AddFloorLayer();
        NN_RETURN_IF_ERROR(connectInputs(layer, {operation.inputs[0]}));
        return produce(&layer->GetOutputSlot(0), operation.outputs[0], 0);
      }
      case OperationType::CONV_2D:
      case OperationType::DEPTHWISE_CONV_2D:
        return lowerConvolution(operation);
      case OperationType::AVERAGE_POOL_2D:
      case OperationType::MAX_POOL_2D:
      case OperationType::L2_POOL_2D:
        return lowerPooling(operation);
      case OperationType::FULLY_CONNECTED:
        return lowerFullyConnected(operation);
      case OperationType::SOFTMAX:
        return lowerSoftmax(operation);
      case OperationType::RESHAPE:
        return lowerReshape(operation);
      case OperationType::CONCATENATION:
        return lowerConcatenation(operation);
      default:
        return unsupported() << "this operation is not lowered to Arm NN";
    }
  }

 private:
  const hal::Model& model_;
  const hal::Model::Subgraph& graph_;
  const bool wholeModel_;
  LoweredNetwork result_;
  std::map<uint32_t, armnn::IOutputSlot*> slots_;
  // Arm NN copies constant tensors when a layer is added, but keep what we made until then.
  std::vector<std::vector<uint8_t>> permutedWeights_;
};

}  // namespace

hal::Result<LoweredNetwork> lowerModel(const hal::Model& model) {
  if (!model.referenced.empty()) return unsupported() << "control flow (referenced subgraphs) is not lowered";
  if (!model.extensionNameToPrefix.empty()) return unsupported() << "vendor extensions are not lowered";
  Lowerer lowerer(model, /*wholeModel=*/true);
  for (size_t i = 0; i < model.main.operations.size(); ++i) NN_RETURN_IF_ERROR(lowerer.lower(i));
  NN_RETURN_IF_ERROR(lowerer.bindOutputs(model.main.outputIndexes));
  return lowerer.take();
}

hal::Result<LoweredNetwork> lowerOperation(const hal::Model& model, size_t operationIndex) {
  Lowerer lowerer(model, /*wholeModel=*/false);
  NN_RETURN_IF_ERROR(lowerer.lower(operationIndex));
  NN_RETURN_IF_ERROR(lowerer.bindOutputs(model.main.operations[operationIndex].outputs));
  return lowerer.take();
}

}  // namespace nnremote::armnn_backend
