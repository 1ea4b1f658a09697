// hal <-> wire conversion: random models and requests survive a round trip unchanged.
#include <gtest/gtest.h>

#include <random>

#include "hal/operand_types.h"
#include "wire/conversions.h"
#include "wire/grpc_status.h"

namespace nnremote::wire {
namespace {

using hal::Operand;

class RandomHal {
 public:
  explicit RandomHal(uint32_t seed) : rng_(seed) {}

  uint32_t below(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng_); }
  float real() { return std::uniform_real_distribution<float>(-4.0f, 4.0f)(rng_); }

  std::vector<uint32_t> dims() {
    std::vector<uint32_t> d(below(5));
    for (auto& x : d) x = below(7);
    return d;
  }

  hal::Operand operand(size_t referencedCount) {
    hal::Operand operand;
    operand.type = static_cast<hal::OperandType>(below(16));
    operand.dimensions = dims();
    operand.scale = real();
    operand.zeroPoint = static_cast<int32_t>(below(512)) - 256;
    operand.lifetime = static_cast<Operand::LifeTime>(below(7));  // POINTER never crosses
    operand.location = {nullptr, below(4), below(1000), below(1000), below(8)};
    if (operand.lifetime == Operand::LifeTime::SUBGRAPH && referencedCount) {
      operand.location.offset = below(static_cast<uint32_t>(referencedCount));
    }
    switch (below(3)) {
      case 1: {
        Operand::SymmPerChannelQuantParams params;
        for (uint32_t i = below(4); i > 0; --i) params.scales.push_back(real());
        params.channelDim = below(4);
        operand.extraParams = params;
        break;
      }
      case 2: {
        Operand::ExtensionParams bytes(below(9));
        for (auto& b : bytes) b = static_cast<uint8_t>(below(256));
        operand.extraParams = bytes;
        break;
      }
      default:
        break;
    }
    return operand;
  }

  hal::Model::Subgraph subgraph(size_t referencedCount) {
    hal::Model::Subgraph subgraph;
    for (uint32_t i = below(8) + 1; i > 0; --i) subgraph.operands.push_back(operand(referencedCount));
    for (uint32_t i = below(5); i > 0; --i) {
      hal::Operation op;
      op.type = static_cast<hal::OperationType>(below(hal::kLastOperationType + 1));
      for (uint32_t j = below(4); j > 0; --j) op.inputs.push_back(below(20));
      for (uint32_t j = below(3); j > 0; --j) op.outputs.push_back(below(20));
      subgraph.operations.push_back(op);
    }
    for (uint32_t i = below(3); i > 0; --i) subgraph.inputIndexes.push_back(below(20));
    for (uint32_t i = below(3); i > 0; --i) subgraph.outputIndexes.push_back(below(20));
    return subgraph;
  }

  std::vector<uint8_t> bytes(size_t max) {
    std::vector<uint8_t> out(below(static_cast<uint32_t>(max)));
    for (auto& b : out) b = static_cast<uint8_t>(below(256));
    return out;
  }

  hal::Model model() {
    hal::Model model;
    const size_t referenced = below(3);
    model.main = subgraph(referenced);
    for (size_t i = 0; i < referenced; ++i) model.referenced.push_back(subgraph(referenced));
    model.operandValues = bytes(200);
    for (uint32_t i = below(3); i > 0; --i) model.pools.push_back(*hal::createHeapMemory(bytes(300)));
    model.relaxComputationFloat32toFloat16 = below(2);
    for (uint32_t i = below(3); i > 0; --i) {
      model.extensionNameToPrefix.push_back({"com.example." + std::to_string(below(100)),
                                             static_cast<uint16_t>(below(60000) + 1)});
    }
    return model;
  }

  hal::Request request() {
    hal::Request request;
    auto argument = [this]() {
      hal::Request::Argument a;
      a.lifetime = static_cast<hal::Request::Argument::LifeTime>(below(2));
      a.location = {nullptr, below(3), below(64), below(64), 0};
      a.dimensions = dims();
      return a;
    };
    for (uint32_t i = below(4); i > 0; --i) request.inputs.push_back(argument());
    for (uint32_t i = below(4); i > 0; --i) request.outputs.push_back(argument());
    for (uint32_t i = below(4); i > 0; --i) {
      if (below(3) == 0) {
        request.pools.emplace_back(static_cast<hal::Request::MemoryDomainToken>(below(100) + 1));
      } else {
        request.pools.emplace_back(*hal::createHeapMemory(bytes(256)));
      }
    }
    return request;
  }

