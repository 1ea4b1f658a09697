// Fenced executions whose fences live on the server.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "drivers/sim/sim_device.h"
#include "emulator/accelerator_service.h"
#include "emulator/emulator_server.h"
#include "hal/model_builder.h"
#include "drivers/proxy/proxy_device.h"
#include "tests/common/server_options.h"

namespace nnremote::proxy {
namespace {

using hal::OperandType;
using hal::OperationType;
using State = hal::SyncFence::State;
using ::testing::HasSubstr;

class FencedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = emulator::EmulatorServer::start({sim::SimDevice::create(sim::edgeNpuConfig())}, "127.0.0.1:0",
                                                  testing::plainLoopbackOptions());
    ASSERT_TRUE(server.ok());
    server_ = std::move(server).value();
    connection_ = *Connection::connect(server_->address());
    hal::ModelBuilder b;  // y = 2x
    const uint32_t in = b.addInput(OperandType::TENSOR_FLOAT32, {4});
    const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {4});
    b.addOperation(OperationType::ADD, {in, in, b.addInt32(0)}, {out});
    auto device = ProxyDevice::discover(connection_)->front();
    prepared_ = *device->prepareModel(b.build(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                      hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  }

  static hal::Request doubling(const hal::SharedMemory& in, const hal::SharedMemory& out) {
    hal::Request request;
    request.inputs = {{hal::Request::Argument::LifeTime::POOL, {nullptr, 0, 0, 16, 0}, {}}};
    request.outputs = {{hal::Request::Argument::LifeTime::POOL, {nullptr, 1, 0, 16, 0}, {}}};
    request.pools = {in, out};
    return request;
  }

  size_t serverFences() {
    return (*server_->service().sessions().find(connection_->sessionId(), connection_->identity()))->fences.size();
  }

  std::unique_ptr<emulator::EmulatorServer> server_;
  std::shared_ptr<Connection> connection_;
  hal::SharedPreparedModel prepared_;
};

TEST_F(FencedTest, AChainOfThreeRunsOnTheServerAfterALateClientFence) {
  std::vector<hal::SharedMemory> buffers;
  for (int i = 0; i < 4; ++i) buffers.push_back(*hal::createSharedMemory(16));
  float* x = reinterpret_cast<float*>(buffers[0]->data());
  for (int k = 0; k < 4; ++k) x[k] = float(k + 1);

  const hal::SyncFence gate = hal::SyncFence::create();  // the client signals it late
  std::vector<hal::SyncFence> fences;
  std::vector<hal::ExecuteFencedInfoCallback> infos;
  hal::SyncFence previous = gate;
  for (int step = 0; step < 3; ++step) {
    auto fenced = prepared_->executeFenced(doubling(buffers[step], buffers[step + 1]), {previous},
                                           hal::MeasureTiming::YES, std::nullopt, std::nullopt, std::nullopt);
    ASSERT_TRUE(fenced.ok()) << fenced.error().message;
    previous = fenced->first;
    fences.push_back(fenced->first);
    infos.push_back(fenced->second);
  }
  // One server fence mirrors the gate, one per execution: the chain passed fences by id.
  EXPECT_EQ(serverFences(), 4u);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (const auto& fence : fences) EXPECT_EQ(fence.state(), State::ACTIVE) << "nothing runs before the gate";

  gate.signal();
  EXPECT_EQ(fences.back().wait(std::chrono::seconds(10)), State::SIGNALED);
  EXPECT_EQ(hal::fromMemory<float>(buffers[3], 4), (std::vector<float>{8, 16, 24, 32}));
  for (auto& info : infos) {
    auto timings = info();
    ASSERT_TRUE(timings.ok()) << timings.error().message;
    ASSERT_TRUE(timings->first.timeOnDevice.has_value());
    ASSERT_TRUE(timings->second.timeInDriver.has_value());
    EXPECT_GE(*timings->first.timeInDriver, *timings->second.timeInDriver)
        << "timingLaunched counts from the call, timingFenced from the fences";
  }
}

TEST_F(FencedTest, AnErroredFenceFailsTheExecutionAndEverythingChainedOnIt) {
  auto in = *hal::createSharedMemory(16), middle = *hal::createSharedMemory(16), out = *hal::createSharedMemory(16);
  const hal::SyncFence broken = hal::SyncFence::create();
  auto first = prepared_->executeFenced(doubling(in, middle), {broken}, hal::MeasureTiming::NO,
                                        std::nullopt, std::nullopt, std::nullopt);
  ASSERT_TRUE(first.ok());
  auto second = prepared_->executeFenced(doubling(middle, out), {first->first}, hal::MeasureTiming::NO,
                                         std::nullopt, std::nullopt, std::nullopt);
  ASSERT_TRUE(second.ok());
  broken.signal(/*error=*/true);
  EXPECT_EQ(first->first.wait(std::chrono::seconds(10)), State::ERROR);
  EXPECT_EQ(second->first.wait(std::chrono::seconds(10)), State::ERROR);
  auto info = first->second();
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.error().code, hal::ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(info.error().message, HasSubstr("signaled an error"));
}

TEST_F(FencedTest, AFenceThatNeverSignalsMissesTheDeadline) {
  auto in = *hal::createSharedMemory(16), out = *hal::createSharedMemory(16);
  const hal::SyncFence never = hal::SyncFence::create();
  auto fenced = prepared_->executeFenced(doubling(in, out), {never}, hal::MeasureTiming::NO,
                                         hal::Clock::now() + std::chrono::milliseconds(100), std::nullopt,
                                         std::nullopt);
  ASSERT_TRUE(fenced.ok());
  EXPECT_EQ(fenced->first.wait(std::chrono::seconds(10)), State::ERROR);
  auto info = fenced->second();
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.error().code, hal::ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  never.signal();  // lets the mirroring thread finish
}

TEST_F(FencedTest, PoolsSentByValueWaitForTheirFencesHere) {
  auto io = *hal::makeRequest({hal::toBytes<float>({1, 2, 3, 4})}, {16});
  const hal::SyncFence gate = hal::SyncFence::create();
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    gate.signal();
  });
  auto fenced = prepared_->executeFenced(io.request, {gate}, hal::MeasureTiming::NO, std::nullopt,
                                         std::nullopt, std::nullopt);
  signaller.join();
  ASSERT_TRUE(fenced.ok()) << fenced.error().message;
  EXPECT_EQ(fenced->first.wait(std::chrono::seconds(10)), State::SIGNALED);
  EXPECT_EQ(hal::fromMemory<float>(io.outputs[0], 4), (std::vector<float>{2, 4, 6, 8}));
}

