#include "hal/model_builder.h"

namespace nnremote::hal {

uint32_t ModelBuilder::addOperand(Operand operand) {
  model_.main.operands.push_back(std::move(operand));
  return static_cast<uint32_t>(model_.main.operands.size() - 1);
}

uint32_t ModelBuilder::addInput(OperandType type, std::vector<uint32_t> dimensions, float scale,
                                int32_t zeroPoint) {
  const uint32_t index = addOperand({type, std::move(dimensions), scale, zeroPoint,
                                     Operand::LifeTime::SUBGRAPH_INPUT, {}, {}});
  model_.main.inputIndexes.push_back(index);
  return index;
}

uint32_t ModelBuilder::addOutput(OperandType type, std::vector<uint32_t> dimensions, float scale,
                                 int32_t zeroPoint) {
  const uint32_t index = addOperand({type, std::move(dimensions), scale, zeroPoint,
                                     Operand::LifeTime::SUBGRAPH_OUTPUT, {}, {}});
  model_.main.outputIndexes.push_back(index);
  return index;
}

uint32_t ModelBuilder::addTemporary(OperandType type, std::vector<uint32_t> dimensions, float scale,
                                    int32_t zeroPoint) {
  return addOperand({type, std::move(dimensions), scale, zeroPoint,
                     Operand::LifeTime::TEMPORARY_VARIABLE, {}, {}});
}

uint32_t ModelBuilder::addConstant(OperandType type, std::vector<uint32_t> dimensions,
                                   const void* bytes, size_t length, float scale,
                                   int32_t zeroPoint) {
  auto& values = model_.operandValues;
  values.resize((values.size() + 7) / 8 * 8);  // keep constants 8-byte aligned
  DataLocation location{nullptr, 0, static_cast<uint32_t>(values.size()),
                        static_cast<uint32_t>(length), 0};
  const auto* begin = static_cast<const uint8_t*>(bytes);
  values.insert(values.end(), begin, begin + length);
  return addOperand({type, std::move(dimensions), scale, zeroPoint, Operand::LifeTime::CONSTANT_COPY,
                     location, {}});
}

uint32_t ModelBuilder::addSubgraph(const Model& callee) {
  // The callee's constants join this model's operand values, and its own referenced subgraphs
  // follow it in model.referenced.
  auto& values = model_.operandValues;
  values.resize((values.size() + 7) / 8 * 8);
  const uint32_t valueOffset = static_cast<uint32_t>(values.size());
  values.insert(values.end(), callee.operandValues.begin(), callee.operandValues.end());
  const uint32_t first = static_cast<uint32_t>(model_.referenced.size());
  auto adopt = [&](Model::Subgraph subgraph) {
    for (Operand& operand : subgraph.operands) {
      if (operand.lifetime == Operand::LifeTime::CONSTANT_COPY) operand.location.offset += valueOffset;
      if (operand.lifetime == Operand::LifeTime::SUBGRAPH) operand.location.offset += first + 1;
    }
    model_.referenced.push_back(std::move(subgraph));
  };
  adopt(callee.main);
  for (const Model::Subgraph& nested : callee.referenced) adopt(nested);
  DataLocation location;
  location.offset = first;
  return addOperand({OperandType::SUBGRAPH, {}, 0.0f, 0, Operand::LifeTime::SUBGRAPH, location, {}});
}

uint32_t ModelBuilder::addNoValue(OperandType type) {
  return addOperand({type, {}, 0.0f, 0, Operand::LifeTime::NO_VALUE, {}, {}});
}

void ModelBuilder::addOperation(OperationType type, std::vector<uint32_t> inputs,
                                std::vector<uint32_t> outputs) {
  model_.main.operations.push_back({type, std::move(inputs), std::move(outputs)});
}

Result<RequestWithMemories> makeRequest(const std::vector<std::vector<uint8_t>>& inputs,
                                        const std::vector<size_t>& outputSizes,
                                        MemoryAllocator allocate) {
  RequestWithMemories result;
  for (const auto& bytes : inputs) {
    NN_ASSIGN_OR_RETURN(SharedMemory memory, allocate(bytes.size()));
    if (!bytes.empty()) std::memcpy(memory->data(), bytes.data(), bytes.size());
    Request::Argument argument;
    argument.location = {nullptr, static_cast<uint32_t>(result.request.pools.size()), 0,
                         static_cast<uint32_t>(bytes.size()), 0};
    result.request.inputs.push_back(argument);
    result.request.pools.push_back(memory);
    result.inputs.push_back(memory);
  }
  for (size_t size : outputSizes) {
    NN_ASSIGN_OR_RETURN(SharedMemory memory, allocate(size));
    Request::Argument argument;
    argument.location = {nullptr, static_cast<uint32_t>(result.request.pools.size()), 0,
                         static_cast<uint32_t>(size), 0};
    result.request.outputs.push_back(argument);
    result.request.pools.push_back(memory);
    result.outputs.push_back(memory);
  }
  return result;
}

}  // namespace nnremote::hal