 private:
  std::mt19937 rng_;
};

std::vector<uint8_t> contents(const hal::SharedMemory& memory) {
  return std::vector<uint8_t>(memory->data(), memory->data() + memory->size());
}

TEST(ConversionsTest, RandomModelsRoundTrip) {
  RandomHal random(20261121);
  for (int i = 0; i < 500; ++i) {
    const hal::Model model = random.model();
    auto onWire = toWire(model);
    ASSERT_TRUE(onWire.ok()) << onWire.error().message;
    // Through bytes, as on a real socket.
    wire::Model parsed;
    ASSERT_TRUE(parsed.ParseFromString(onWire->SerializeAsString()));
    auto back = fromWire(parsed, resolveInlineOnly);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->main, model.main) << "model " << i;
    EXPECT_EQ(back->referenced, model.referenced);
    EXPECT_EQ(back->operandValues, model.operandValues);
    EXPECT_EQ(back->relaxComputationFloat32toFloat16, model.relaxComputationFloat32toFloat16);
    EXPECT_EQ(back->extensionNameToPrefix, model.extensionNameToPrefix);
    ASSERT_EQ(back->pools.size(), model.pools.size());
    for (size_t p = 0; p < model.pools.size(); ++p) {
      EXPECT_EQ(contents(back->pools[p]), contents(model.pools[p]));
    }
  }
}

TEST(ConversionsTest, RandomRequestsRoundTrip) {
  RandomHal random(7);
  for (int i = 0; i < 500; ++i) {
    const hal::Request request = random.request();
    auto onWire = toWire(request);
    ASSERT_TRUE(onWire.ok()) << onWire.error().message;
    wire::Request parsed;
    ASSERT_TRUE(parsed.ParseFromString(onWire->SerializeAsString()));
    auto back = fromWire(parsed, resolveInlineOnly);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->inputs, request.inputs) << "request " << i;
    EXPECT_EQ(back->outputs, request.outputs);
    ASSERT_EQ(back->pools.size(), request.pools.size());
    const RequestPoolPlan plan = planRequestPools(request);
    for (size_t p = 0; p < request.pools.size(); ++p) {
      if (const auto* token = std::get_if<hal::Request::MemoryDomainToken>(&request.pools[p])) {
        EXPECT_EQ(std::get<hal::Request::MemoryDomainToken>(back->pools[p]), *token);
        continue;
      }
      const auto& original = std::get<hal::SharedMemory>(request.pools[p]);
      const auto& received = std::get<hal::SharedMemory>(back->pools[p]);
      ASSERT_EQ(received->size(), original->size());
      // Pools only outputs use travel as a size; their bytes are not sent.
      if (plan.sendContents[p]) {
        EXPECT_EQ(contents(received), contents(original));
      }
    }
  }
}

TEST(ConversionsTest, PointerOperandsBecomeConstantCopies) {
  const float value = 2.5f;
  hal::Model model;
  hal::Operand operand;
  operand.type = hal::OperandType::FLOAT32;
  operand.lifetime = Operand::LifeTime::POINTER;
  operand.location.pointer = &value;
  operand.location.length = sizeof(value);
  model.main.operands.push_back(operand);
  model.operandValues = {1, 2, 3};
  auto back = fromWire(*toWire(model), resolveInlineOnly);
  ASSERT_TRUE(back.ok());
  const hal::Operand& copied = back->main.operands[0];
  EXPECT_EQ(copied.lifetime, Operand::LifeTime::CONSTANT_COPY);
  ASSERT_EQ(copied.location.offset + copied.location.length, back->operandValues.size());
  float read;
  std::memcpy(&read, back->operandValues.data() + copied.location.offset, sizeof(read));
  EXPECT_EQ(read, value);
}

TEST(ConversionsTest, InlineMemoryLiesAreRejected) {
  wire::Memory memory;
  memory.mutable_inline_data()->set_size(10);
  memory.mutable_inline_data()->set_data("abc");
  auto resolved = resolveInlineOnly(memory);
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.error().code, hal::ErrorStatus::INVALID_ARGUMENT);

  wire::Memory huge;
  huge.mutable_inline_data()->set_size(uint64_t{1} << 40);
  EXPECT_FALSE(resolveInlineOnly(huge).ok());
  EXPECT_FALSE(resolveInlineOnly(wire::Memory()).ok());
}

