// Arm NN lowerings of hal's element-wise family (hal/operations/elementwise.cc): the broadcasting
// binary operations and comparisons, the activations, the unary math functions, FLOOR, and
// (de)quantization. Each is one Arm NN layer, plus reshapes where NNAPI broadcasts across ranks
// and an activation layer for a fused activation. The operations this family lowers are listed
// once, in elementwiseLowerings() at the end.
#include <armnn/Descriptors.hpp>

#include <algorithm>
#include <map>
#include <vector>

#include "drivers/armnn/lowering_context.h"

namespace nnremote::armnn::lowering {
namespace {

using hal::OperationType;

// Two-tensor operations that broadcast: arithmetic (with a fused activation where NNAPI has
// one), MAXIMUM, MINIMUM, PRELU and the comparisons.
hal::Status lowerBinary(LoweringContext& context, const hal::Operation& operation) {
  static const auto* const kComparisons = new std::map<OperationType, ::armnn::ComparisonOperation>{
      {OperationType::EQUAL, ::armnn::ComparisonOperation::Equal},
      {OperationType::NOT_EQUAL, ::armnn::ComparisonOperation::NotEqual},
      {OperationType::GREATER, ::armnn::ComparisonOperation::Greater},
      {OperationType::GREATER_EQUAL, ::armnn::ComparisonOperation::GreaterOrEqual},
      {OperationType::LESS, ::armnn::ComparisonOperation::Less},
      {OperationType::LESS_EQUAL, ::armnn::ComparisonOperation::LessOrEqual}};
  const bool fusedActivation = operation.type == OperationType::ADD || operation.type == OperationType::SUB ||
                               operation.type == OperationType::MUL || operation.type == OperationType::DIV;
  NN_RETURN_IF_ERROR(expectInputs(operation, {fusedActivation ? size_t{3} : size_t{2}}));
  int32_t activation = 0;
  if (fusedActivation) {
    NN_ASSIGN_OR_RETURN(activation, context.int32Scalar(operation.inputs[2]));
  }
  NN_ASSIGN_OR_RETURN(auto a, context.tensorInfo(operation.inputs[0]));
  NN_ASSIGN_OR_RETURN(auto b, context.tensorInfo(operation.inputs[1]));
  if (operation.type == OperationType::DIV && a.GetDataType() == ::armnn::DataType::Signed32) {
    // Arm NN divides integers with the CPU's own division: a zero divisor kills the process,
    // where NNAPI defines the result.
    return unsupported() << "integer DIV";
  }
  ::armnn::INetwork& network = context.network();
  ::armnn::IConnectableLayer* layer = nullptr;
  switch (operation.type) {
    case OperationType::ADD:
      layer = network.AddAdditionLayer();
      break;
    case OperationType::SUB:
      layer = network.AddSubtractionLayer();
      break;
    case OperationType::MUL:
      layer = network.AddMultiplicationLayer();
      break;
    case OperationType::DIV:
      layer = network.AddDivisionLayer();
      break;
    case OperationType::MAXIMUM:
      layer = network.AddMaximumLayer();
      break;
    case OperationType::MINIMUM:
      layer = network.AddMinimumLayer();
      break;
    case OperationType::PRELU:
      layer = network.AddPreluLayer();
      break;
    default:
      layer = network.AddComparisonLayer(::armnn::ComparisonDescriptor(kComparisons->at(operation.type)));
      break;
  }
  // Arm NN broadcasts between tensors of one rank; NNAPI aligns lower ranks to the right.
  const unsigned rank = std::max(a.GetNumDimensions(), b.GetNumDimensions());
  for (unsigned i = 0; i < 2; ++i) {
    const auto& info = i == 0 ? a : b;
    ::armnn::IOutputSlot* slot = nullptr;
    if (info.GetNumDimensions() == rank) {
      NN_ASSIGN_OR_RETURN(slot, context.slotOf(operation.inputs[i]));
    } else {
      std::vector<unsigned> dims(rank - info.GetNumDimensions(), 1u);
      for (unsigned d = 0; d < info.GetNumDimensions(); ++d) dims.push_back(info.GetShape()[d]);
      NN_ASSIGN_OR_RETURN(slot, context.reshaped(operation.inputs[i], ::armnn::TensorShape(rank, dims.data())));
    }
    slot->Connect(layer->GetInputSlot(i));
  }
  return context.produce(&layer->GetOutputSlot(0), operation.outputs[0], activation);
}

hal::Status lowerActivation(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {1}));
  ::armnn::ActivationDescriptor descriptor;
  switch (operation.type) {
    case OperationType::RELU:
      descriptor.m_Function = ::armnn::ActivationFunction::ReLu;
      break;
    case OperationType::RELU1:
      descriptor.m_Function = ::armnn::ActivationFunction::BoundedReLu;
      descriptor.m_A = 1.0f;
      descriptor.m_B = -1.0f;
      break;
    case OperationType::RELU6:
      descriptor.m_Function = ::armnn::ActivationFunction::BoundedReLu;
      descriptor.m_A = 6.0f;
      descriptor.m_B = 0.0f;
      break;
    case OperationType::LOGISTIC:
      descriptor.m_Function = ::armnn::ActivationFunction::Sigmoid;
      break;
    default:  // TANH
      descriptor.m_Function = ::armnn::ActivationFunction::TanH;
      descriptor.m_A = 1.0f;
      descriptor.m_B = 1.0f;
      break;
  }
  auto* layer = context.network().AddActivationLayer(descriptor);
  NN_RETURN_IF_ERROR(context.connectInputs(layer, {operation.inputs[0]}));
  return context.produce(&layer->GetOutputSlot(0), operation.outputs[0], 0);
}

