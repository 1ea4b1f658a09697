// Fuzz target: a model built straight from the input bytes, in process: hal::validateModel,
// then (if it passes) preparation on the simulator and an execution with zero inputs. Reaches
// the validation and kernels with shapes, types and graphs no wire encoding shapes first.
//
// The bytes are read as choices: how many operands, each one's type, rank, dimensions, scale,
// zero point and lifetime (constants take their values from the input too), then the
// operations' types and operand indexes (out of range now and then), then the model's inputs and
// outputs. A CTS-like model is a few bytes away from any seed.
#include <algorithm>
#include <cstring>

#include "hal/operand_types.h"
#include "hal/validation.h"
#include "tests/fuzz/choices.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

using namespace nnremote;  // NOLINT: a fuzz target

using fuzz::Choices;

constexpr hal::OperandType kTypes[] = {
    hal::OperandType::FLOAT32,          hal::OperandType::INT32,
    hal::OperandType::UINT32,           hal::OperandType::TENSOR_FLOAT32,
    hal::OperandType::TENSOR_INT32,     hal::OperandType::TENSOR_QUANT8_ASYMM,
    hal::OperandType::BOOL,             hal::OperandType::TENSOR_QUANT16_SYMM,
    hal::OperandType::TENSOR_FLOAT16,   hal::OperandType::TENSOR_BOOL8,
    hal::OperandType::FLOAT16,          hal::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL,
    hal::OperandType::TENSOR_QUANT16_ASYMM, hal::OperandType::TENSOR_QUANT8_SYMM,
    hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED, static_cast<hal::OperandType>(99),
};

hal::Model buildModel(Choices& in) {
  hal::Model model;
  auto& graph = model.main;
  const uint32_t operandCount = 1 + in.below(12);
  for (uint32_t i = 0; i < operandCount; ++i) {
    hal::Operand operand;
    operand.type = kTypes[in.below(std::size(kTypes))];
    const uint32_t rank = in.below(5);
    for (uint32_t d = 0; d < rank; ++d) {
      const uint8_t choice = in.byte();
      operand.dimensions.push_back(choice == 255 ? in.word() : choice % 9);  // now and then huge
    }
    if (hal::isTensor(operand.type) || operand.type == hal::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
      operand.scale = in.scale();
      operand.zeroPoint = static_cast<int32_t>(in.below(256)) - (in.below(2) ? 128 : 0);
    }
    if (operand.type == hal::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
      hal::Operand::SymmPerChannelQuantParams params;
      params.channelDim = in.below(4);
      const uint32_t scales = in.below(9);
      for (uint32_t s = 0; s < scales; ++s) params.scales.push_back(in.scale());
      operand.extraParams = params;
    }
    switch (in.below(6)) {
      case 0:
      case 1:
        operand.lifetime = hal::Operand::LifeTime::TEMPORARY_VARIABLE;
        break;
      case 2:
        operand.lifetime = hal::Operand::LifeTime::SUBGRAPH_INPUT;
        break;
      case 3:
        operand.lifetime = hal::Operand::LifeTime::SUBGRAPH_OUTPUT;
        break;
      case 4: {
        operand.lifetime = hal::Operand::LifeTime::CONSTANT_COPY;
        const auto size = hal::sizeOfData(operand.type, operand.dimensions);
        // Usually the right length, sometimes not.
        const uint32_t length = in.below(8) == 0 ? in.below(64) : std::min<uint32_t>(size.value_or(4), 4096);
        operand.location = {nullptr, 0, static_cast<uint32_t>(model.operandValues.size()), length, 0};
        for (uint32_t b = 0; b < length; ++b) model.operandValues.push_back(in.byte());
        break;
      }
      default:
        operand.lifetime = hal::Operand::LifeTime::NO_VALUE;
    }
    graph.operands.push_back(std::move(operand));
  }
  const uint32_t operationCount = 1 + in.below(6);
  for (uint32_t i = 0; i < operationCount; ++i) {
    hal::Operation operation;
    const uint8_t type = in.byte();
    operation.type = static_cast<hal::OperationType>(type == 255 ? 10000 + in.below(4) : type % (hal::kLastOperationType + 2));
    const uint32_t inputs = in.below(8), outputs = 1 + in.below(3);
    for (uint32_t k = 0; k < inputs; ++k) operation.inputs.push_back(in.below(operandCount + 1));
    for (uint32_t k = 0; k < outputs; ++k) operation.outputs.push_back(in.below(operandCount + 1));
    graph.operations.push_back(std::move(operation));
  }
  for (uint32_t i = 0; i < operandCount; ++i) {
    if (graph.operands[i].lifetime == hal::Operand::LifeTime::SUBGRAPH_INPUT) graph.inputIndexes.push_back(i);
    if (graph.operands[i].lifetime == hal::Operand::LifeTime::SUBGRAPH_OUTPUT) graph.outputIndexes.push_back(i);
  }
  if (in.below(16) == 0 && !graph.inputIndexes.empty()) graph.inputIndexes.push_back(graph.inputIndexes.front());
  model.relaxComputationFloat32toFloat16 = in.below(4) == 0;
  return model;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Choices choices(data, size);
  const hal::Model model = buildModel(choices);
  if (!hal::validateModel(model, /*allowPointers=*/false).ok()) return 0;
  fuzz::prepareAndExecute(model, nullptr);
  return 0;
}
