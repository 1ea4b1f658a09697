// Bursts against a real server: over TCP on one bidirectional stream, and over a unix socket,
// where the messages go through the same-host shared-memory queue.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <future>
#include <thread>

#include "drivers/sim/sim_device.h"
#include "emulator/emulator_server.h"
#include "hal/model_builder.h"
#include "wire/conversions.h"
#include "wire/grpc_status.h"
#include "drivers/proxy/proxy_burst.h"
#include "drivers/proxy/proxy_device.h"
#include "drivers/proxy/proxy_prepared_model.h"
#include "drivers/proxy/stubs.h"
#include "middleware/fault_injection.h"
#include "testing/add_model.h"
#include "tests/common/server_options.h"
#include "testing/unique_names.h"

namespace nnremote::proxy {
namespace {

using hal::OperandType;
using hal::OperationType;
using ::testing::HasSubstr;

enum class Transport { TCP_STREAM, UNIX_SHARED_QUEUE };

std::string addressFor(Transport transport) {
  if (transport == Transport::TCP_STREAM) return "127.0.0.1:0";
  return "unix-abstract:nnremote-burst-test-" + testing::uniqueToken();
}

class BurstTest : public ::testing::TestWithParam<Transport> {
 protected:
  void SetUp() override {
    auto server = emulator::EmulatorServer::start({sim::SimDevice::create(sim::edgeNpuConfig())},
                                                  addressFor(GetParam()), testing::plainLoopbackOptions());
    ASSERT_TRUE(server.ok());
    server_ = std::move(server).value();
    // No test here waits for a server to come back: a gone one is given up on in a second, not
    // the default ten.
    ConnectionOptions options;
    options.reconnectTimeout = std::chrono::seconds(1);
    connection_ = *Connection::connect(server_->address(), options);
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

  // Opens a burst and checks it took the transport the test is about.
  hal::SharedBurst openBurst() {
    auto burst = prepared_->configureExecutionBurst();
    EXPECT_TRUE(burst.ok()) << burst.error().message;
    if (!burst.ok()) return nullptr;
    const auto* proxy = dynamic_cast<const ProxyBurst*>(burst->get());
    EXPECT_TRUE(proxy != nullptr);
    if (proxy != nullptr) {
      EXPECT_EQ(proxy->usesSharedQueue(), GetParam() == Transport::UNIX_SHARED_QUEUE);
    }
    return *burst;
  }

  std::unique_ptr<emulator::EmulatorServer> server_;
  std::shared_ptr<Connection> connection_;
  hal::SharedPreparedModel prepared_;
};

TEST_P(BurstTest, ExecutesRepeatedlyWithCachedAndUncachedMemory) {
  auto burst = openBurst();
  ASSERT_TRUE(burst != nullptr);
  for (bool shared : {true, false}) {
    Io io = makeIo(shared);
    auto inHold = burst->cacheMemory(io.in);
    auto outHold = burst->cacheMemory(io.out);
    for (int i = 0; i < 50; ++i) {
      float* in = reinterpret_cast<float*>(io.in->data());
      for (int k = 0; k < 4; ++k) in[k] = float(i + k);
      auto outcome = burst->execute(io.request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
      ASSERT_TRUE(outcome.ok()) << outcome.error().message;
      EXPECT_EQ(hal::fromMemory<float>(io.out, 4), (std::vector<float>{2.0f * i, 2.0f * i + 2, 2.0f * i + 4, 2.0f * i + 6}));
      EXPECT_EQ(outcome->outputShapes[0].dimensions, (std::vector<uint32_t>{4}));
      EXPECT_TRUE(outcome->timing.timeOnDevice.has_value());
    }
  }
}

TEST_P(BurstTest, ErrorsAreReportedInBandAndTheBurstGoesOn) {
  auto burst = openBurst();
  ASSERT_TRUE(burst != nullptr);
  Io io = makeIo(true);
  hal::Request wrong = io.request;
  wrong.inputs[0].dimensions = {5};
  auto refused = burst->execute(wrong, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error().message, HasSubstr("request.inputs[0].dimensions[0] = 5"));

  Io small = makeIo(true, /*outBytes=*/8);
  auto insufficient = burst->execute(small.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(insufficient.ok());
  EXPECT_EQ(insufficient.error().code, hal::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE);
  ASSERT_EQ(insufficient.error().outputShapes.size(), 1u);
  EXPECT_EQ(insufficient.error().outputShapes[0].dimensions, (std::vector<uint32_t>{4}));

  EXPECT_TRUE(burst->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
}

TEST_P(BurstTest, ABurstForAnUnknownPreparedModelIsRefused) {
  grpc::ClientContext context;
  auto stream = connection_->waitsStub()->Burst(&context);
  wire::BurstRequest open;
  open.mutable_open()->set_session_id(connection_->sessionId());
  open.mutable_open()->set_prepared_model_id(42);
  stream->Write(open);
  stream->WritesDone();
  wire::BurstResponse response;
  EXPECT_FALSE(stream->Read(&response));
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(wire::fromGrpcStatus(status).message, HasSubstr("prepared_model_id 42"));
}

// Bursts validate an execution exactly as every other executor does (one path on the server):
// a measure that is neither NO nor YES is INVALID_ARGUMENT, in band, and the burst goes on.
TEST_P(BurstTest, AnInvalidMeasureIsRefusedInBandAsEverywhere) {
  const auto* proxy = dynamic_cast<const ProxyPreparedModel*>(prepared_.get());
  ASSERT_NE(proxy, nullptr);
  auto where = proxy->current();
  ASSERT_TRUE(where.ok()) << where.error().message;
  grpc::ClientContext context;
  auto stream = connection_->waitsStub()->Burst(&context);
  wire::BurstRequest open;
  open.mutable_open()->set_session_id(where->first.id);
  open.mutable_open()->set_prepared_model_id(where->second);
  ASSERT_TRUE(stream->Write(open));  // answered only when it asks for a shared queue
  Io io = makeIo(/*shared=*/false);
  auto wireRequest = wire::toWire(io.request);
  ASSERT_TRUE(wireRequest.ok()) << wireRequest.error().message;
  for (int measure : {7, static_cast<int>(wire::MEASURE_TIMING_NO)}) {
    wire::BurstRequest execute;
    execute.mutable_execute()->set_serial(static_cast<uint64_t>(measure) + 1);
    *execute.mutable_execute()->mutable_request() = *wireRequest;
    execute.mutable_execute()->set_measure(static_cast<wire::MeasureTiming>(measure));
    ASSERT_TRUE(stream->Write(execute));
    wire::BurstResponse answer;
    ASSERT_TRUE(stream->Read(&answer));
    EXPECT_EQ(answer.serial(), static_cast<uint64_t>(measure) + 1);
    if (measure == 7) {
      ASSERT_TRUE(answer.outcome().has_error());
      const hal::Error error = wire::fromWire(answer.outcome().error());
      EXPECT_EQ(error.code, hal::ErrorStatus::INVALID_ARGUMENT);
      EXPECT_THAT(error.message, HasSubstr("measure = 7 is not a valid MeasureTiming"));
    } else {
      EXPECT_FALSE(answer.outcome().has_error()) << wire::fromWire(answer.outcome().error()).message;
    }
  }
  stream->WritesDone();
  (void)stream->Finish();
}

TEST_P(BurstTest, AGoneServerEndsTheBurstWithDeadObject) {
  auto burst = openBurst();
  ASSERT_TRUE(burst != nullptr);
  Io io = makeIo(true);
  ASSERT_TRUE(burst->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  server_.reset();
  auto outcome = burst->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, hal::ErrorStatus::DEAD_OBJECT);
}

// Outputs too large for the queue come back on the stream; the burst goes on through the queue.
TEST_P(BurstTest, LargeOutputsComeBackWhateverTheTransport) {
  hal::ModelBuilder b;
  constexpr uint32_t kElements = 256 * 1024;  // 1 MiB of float32 each way
  const uint32_t a = b.addInput(OperandType::TENSOR_FLOAT32, {kElements});
  const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {kElements});
  b.addOperation(OperationType::ADD, {a, a, b.addInt32(0)}, {out});
  auto device = ProxyDevice::discover(connection_)->front();
  prepared_ = *device->prepareModel(b.build(), hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::HIGH,
                                    std::nullopt, {}, {}, {});
  auto burst = openBurst();
  ASSERT_TRUE(burst != nullptr);
  std::vector<float> input(kElements);
  for (uint32_t i = 0; i < kElements; ++i) input[i] = float(i % 1000);
  for (int round = 0; round < 2; ++round) {
    // Heap memory: the input travels in the message, too big for the queue, and so does the output.
    auto io = *hal::makeRequest({hal::toBytes<float>(input)}, {kElements * 4}, hal::createHeapMemory);
    auto outcome = burst->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    const std::vector<float> result = hal::fromMemory<float>(io.outputs[0], kElements);
    EXPECT_EQ(result[999], 1998.0f);
    EXPECT_EQ(result[kElements - 1], 2.0f * float((kElements - 1) % 1000));
  }
  // And the burst goes on: with shared memory pools the messages are small again.
  auto small = *hal::makeRequest({hal::toBytes<float>(std::vector<float>(kElements, 1.0f))}, {kElements * 4},
                                 hal::createSharedMemory);
  EXPECT_TRUE(burst->execute(small.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
}

// A client that supervises its server (a backend host's parent) learns of its death before gRPC
// does: a burst execution waiting on the shared-memory queue then ends at once with DEAD_OBJECT,
// not at its next poll (an hour here) nor never (the server here is alive, its execution hung).
TEST(SupervisedServerTest, AServerSeenDeadEndsTheExecutionWaitingOnTheSharedQueue) {
  middleware::FaultInjector faults(*middleware::parseFaultPlan("hang:0"));
  auto server = emulator::EmulatorServer::start(faults.wrap({sim::SimDevice::create(sim::edgeNpuConfig())}),
                                                addressFor(Transport::UNIX_SHARED_QUEUE),
                                                testing::plainLoopbackOptions());
  ASSERT_TRUE(server.ok()) << server.error().message;
  ConnectionOptions options;
  options.queuePoll = std::chrono::hours(1);
  options.reconnect = false;  // the lost session is not replaced: the call cannot start afresh
  auto connection = Connection::connect((*server)->address(), options);
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  auto device = ProxyDevice::discover(*connection)->front();
  auto prepared = device->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                       hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto burst = (*prepared)->configureExecutionBurst();
  ASSERT_TRUE(burst.ok()) << burst.error().message;
  ASSERT_TRUE(dynamic_cast<const ProxyBurst&>(**burst).usesSharedQueue());
  auto io = *hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
  auto execution = std::async(std::launch::async, [&] {
    return (*burst)->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  });
  // Once the server holds the execution, the client is waiting for the answer on the queue.
  const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (faults.executionsSeen() == 0 && std::chrono::steady_clock::now() < giveUp) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(faults.executionsSeen(), 1u);
  (*connection)->serverDied();
  const bool ended = execution.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  EXPECT_TRUE(ended) << "the execution still waits for the server seen dead";
  faults.releaseAll();  // a failing run ends too: the hung execution answers
  auto outcome = execution.get();
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, hal::ErrorStatus::DEAD_OBJECT);
  if (ended) {
    EXPECT_THAT(outcome.error().message, ::testing::Not(HasSubstr("injected hang")));
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, BurstTest,
                         ::testing::Values(Transport::TCP_STREAM, Transport::UNIX_SHARED_QUEUE),
                         [](const auto& info) {
                           return info.param == Transport::TCP_STREAM ? std::string("TcpStream")
                                                                      : std::string("UnixSharedQueue");
                         });

}  // namespace
}  // namespace nnremote::proxy