// A long-running client: fences it lets go of are forgotten by the server, so the session's
// fence count stays bounded however many fenced executions it runs (it used to grow by one per
// execution until session_quotas.fences refused every later one).
TEST_F(FencedTest, FencesTheClientDropsAreForgottenByTheServer) {
  const hal::SharedMemory in = *hal::createSharedMemory(16);
  const hal::SharedMemory out = *hal::createSharedMemory(16);
  const size_t before = serverFences();
  for (int i = 0; i < 300; ++i) {
    // Every other execution waits for a client fence, which the server mirrors.
    const hal::SyncFence gate = hal::SyncFence::create();
    std::vector<hal::SyncFence> waitFor;
    if (i % 2 == 1) waitFor.push_back(gate);
    auto fenced = prepared_->executeFenced(doubling(in, out), waitFor, hal::MeasureTiming::NO, std::nullopt,
                                           std::nullopt, std::nullopt);
    ASSERT_TRUE(fenced.ok()) << fenced.error().message;
    gate.signal();
    ASSERT_EQ(fenced->first.wait(std::chrono::seconds(10)), State::SIGNALED);
    ASSERT_TRUE(fenced->second().ok());
  }
  // What is still held: the last execution's fence (released with the next call) and at most a
  // mirror whose release is on its way.
  EXPECT_LE(serverFences(), before + 2);
}

}  // namespace
}  // namespace nnremote::proxy
