#include "tests/common/control_flow_models.h"

#include "hal/model_builder.h"

namespace nnremote::testing {

using hal::OperandType;
using hal::OperationType;

hal::Model addConstantModel(float addend) {
  hal::ModelBuilder b;
  const uint32_t x = b.addInput(OperandType::TENSOR_FLOAT32, {1});
  const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {1});
  b.addOperation(OperationType::ADD,
                 {x, b.addConstant(OperandType::TENSOR_FLOAT32, {1}, std::vector<float>{addend}), b.addInt32(0)},
                 {out});
  return b.build();
}

hal::Model ifModel(const hal::Model& thenBranch, const hal::Model& elseBranch) {
  hal::ModelBuilder b;
  const uint32_t condition = b.addInput(OperandType::TENSOR_BOOL8, {1});
  const uint32_t x = b.addInput(OperandType::TENSOR_FLOAT32, {1});
  const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {1});
  b.addOperation(OperationType::IF, {condition, b.addSubgraph(thenBranch), b.addSubgraph(elseBranch), x}, {out});
  return b.build();
}

hal::Model ifModel() { return ifModel(addConstantModel(1), addConstantModel(-1)); }

hal::Model whileModel() {
  constexpr OperandType kFloat = OperandType::TENSOR_FLOAT32;
  hal::ModelBuilder condition;
  {
    const uint32_t i = condition.addInput(kFloat, {1});
    condition.addInput(kFloat, {1});  // sum
    const uint32_t limit = condition.addInput(kFloat, {1});
    const uint32_t more = condition.addOutput(OperandType::TENSOR_BOOL8, {1});
    condition.addOperation(OperationType::LESS, {i, limit}, {more});
  }
  hal::ModelBuilder body;
  {
    const uint32_t i = body.addInput(kFloat, {1});
    const uint32_t sum = body.addInput(kFloat, {1});
    body.addInput(kFloat, {1});  // limit
    const uint32_t next = body.addOutput(kFloat, {1});
    const uint32_t total = body.addOutput(kFloat, {1});
    body.addOperation(OperationType::ADD,
                      {i, body.addConstant(kFloat, {1}, std::vector<float>{1}), body.addInt32(0)}, {next});
    body.addOperation(OperationType::ADD, {sum, next, body.addInt32(0)}, {total});
  }
  hal::ModelBuilder b;
  const uint32_t i = b.addInput(kFloat, {1});
  const uint32_t sum = b.addInput(kFloat, {1});
  const uint32_t limit = b.addInput(kFloat, {1});
  const uint32_t finalI = b.addOutput(kFloat, {1});
  const uint32_t finalSum = b.addOutput(kFloat, {1});
  b.addOperation(OperationType::WHILE,
                 {b.addSubgraph(condition.build()), b.addSubgraph(body.build()), i, sum, limit}, {finalI, finalSum});
  return b.build();
}

}  // namespace nnremote::testing