// The activations with a parameter or a function of their own: HARD_SWISH and ELU.
hal::Status lowerActivationFunction(LoweringContext& context, const hal::Operation& operation) {
  ::armnn::ActivationDescriptor descriptor;
  if (operation.type == OperationType::HARD_SWISH) {
    NN_RETURN_IF_ERROR(expectInputs(operation, {1}));
    descriptor.m_Function = ::armnn::ActivationFunction::HardSwish;
  } else {  // ELU
    NN_RETURN_IF_ERROR(expectInputs(operation, {2}));
    descriptor.m_Function = ::armnn::ActivationFunction::Elu;
    NN_ASSIGN_OR_RETURN(descriptor.m_A, context.floatScalar(operation.inputs[1]));
  }
  return context.lowerThrough(context.network().AddActivationLayer(descriptor), operation);
}

hal::Status lowerUnary(LoweringContext& context, const hal::Operation& operation) {
  static const auto* const kUnary =
      new std::map<OperationType, ::armnn::UnaryOperation>{{OperationType::ABS, ::armnn::UnaryOperation::Abs},
                                                         {OperationType::EXP, ::armnn::UnaryOperation::Exp},
                                                         {OperationType::NEG, ::armnn::UnaryOperation::Neg},
                                                         {OperationType::RSQRT, ::armnn::UnaryOperation::Rsqrt},
                                                         {OperationType::SQRT, ::armnn::UnaryOperation::Sqrt}};
  NN_RETURN_IF_ERROR(expectInputs(operation, {1}));
  return context.lowerThrough(
      context.network().AddElementwiseUnaryLayer(::armnn::ElementwiseUnaryDescriptor(kUnary->at(operation.type))),
      operation);
}

hal::Status lowerFloor(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {1}));
  auto* layer = context.network().AddFloorLayer();
  NN_RETURN_IF_ERROR(context.connectInputs(layer, {operation.inputs[0]}));
  return context.produce(&layer->GetOutputSlot(0), operation.outputs[0], 0);
}

hal::Status lowerQuantization(LoweringContext& context, const hal::Operation& operation) {
  NN_RETURN_IF_ERROR(expectInputs(operation, {1}));
  return context.lowerThrough(operation.type == OperationType::QUANTIZE ? context.network().AddQuantizeLayer()
                                                                        : context.network().AddDequantizeLayer(),
                              operation);
}

}  // namespace

LoweringTable elementwiseLowerings() {
  return {
      {OperationType::ADD, lowerBinary},
      {OperationType::SUB, lowerBinary},
      {OperationType::MUL, lowerBinary},
      {OperationType::DIV, lowerBinary},
      {OperationType::MAXIMUM, lowerBinary},
      {OperationType::MINIMUM, lowerBinary},
      {OperationType::PRELU, lowerBinary},
      {OperationType::EQUAL, lowerBinary},
      {OperationType::NOT_EQUAL, lowerBinary},
      {OperationType::GREATER, lowerBinary},
      {OperationType::GREATER_EQUAL, lowerBinary},
      {OperationType::LESS, lowerBinary},
      {OperationType::LESS_EQUAL, lowerBinary},
      {OperationType::ABS, lowerUnary},
      {OperationType::EXP, lowerUnary},
      {OperationType::NEG, lowerUnary},
      {OperationType::RSQRT, lowerUnary},
      {OperationType::SQRT, lowerUnary},
      {OperationType::FLOOR, lowerFloor},
      {OperationType::RELU, lowerActivation},
      {OperationType::RELU1, lowerActivation},
      {OperationType::RELU6, lowerActivation},
      {OperationType::LOGISTIC, lowerActivation},
      {OperationType::TANH, lowerActivation},
      {OperationType::ELU, lowerActivationFunction},
      {OperationType::HARD_SWISH, lowerActivationFunction},
      {OperationType::QUANTIZE, lowerQuantization},
      {OperationType::DEQUANTIZE, lowerQuantization},
  };
}

}  // namespace nnremote::armnn::lowering
