// The XNNPACK side of the speed comparison must run the same network as the simulator, or the
// comparison means nothing: both must give the same MobileNet v1 answer.
#include "benchmarks/xnnpack_network.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "accelerator_sim/sim_device.h"
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
  auto io = hal::makeRequest({built.input}, {built.outputBytes});
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  EXPECT_TRUE(outcome.ok());
  return hal::fromMemory<uint8_t>(io->outputs[0], built.outputBytes);
}

TEST(XnnpackNetworkTest, Float32MobileNetMatchesTheSimulator) {
  const tools::BuiltModel built = tools::buildMobileNetV1(Precision::FLOAT32);
  auto network = XnnpackNetwork::create(built.model);
  ASSERT_TRUE(network.ok()) << network.error().message;
  auto theirs = (*network)->run(built.input);
  ASSERT_TRUE(theirs.ok()) << theirs.error().message;
  const std::vector<uint8_t> ours = runOnSimulator(built);
  ASSERT_EQ(ours.size(), theirs->size());
  std::vector<float> a(ours.size() / 4), b(ours.size() / 4);
  std::memcpy(a.data(), ours.data(), ours.size());
  std::memcpy(b.data(), theirs->data(), theirs->size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5) << "class " << i;
  EXPECT_EQ(std::max_element(a.begin(), a.end()) - a.begin(), std::max_element(b.begin(), b.end()) - b.begin());
}

TEST(XnnpackNetworkTest, Quant8MobileNetMatchesTheSimulatorWithinOneStep) {
  const tools::BuiltModel built = tools::buildMobileNetV1(Precision::QUANT8);
  auto network = XnnpackNetwork::create(built.model);
  ASSERT_TRUE(network.ok()) << network.error().message;
  auto theirs = (*network)->run(built.input);
  ASSERT_TRUE(theirs.ok()) << theirs.error().message;
  const std::vector<uint8_t> ours = runOnSimulator(built);
  ASSERT_EQ(ours.size(), theirs->size());
  for (size_t i = 0; i < ours.size(); ++i) EXPECT_LE(std::abs(int(ours[i]) - int((*theirs)[i])), 1) << "class " << i;
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