TEST(ConversionsTest, ErrorsRoundTripThroughGrpcStatus) {
  hal::Error error{hal::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE, "output 0 is too small",
                   {{{2, 3}, false}, {{4}, true}}};
  const grpc::Status status = toGrpcStatus(error);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::OUT_OF_RANGE);
  const hal::Error back = fromGrpcStatus(status);
  EXPECT_EQ(back.code, error.code);
  EXPECT_EQ(back.message, error.message);
  EXPECT_EQ(back.outputShapes, error.outputShapes);

  EXPECT_EQ(toGrpcStatus(hal::Error{hal::ErrorStatus::INVALID_ARGUMENT, "x", {}}).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  // A transport failure without HAL details means the peer is gone.
  EXPECT_EQ(fromGrpcStatus(grpc::Status(grpc::StatusCode::UNAVAILABLE, "socket closed")).code,
            hal::ErrorStatus::DEAD_OBJECT);
}

TEST(ConversionsTest, TimingAndDeadlinesRoundTrip) {
  hal::Timing timing{hal::Duration(1234), std::nullopt};
  EXPECT_EQ(fromWire(toWire(timing)), timing);
  wire::Deadline deadline;
  bool has = false;
  toWire(hal::Clock::now() + std::chrono::seconds(10), &deadline, &has);
  ASSERT_TRUE(has);
  const auto restored = deadlineFromWire(deadline, true);
  ASSERT_TRUE(restored.has_value());
  EXPECT_NEAR(std::chrono::duration<double>(*restored - hal::Clock::now()).count(), 10.0, 0.5);
  toWire(std::nullopt, &deadline, &has);
  EXPECT_FALSE(has);
}

TEST(ConversionsTest, ExecutionProfilesRoundTripEveryField) {
  hal::ExecutionProfile profile;
  profile.deviceName = "nnremote-edgetpu";
  profile.clockHz = 480e6;
  profile.totalCycles = 123456;
  profile.hostWallNanoseconds = 789;
  profile.hostCpuCycles = 4321;
  hal::OperationProfile op;
  op.operationIndex = 3;
  op.type = hal::OperationType::DEPTHWISE_CONV_2D;
  op.unit = hal::ProfileUnit::VECTOR;
  op.startCycle = 11;
  op.computeCycles = 100;
  op.stallCycles = 20;
  op.overheadCycles = 8671;
  op.totalCycles = 8791;
  op.macs = 5;
  op.mappingEfficiency = 50;
  op.computeUtilization = 25;
  op.overallUtilization = 12.5;
  op.dramReadBytes = 1, op.dramWriteBytes = 2, op.sramReadBytes = 3, op.sramWriteBytes = 4;
  op.dramCycles = 6;
  hal::OperationProfile onHost = op;
  onHost.unit = hal::ProfileUnit::HOST;
  profile.operations = {onHost, op};
  const hal::ExecutionProfile back = fromWire(toWire(profile));
  EXPECT_EQ(back.deviceName, profile.deviceName);
  EXPECT_EQ(back.clockHz, profile.clockHz);
  EXPECT_EQ(back.totalCycles, profile.totalCycles);
  EXPECT_EQ(back.hostWallNanoseconds, profile.hostWallNanoseconds);
  EXPECT_EQ(back.hostCpuCycles, profile.hostCpuCycles);
  ASSERT_EQ(back.operations.size(), 2u);
  EXPECT_EQ(back.operations[0].unit, hal::ProfileUnit::HOST);
  const hal::OperationProfile& b = back.operations[1];
  EXPECT_EQ(b.operationIndex, op.operationIndex);
  EXPECT_EQ(b.type, op.type);
  EXPECT_EQ(b.unit, op.unit);
  EXPECT_EQ(b.startCycle, op.startCycle);
  EXPECT_EQ(b.computeCycles, op.computeCycles);
  EXPECT_EQ(b.stallCycles, op.stallCycles);
  EXPECT_EQ(b.overheadCycles, op.overheadCycles);
  EXPECT_EQ(b.totalCycles, op.totalCycles);
  EXPECT_EQ(b.macs, op.macs);
  EXPECT_EQ(b.mappingEfficiency, op.mappingEfficiency);
  EXPECT_EQ(b.computeUtilization, op.computeUtilization);
  EXPECT_EQ(b.overallUtilization, op.overallUtilization);
  EXPECT_EQ(b.dramReadBytes, op.dramReadBytes);
  EXPECT_EQ(b.dramWriteBytes, op.dramWriteBytes);
  EXPECT_EQ(b.sramReadBytes, op.sramReadBytes);
  EXPECT_EQ(b.sramWriteBytes, op.sramWriteBytes);
  EXPECT_EQ(b.dramCycles, op.dramCycles);
}

}  // namespace
}  // namespace nnremote::wire
