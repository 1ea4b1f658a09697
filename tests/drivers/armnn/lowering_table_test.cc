// The Arm NN lowering takes its operations from hal's one table: every operation a family file
// (drivers/armnn/*_lowering.cc) lowers must be in hal's family of the same name
// (hal/operations/families.h), and no operation may be lowered twice. The dispatch reaches each
// family's lowerings, and an operation no family lowers is refused by name.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "drivers/armnn/lowering_context.h"
#include "drivers/armnn/model_lowering.h"
#include "hal/model_builder.h"
#include "hal/operand_types.h"
#include "hal/operations/families.h"

namespace nnremote::armnn {
namespace {

using hal::OperandType;
using hal::OperationType;

// hal's families by the names the Arm NN families give.
std::map<std::string, std::vector<hal::OperationSignature>> halFamilies() {
  namespace signatures = hal::signatures;
  return {{"elementwise", signatures::elementwiseSignatures()},
          {"convolution", signatures::convolutionSignatures()},
          {"shape", signatures::shapeSignatures()},
          {"recurrent", signatures::recurrentSignatures()},
          {"detection", signatures::detectionSignatures()}};
}

TEST(LoweringTableTest, EveryLoweringIsInItsHalFamily) {
  const auto families = halFamilies();
  for (const lowering::LoweringFamily& family : lowering::loweringFamilies()) {
    const auto halFamily = families.find(family.halFamily);
    ASSERT_NE(halFamily, families.end()) << "Arm NN family " << family.halFamily << " is not a hal family";
    std::set<OperationType> halTypes;
    for (const hal::OperationSignature& signature : halFamily->second) halTypes.insert(signature.type);
    const lowering::LoweringTable table = family.lowerings();
    EXPECT_FALSE(table.empty()) << family.halFamily;
    for (const auto& [type, lowering] : table) {
      EXPECT_TRUE(halTypes.count(type)) << hal::toString(type) << " is lowered in Arm NN's " << family.halFamily
                                        << " family, which hal does not list it in";
      EXPECT_NE(lowering, nullptr) << hal::toString(type);
    }
  }
}

TEST(LoweringTableTest, NoOperationIsLoweredTwice) {
  std::map<OperationType, std::string> loweredIn;
  size_t lowered = 0;
  for (const lowering::LoweringFamily& family : lowering::loweringFamilies()) {
    for (const auto& entry : family.lowerings()) {
      const auto [previous, inserted] = loweredIn.emplace(entry.first, family.halFamily);
      EXPECT_TRUE(inserted) << hal::toString(entry.first) << " is lowered in " << previous->second << " and in "
                            << family.halFamily;
      ++lowered;
    }
  }
  // docs/backends.md lists the operations lowered; a change here is a change there.
  EXPECT_EQ(lowered, 57u);
}

TEST(LoweringTableTest, EachFamilyIsReachedThroughTheDispatch) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(OperandType::TENSOR_FLOAT32, {1, 2, 2, 1});
  const uint32_t floored = b.addTemporary(OperandType::TENSOR_FLOAT32, {1, 2, 2, 1});
  b.addOperation(OperationType::FLOOR, {in}, {floored});  // elementwise
  const uint32_t pooled = b.addTemporary(OperandType::TENSOR_FLOAT32, {1, 1, 1, 1});
  b.addOperation(OperationType::MAX_POOL_2D,  // convolution: VALID padding, stride 1, a 2x2 filter
                 {floored, b.addInt32(2), b.addInt32(1), b.addInt32(1), b.addInt32(2), b.addInt32(2), b.addInt32(0)},
                 {pooled});
  const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {1});
  b.addOperation(OperationType::RESHAPE,  // shape
                 {pooled, b.addConstant(OperandType::TENSOR_INT32, {1}, std::vector<int32_t>{1})}, {out});
  const hal::Model model = b.build();
  auto network = lowerModel(model);
  ASSERT_TRUE(network.ok()) << network.error().message;
  EXPECT_EQ(network->inputOperands, std::vector<uint32_t>{in});
  EXPECT_EQ(network->outputOperands, std::vector<uint32_t>{out});
  for (size_t i = 0; i < model.main.operations.size(); ++i) {
    auto alone = lowerOperation(model, i);
    EXPECT_TRUE(alone.ok()) << alone.error().message;
  }
}

TEST(LoweringTableTest, AnOperationNoFamilyLowersIsRefusedByName) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(OperandType::TENSOR_FLOAT32, {2});
  const uint32_t out = b.addOutput(OperandType::TENSOR_INT32, {2});
  b.addOperation(OperationType::CAST, {in}, {out});
  auto network = lowerOperation(b.build(), 0);
  ASSERT_FALSE(network.ok());
  EXPECT_EQ(network.error().message, "operations[0] (CAST): this operation is not lowered to Arm NN");
}

}  // namespace
}  // namespace nnremote::armnn
