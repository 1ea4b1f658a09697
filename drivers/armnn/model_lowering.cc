// The frame of the Arm NN lowering: LoweringContext (operands, constants, tensors and the slots
// that produce them, fused activations, network inputs and outputs) and the dispatch of each
// operation to its family's lowering (lowering_context.h). The operations themselves are lowered
// in elementwise_lowering.cc, convolution_lowering.cc and shape_lowering.cc.
#include "drivers/armnn/model_lowering.h"

#include <armnn/Descriptors.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "drivers/armnn/lowering_context.h"
#include "hal/float16.h"
#include "hal/operand_types.h"

namespace nnremote::armnn {
namespace lowering {
namespace {

using hal::Operand;
using hal::OperandType;

bool isConstant(const Operand& operand) {
  return operand.lifetime == Operand::LifeTime::CONSTANT_COPY ||
         operand.lifetime == Operand::LifeTime::CONSTANT_REFERENCE || operand.lifetime == Operand::LifeTime::POINTER;
}

const uint8_t* constantData(const hal::Model& model, const Operand& o) {
  switch (o.lifetime) {
    case Operand::LifeTime::CONSTANT_COPY:
      return model.operandValues.data() + o.location.offset;
    case Operand::LifeTime::CONSTANT_REFERENCE:
      return model.pools[o.location.poolIndex]->data() + o.location.offset;
    case Operand::LifeTime::POINTER:
      return static_cast<const uint8_t*>(o.location.pointer);
    default:
      return nullptr;
  }
}

template <typename T>
hal::Result<T> scalar(const hal::Model& model, const Operand& o, uint32_t index, OperandType type) {
  if (o.type != type || !isConstant(o)) {
    return unsupported() << "operand " << index << " must be a constant " << hal::toString(type);
  }
  T value;
  std::memcpy(&value, constantData(model, o), sizeof value);
  return value;
}

// The union of the family tables, built once. Each operation is in one family's table (the
// table test checks it), so the order of the union does not matter.
const std::map<hal::OperationType, Lowering>& loweringsByType() {
  static const auto* const byType = [] {
    auto* map = new std::map<hal::OperationType, Lowering>;
    for (const LoweringFamily& family : loweringFamilies()) {
      for (const auto& [type, lowering] : family.lowerings()) map->emplace(type, lowering);
    }
    return map;
  }();
  return *byType;
}

hal::Status dispatch(LoweringContext& context, const hal::Operation& operation) {
  if (operation.outputs.size() != 1) return unsupported() << "more than one output";
  const auto& byType = loweringsByType();
  const auto found = byType.find(operation.type);
  if (found == byType.end()) return unsupported() << "this operation is not lowered to Arm NN";
  return found->second(context, operation);
}

// Lowers main.operations[operationIndex], naming it in any refusal.
hal::Status lower(LoweringContext& context, const hal::Model& model, size_t operationIndex) {
  const hal::Operation& operation = model.main.operations[operationIndex];
  auto status = dispatch(context, operation);
  if (!status.ok()) {
    return hal::withContext(
        status.error(), "operations[" + std::to_string(operationIndex) + "] (" + hal::toString(operation.type) + ")");
  }
  return {};
}

}  // namespace

std::vector<LoweringFamily> loweringFamilies() {
  return {
      {"elementwise", elementwiseLowerings},
      {"convolution", convolutionLowerings},
      {"shape", shapeLowerings},
  };
}

hal::Status expectInputs(const hal::Operation& operation, std::initializer_list<size_t> counts) {
  if (std::find(counts.begin(), counts.end(), operation.inputs.size()) != counts.end()) return {};
  return unsupported() << operation.inputs.size() << " inputs is not a form that is lowered";
}

hal::Result<unsigned> axisIn(int32_t axis, size_t rank) {
  const int64_t resolved = axis < 0 ? axis + int64_t(rank) : axis;
  if (resolved < 0 || resolved >= int64_t(rank)) return unsupported() << "axis " << axis << " outside rank " << rank;
  return static_cast<unsigned>(resolved);
}

LoweringContext::LoweringContext(const hal::Model& model, bool wholeModel)
    : model_(model), graph_(model.main), wholeModel_(wholeModel) {
  result_.network = ::armnn::INetwork::Create();
}

// Per-channel filters keep NNAPI's channel dimension, which is Arm NN's output-channel axis for
// CONV_2D's [O, H, W, I] filter.
hal::Result<::armnn::TensorInfo> LoweringContext::tensorInfo(uint32_t index) const {
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
      return ::armnn::TensorInfo(rank, o.dimensions.data(), ::armnn::DataType::Float32);
    case OperandType::TENSOR_FLOAT16:
      return ::armnn::TensorInfo(rank, o.dimensions.data(), ::armnn::DataType::Float16);
    case OperandType::TENSOR_QUANT8_ASYMM:
      return ::armnn::TensorInfo(rank, o.dimensions.data(), ::armnn::DataType::QAsymmU8, o.scale, o.zeroPoint);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return ::armnn::TensorInfo(rank, o.dimensions.data(), ::armnn::DataType::QAsymmS8, o.scale, o.zeroPoint);
    case OperandType::TENSOR_INT32:
      return ::armnn::TensorInfo(rank, o.dimensions.data(), ::armnn::DataType::Signed32, o.scale, o.zeroPoint);
    case OperandType::TENSOR_BOOL8:
      return ::armnn::TensorInfo(rank, o.dimensions.data(), ::armnn::DataType::Boolean);
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL: {
      const auto* channels = std::get_if<Operand::SymmPerChannelQuantParams>(&o.extraParams);
      if (channels == nullptr) return unsupported() << "operand " << index << " has no per-channel scales";
      return ::armnn::TensorInfo(rank, o.dimensions.data(), ::armnn::DataType::QSymmS8, channels->scales,
                               channels->channelDim);
    }
    default:
      return unsupported() << "operand " << index << " is " << hal::toString(o.type)
                           << "; float32, float16, quant8, int32 and bool8 tensors are lowered";
  }
}

hal::Result<int32_t> LoweringContext::int32Scalar(uint32_t index) const {
  return scalar<int32_t>(model_, operand(index), index, OperandType::INT32);
}

hal::Result<float> LoweringContext::floatScalar(uint32_t index) const {
  if (operand(index).type == OperandType::FLOAT16) {
    NN_ASSIGN_OR_RETURN(const uint16_t half, scalar<uint16_t>(model_, operand(index), index, OperandType::FLOAT16));
    return hal::halfToFloat(half);
  }
  return scalar<float>(model_, operand(index), index, OperandType::FLOAT32);
}

hal::Result<bool> LoweringContext::boolScalar(uint32_t index) const {
  NN_ASSIGN_OR_RETURN(const uint8_t value, scalar<uint8_t>(model_, operand(index), index, OperandType::BOOL));
  return value != 0;
}

hal::Result<std::vector<int32_t>> LoweringContext::int32Values(uint32_t index) const {
  const Operand& o = operand(index);
  if (o.type != OperandType::TENSOR_INT32 || !isConstant(o)) {
    return unsupported() << "operand " << index << " must be a constant TENSOR_INT32";
  }
  std::vector<int32_t> values(hal::elementCount(o.dimensions));
  if (!values.empty()) std::memcpy(values.data(), constantData(model_, o), values.size() * sizeof(int32_t));
  return values;
}

hal::Result<::armnn::ConstTensor> LoweringContext::constantTensor(uint32_t index) const {
  NN_ASSIGN_OR_RETURN(auto info, tensorInfo(index));
  if (!isConstant(operand(index))) return unsupported() << "operand " << index << " must be constant (weights)";
  return ::armnn::ConstTensor(info, constantData(model_, operand(index)));
}

hal::Result<::armnn::DataLayout> LoweringContext::layoutOf(const hal::Operation& operation, size_t layoutIndex) const {
  if (operation.inputs.size() <= layoutIndex) return ::armnn::DataLayout::NHWC;
  NN_ASSIGN_OR_RETURN(const bool nchw, boolScalar(operation.inputs[layoutIndex]));
  return nchw ? ::armnn::DataLayout::NCHW : ::armnn::DataLayout::NHWC;
}

::armnn::IOutputSlot* LoweringContext::addInput(uint32_t index) {
  auto* layer = result_.network->AddInputLayer(static_cast<::armnn::LayerBindingId>(result_.inputOperands.size()));
  result_.inputOperands.push_back(index);
  auto info = tensorInfo(index);
  if (info.ok()) layer->GetOutputSlot(0).SetTensorInfo(*info);
  slots_[index] = &layer->GetOutputSlot(0);
  return slots_[index];
}

hal::Result<::armnn::IOutputSlot*> LoweringContext::slotOf(uint32_t index) {
  if (auto found = slots_.find(index); found != slots_.end()) return found->second;
  NN_ASSIGN_OR_RETURN(auto info, tensorInfo(index));
  if (isConstant(operand(index))) {
    auto* layer = result_.network->AddConstantLayer(::armnn::ConstTensor(info, constantData(model_, operand(index))));
    layer->GetOutputSlot(0).SetTensorInfo(info);
    return slots_[index] = &layer->GetOutputSlot(0);
  }
  if (operand(index).lifetime == Operand::LifeTime::TEMPORARY_VARIABLE && wholeModel_) {
    return unsupported() << "operand " << index << " is read before it is written";
  }
  return addInput(index);
}

hal::Status LoweringContext::connectInputs(::armnn::IConnectableLayer* layer, const std::vector<uint32_t>& operands) {
  for (size_t i = 0; i < operands.size(); ++i) {
    NN_ASSIGN_OR_RETURN(auto* slot, slotOf(operands[i]));
    slot->Connect(layer->GetInputSlot(static_cast<unsigned>(i)));
  }
  return {};
}

hal::Status LoweringContext::produce(::armnn::IOutputSlot* slot, uint32_t index, int32_t activationCode) {
  NN_ASSIGN_OR_RETURN(auto info, tensorInfo(index));
  slot->SetTensorInfo(info);
  if (activationCode != 0) {
    ::armnn::ActivationDescriptor activation;
    switch (activationCode) {
      case 1:
        activation.m_Function = ::armnn::ActivationFunction::ReLu;
        break;
      case 2:
        activation.m_Function = ::armnn::ActivationFunction::BoundedReLu;
        activation.m_A = 1.0f;
        activation.m_B = -1.0f;
        break;
      case 3:
        activation.m_Function = ::armnn::ActivationFunction::BoundedReLu;
        activation.m_A = 6.0f;
        activation.m_B = 0.0f;
        break;
      default:
        return unsupported() << "fused activation " << activationCode << " is not NONE, RELU, RELU1 or RELU6";
    }
    auto* layer = result_.network->AddActivationLayer(activation);
    slot->Connect(layer->GetInputSlot(0));
    slot = &layer->GetOutputSlot(0);
    slot->SetTensorInfo(info);
  }
  slots_[index] = slot;
  return {};
}

hal::Result<::armnn::IOutputSlot*> LoweringContext::reshaped(uint32_t index, const ::armnn::TensorShape& shape) {
  NN_ASSIGN_OR_RETURN(auto* slot, slotOf(index));
  ::armnn::ReshapeDescriptor descriptor;
  descriptor.m_TargetShape = shape;
  auto* layer = result_.network->AddReshapeLayer(descriptor);
  slot->Connect(layer->GetInputSlot(0));
  NN_ASSIGN_OR_RETURN(::armnn::TensorInfo info, tensorInfo(index));
  info.SetShape(shape);
  layer->GetOutputSlot(0).SetTensorInfo(info);
  return &layer->GetOutputSlot(0);
}

hal::Status LoweringContext::lowerThrough(::armnn::IConnectableLayer* layer, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(connectInputs(layer, {operation.inputs[0]}));
  return produce(&layer->GetOutputSlot(0), operation.outputs[0], 0);
}

hal::Status LoweringContext::bindOutputs(const std::vector<uint32_t>& operands) {
  for (uint32_t operand : operands) {
    NN_ASSIGN_OR_RETURN(auto* slot, slotOf(operand));
    auto* output = result_.network->AddOutputLayer(static_cast<::armnn::LayerBindingId>(result_.outputOperands.size()));
    slot->Connect(output->GetInputSlot(0));
    result_.outputOperands.push_back(operand);
  }
  return {};
}

}  // namespace lowering

hal::Result<LoweredNetwork> lowerModel(const hal::Model& model) {
  if (!model.referenced.empty()) return lowering::unsupported() << "control flow (referenced subgraphs) is not lowered";
  if (!model.extensionNameToPrefix.empty()) return lowering::unsupported() << "vendor extensions are not lowered";
  lowering::LoweringContext context(model, /*wholeModel=*/true);
  for (size_t i = 0; i < model.main.operations.size(); ++i) NN_RETURN_IF_ERROR(lowering::lower(context, model, i));
  NN_RETURN_IF_ERROR(context.bindOutputs(model.main.outputIndexes));
  return context.take();
}

hal::Result<LoweredNetwork> lowerOperation(const hal::Model& model, size_t operationIndex) {
  lowering::LoweringContext context(model, /*wholeModel=*/false);
  NN_RETURN_IF_ERROR(lowering::lower(context, model, operationIndex));
  NN_RETURN_IF_ERROR(context.bindOutputs(model.main.operations[operationIndex].outputs));
  return context.take();
}

}  // namespace nnremote::armnn
