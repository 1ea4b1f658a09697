// The XNNPACK side of the speed comparison must run the same network as the simulator, or the
// comparison means nothing: both must give the same MobileNet v1 answer.
#include "benchmarks/xnnpack_network.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "drivers/sim/sim_device.h"
#include "hal/model_builder.h"
#include "tools/models/mobilenet_v1.h"

namespace nnremote::benchmarks {
namespace {

using tools::Precision;

std::vector<uint8_t> runOnSimulator(const tools::BuiltModel& built) {
  auto device = sim::SimDevice::create(sim::edgeNpuConfig());
  auto prepared = device->prepareModel(built.model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                       hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  EXPECT_TRUE(prepared.ok());
  if (!prepared.ok()) return {};
  auto io = hal::makeRequest({built.input}, built.outputSizes);
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  EXPECT_TRUE(outcome.ok());
  return hal::fromMemory<uint8_t>(io->outputs[0], built.outputSizes[0]);
}

// MobileNet v1's output bytes from the simulator and from XNNPACK.
struct BothOutputs {
  std::vector<uint8_t> simulator, xnnpack;
};

BothOutputs runBoth(Precision precision) {
  const tools::BuiltModel built = tools::buildMobileNetV1(precision);
  BothOutputs outputs;
  auto network = XnnpackNetwork::create(built.model);
  EXPECT_TRUE(network.ok()) << network.error().message;
  if (!network.ok()) return outputs;
  auto theirs = (*network)->run(built.input);
  EXPECT_TRUE(theirs.ok()) << theirs.error().message;
  if (theirs.ok()) outputs.xnnpack = *theirs;
  outputs.simulator = runOnSimulator(built);
  return outputs;
}

TEST(XnnpackNetworkTest, Float32MobileNetMatchesTheSimulator) {
  const BothOutputs outputs = runBoth(Precision::FLOAT32);
  ASSERT_EQ(outputs.simulator.size(), 1001 * sizeof(float));
  ASSERT_EQ(outputs.xnnpack.size(), outputs.simulator.size());
  std::vector<float> a(1001), b(1001);
  std::memcpy(a.data(), outputs.simulator.data(), outputs.simulator.size());
  std::memcpy(b.data(), outputs.xnnpack.data(), outputs.xnnpack.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5) << "class " << i;
  EXPECT_EQ(std::max_element(a.begin(), a.end()) - a.begin(), std::max_element(b.begin(), b.end()) - b.begin());
}

TEST(XnnpackNetworkTest, Quant8MobileNetMatchesTheSimulatorWithinOneStep) {
  const BothOutputs outputs = runBoth(Precision::QUANT8);
  ASSERT_EQ(outputs.simulator.size(), 1001u);
  ASSERT_EQ(outputs.xnnpack.size(), outputs.simulator.size());
  for (size_t i = 0; i < outputs.simulator.size(); ++i) {
    EXPECT_LE(std::abs(int(outputs.simulator[i]) - int(outputs.xnnpack[i])), 1) << "class " << i;
  }
}

TEST(XnnpackNetworkTest, RejectsOperationsItDoesNotTranslate) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(hal::OperandType::TENSOR_FLOAT32, {1, 4});
  const uint32_t out = b.addOutput(hal::OperandType::TENSOR_FLOAT32, {1, 4});
  b.addOperation(hal::OperationType::TANH, {in}, {out});
  auto network = XnnpackNetwork::create(b.build());
  ASSERT_FALSE(network.ok());
  EXPECT_NE(network.error().message.find("operations[0]"), std::string::npos) << network.error().message;
}

}  // namespace
}  // namespace nnremote::benchmarks
