// Bursts over one bidirectional stream, against a real server.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "accelerator_sim/sim_device.h"
#include "emulator/emulator_server.h"
#include "hal/model_builder.h"
#include "proto/grpc_status.h"
#include "proxy_driver/proxy_device.h"

namespace nnremote::proxy {
namespace {

using hal::OperandType;
using hal::OperationType;
using ::testing::HasSubstr;

class BurstTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = emulator::EmulatorServer::start({sim::SimDevice::create(sim::edgeNpuConfig())},
                                                  "127.0.0.1:0");
    ASSERT_TRUE(server.ok());
    server_ = std::move(server).value();
    connection_ = *Connection::connect(server_->address());
    hal::ModelBuilder b;
    const uint32_t a = b.addInput(OperandType::TENSOR_FLOAT32, {4});
    const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {0});  // shape left to execution
    b.addOperation(OperationType::ADD, {a, a, b.addInt32(0)}, {out});
    auto device = ProxyDevice::discover(connection_)->front();
    auto prepared = device->prepareModel(b.build(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                         hal::Priority::HIGH, std::nullopt, {}, {}, {});
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    prepared_ = *prepared;
  }

  // a + a for a in shared memory (or heap), out in shared memory.
  struct Io {
    hal::SharedMemory in, out;
    hal::Request request;
  };
  Io makeIo(bool shared, uint32_t outBytes = 16) {
    Io io;
    io.in = shared ? *hal::createSharedMemory(16) : *hal::createHeapMemory(16);
    io.out = *hal::createSharedMemory(outBytes);
    io.request.inputs = {{hal::Request::Argument::LifeTime::POOL, {nullptr, 0, 0, 16, 0}, {}}};
    io.request.outputs = {{hal::Request::Argument::LifeTime::POOL, {nullptr, 1, 0, outBytes, 0}, {}}};
    io.request.pools = {io.in, io.out};
    return io;
  }

  std::unique_ptr<emulator::EmulatorServer> server_;
  std::shared_ptr<Connection> connection_;
  hal::SharedPreparedModel prepared_;
};

TEST_F(BurstTest, ExecutesRepeatedlyWithCachedAndUncachedMemory) {
  auto burst = prepared_->configureExecutionBurst();
  ASSERT_TRUE(burst.ok()) << burst.error().message;
  for (bool shared : {true, false}) {
    Io io = makeIo(shared);
    auto inHold = (*burst)->cacheMemory(io.in);
    auto outHold = (*burst)->cacheMemory(io.out);
    for (int i = 0; i < 50; ++i) {
      float* in = reinterpret_cast<float*>(io.in->data());
      for (int k = 0; k < 4; ++k) in[k] = float(i + k);
      auto outcome = (*burst)->execute(io.request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
      ASSERT_TRUE(outcome.ok()) << outcome.error().message;
      EXPECT_EQ(hal::fromMemory<float>(io.out, 4), (std::vector<float>{2.0f * i, 2.0f * i + 2, 2.0f * i + 4, 2.0f * i + 6}));
      EXPECT_EQ(outcome->outputShapes[0].dimensions, (std::vector<uint32_t>{4}));
      EXPECT_TRUE(outcome->timing.timeOnDevice.has_value());
    }
  }
}

TEST_F(BurstTest, ErrorsAreReportedInBandAndTheBurstGoesOn) {
  auto burst = prepared_->configureExecutionBurst();
  ASSERT_TRUE(burst.ok());
  Io io = makeIo(true);
  hal::Request wrong = io.request;
  wrong.inputs[0].dimensions = {5};
  auto refused = (*burst)->execute(wrong, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error().message, HasSubstr("request.inputs[0].dimensions[0] = 5"));

  Io small = makeIo(true, /*outBytes=*/8);
  auto insufficient = (*burst)->execute(small.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(insufficient.ok());
  EXPECT_EQ(insufficient.error().code, hal::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE);
  ASSERT_EQ(insufficient.error().outputShapes.size(), 1u);
  EXPECT_EQ(insufficient.error().outputShapes[0].dimensions, (std::vector<uint32_t>{4}));

  EXPECT_TRUE((*burst)->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
}

TEST_F(BurstTest, ABurstForAnUnknownPreparedModelIsRefused) {
  grpc::ClientContext context;
  auto stream = connection_->stub().Burst(&context);
  wire::BurstRequest open;
  open.mutable_open()->set_session_id(connection_->sessionId());
  open.mutable_open()->set_prepared_model_id(42);
  stream->Write(open);
  stream->WritesDone();
  wire::BurstResponse response;
  EXPECT_FALSE(stream->Read(&response));
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(wire_conv::fromGrpcStatus(status).message, HasSubstr("prepared_model_id 42"));
}

TEST_F(BurstTest, AGoneServerEndsTheBurstWithDeadObject) {
  auto burst = prepared_->configureExecutionBurst();
  ASSERT_TRUE(burst.ok());
  Io io = makeIo(true);
  ASSERT_TRUE((*burst)->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  server_.reset();
  auto outcome = (*burst)->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, hal::ErrorStatus::DEAD_OBJECT);
}

}  // namespace
}  // namespace nnremote::proxy
