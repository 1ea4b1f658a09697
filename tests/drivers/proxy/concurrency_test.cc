// Many executions in flight at once through one connection: results never mix up.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "drivers/sim/sim_device.h"
#include "emulator/emulator_server.h"
#include "hal/execution_adapters.h"
#include "hal/model_builder.h"
#include "drivers/proxy/proxy_device.h"
#include "tests/common/server_options.h"

namespace nnremote::proxy {
namespace {

using hal::OperandType;
using hal::OperationType;

hal::Model scaleModel(float factor) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(OperandType::TENSOR_FLOAT32, {64});
  const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {64});
  const uint32_t k = b.addConstant(OperandType::TENSOR_FLOAT32, {1}, std::vector<float>{factor});
  b.addOperation(OperationType::MUL, {in, k, b.addInt32(0)}, {out});
  return b.build();
}

TEST(ConcurrencyTest, SixtyFourThreadsAcrossTwoPreparedModelsGetTheirOwnResults) {
  auto server = emulator::EmulatorServer::start({sim::SimDevice::create(sim::edgeNpuConfig())}, "127.0.0.1:0",
                                                testing::plainLoopbackOptions());
  ASSERT_TRUE(server.ok());
  auto connection = Connection::connect((*server)->address());
  ASSERT_TRUE(connection.ok());
  auto device = ProxyDevice::discover(*connection)->front();
  std::vector<hal::SharedPreparedModel> models;
  for (float factor : {2.0f, 3.0f}) {
    auto prepared = device->prepareModel(scaleModel(factor), hal::ExecutionPreference::SUSTAINED_SPEED,
                                         hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
    ASSERT_TRUE(prepared.ok());
    models.push_back(*prepared);
  }
  constexpr int kThreads = 64, kExecutions = 20;
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const auto& prepared = models[t % 2];
      const float factor = t % 2 == 0 ? 2.0f : 3.0f;
      // Half the threads use shared memory, half send bytes; every thread its own values.
      auto allocate = t % 4 < 2 ? hal::createSharedMemory : hal::MemoryAllocator(hal::createHeapMemory);
      for (int i = 0; i < kExecutions; ++i) {
        std::vector<float> input(64);
        for (int k = 0; k < 64; ++k) input[k] = float(t * 1000 + i * 64 + k);
        auto io = hal::makeRequest({hal::toBytes(input)}, {64 * sizeof(float)}, allocate);
        auto outcome = prepared->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
        if (!outcome.ok()) {
          ++failures;
          continue;
        }
        const auto output = hal::fromMemory<float>(io->outputs[0], 64);
        for (int k = 0; k < 64; ++k) {
          if (output[k] != input[k] * factor) {
            ++mismatches;
            break;
          }
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(ConcurrencyTest, AsynchronousExecutionsCompleteWithTheirOwnResults) {
  auto server = emulator::EmulatorServer::start({sim::SimDevice::create(sim::edgeNpuConfig())}, "127.0.0.1:0",
                                                testing::plainLoopbackOptions());
  ASSERT_TRUE(server.ok());
  auto connection = Connection::connect((*server)->address());
  auto device = ProxyDevice::discover(*connection)->front();
  auto prepared = *device->prepareModel(scaleModel(5.0f), hal::ExecutionPreference::SUSTAINED_SPEED,
                                        hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  std::atomic<int> callbacks{0};
  std::vector<std::future<hal::Result<hal::ExecutionOutcome>>> futures;
  std::vector<hal::RequestWithMemories> ios;
  for (int i = 0; i < 64; ++i) ios.push_back(*hal::makeRequest({hal::toBytes(std::vector<float>(64, float(i)))}, {256}));
  for (int i = 0; i < 64; ++i) {
    futures.push_back(hal::executeAsync(prepared, ios[i].request, hal::MeasureTiming::YES, std::nullopt,
                                        std::nullopt, [&](const auto& result) {
                                          if (result.ok()) ++callbacks;
                                        }));
  }
  for (int i = 0; i < 64; ++i) {
    auto result = futures[i].get();
    ASSERT_TRUE(result.ok()) << result.error().message;
    EXPECT_EQ(hal::fromMemory<float>(ios[i].outputs[0], 64), std::vector<float>(64, 5.0f * i));
  }
  EXPECT_EQ(callbacks.load(), 64);
}

}  // namespace
}  // namespace nnremote::proxy
