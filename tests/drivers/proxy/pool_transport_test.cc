// Memory pools over a real socket: same-host shared memory by registration, bulk transfers for
// tensors far beyond gRPC's message limits, and the rules around them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <cstring>

#include "drivers/sim/sim_device.h"
#include "emulator/accelerator_service.h"
#include "emulator/emulator_server.h"
#include "hal/model_builder.h"
#include "wire/conversions.h"
#include "wire/grpc_status.h"
#include "drivers/proxy/proxy_device.h"
#include "drivers/proxy/pool_transport.h"
#include "drivers/proxy/stubs.h"
#include "tests/common/server_options.h"

namespace nnremote::proxy {
namespace {

using hal::OperandType;
using hal::OperationType;
using ::testing::HasSubstr;

hal::Model addModel(uint32_t elements) {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(OperandType::TENSOR_FLOAT32, {elements});
  const uint32_t c = b.addInput(OperandType::TENSOR_FLOAT32, {elements});
  const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {elements});
  b.addOperation(OperationType::ADD, {a, c, b.addInt32(0)}, {out});
  return b.build();
}

// A request whose three pools are the given memories: a, b in, sum out.
hal::Request requestOver(const hal::SharedMemory& a, const hal::SharedMemory& b,
                         const hal::SharedMemory& out) {
  hal::Request request;
  const uint32_t bytes = static_cast<uint32_t>(a->size());
  request.inputs = {{hal::Request::Argument::LifeTime::POOL, {nullptr, 0, 0, bytes, 0}, {}},
                    {hal::Request::Argument::LifeTime::POOL, {nullptr, 1, 0, bytes, 0}, {}}};
  request.outputs = {{hal::Request::Argument::LifeTime::POOL, {nullptr, 2, 0, bytes, 0}, {}}};
  request.pools = {a, b, out};
  return request;
}

void fill(const hal::SharedMemory& memory, float start, float step) {
  float* values = reinterpret_cast<float*>(memory->data());
  for (size_t i = 0; i < memory->size() / sizeof(float); ++i) values[i] = start + step * float(i % 1000);
}

class PoolTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = emulator::EmulatorServer::start({sim::SimDevice::create(sim::edgeNpuConfig())},
                                                  "127.0.0.1:0", testing::plainLoopbackOptions());
    ASSERT_TRUE(server.ok());
    server_ = std::move(server).value();
  }

  void connect(ConnectionOptions options = {}) {
    auto connection = Connection::connect(server_->address(), options);
    ASSERT_TRUE(connection.ok()) << connection.error().message;
    connection_ = *connection;
    device_ = ProxyDevice::discover(connection_)->front();
  }

  hal::SharedPreparedModel prepare(const hal::Model& model) {
    auto prepared = device_->prepareModel(model, hal::ExecutionPreference::SUSTAINED_SPEED,
                                          hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
    EXPECT_TRUE(prepared.ok()) << prepared.error().message;
    return prepared.ok() ? *prepared : nullptr;
  }

  size_t serverRegistrations() {
    auto session = server_->service().sessions().find(connection_->sessionId(), connection_->identity());
    return session.ok() ? (*session)->registeredMemories.size() : 0;
  }

  std::unique_ptr<emulator::EmulatorServer> server_;
  std::shared_ptr<Connection> connection_;
  std::shared_ptr<ProxyDevice> device_;
};

TEST_F(PoolTransportTest, SharedMemoryIsRegisteredOnceAndWrittenInPlace) {
  connect();
  auto prepared = prepare(addModel(1024));
  auto a = *hal::createSharedMemory(4096), b = *hal::createSharedMemory(4096), out = *hal::createSharedMemory(4096);
  ASSERT_FALSE(a->sharedName().empty());
  fill(a, 1, 1);
  fill(b, 100, 0);
  {
    const hal::Request request = requestOver(a, b, out);
    for (int round = 0; round < 3; ++round) {
      auto outcome = prepared->execute(request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
      ASSERT_TRUE(outcome.ok()) << outcome.error().message;
      const float* sum = reinterpret_cast<const float*>(out->data());
      EXPECT_EQ(sum[0], 101.0f + float(round));
      EXPECT_EQ(sum[999], 1100.0f + float(round));
      fill(a, float(round + 2), 1);  // the next execution sees the new contents, no re-registration
    }
  }
  EXPECT_EQ(connection_->pools().registeredCount(), 3u);
  EXPECT_EQ(serverRegistrations(), 3u);

  // Memories the client drops are unregistered with its next request.
  a.reset();
  auto fresh = *hal::createSharedMemory(4096);
  ASSERT_TRUE(prepared->execute(requestOver(fresh, b, out), hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  EXPECT_EQ(serverRegistrations(), 3u);
}

TEST_F(PoolTransportTest, RegisteredMemoryBelongsToItsSession) {
  connect();
  auto memory = *hal::createSharedMemory(64);
  wire::Memory encoded = *connection_->pools().encode(memory, true);
  ASSERT_EQ(encoded.kind_case(), wire::Memory::kRegisteredMemoryId);

  // A second client names the first one's registration: refused.
  auto other = Connection::connect(server_->address());
  ASSERT_TRUE(other.ok());
  wire::GetSupportedOperationsRequest query;
  query.set_session_id((*other)->sessionId());
  query.set_device_name(device_->getName());
  hal::Model model = addModel(16);
  model.pools.push_back(memory);
  *query.mutable_model() = *wire::toWire(model);
  *query.mutable_model()->mutable_pools(0) = encoded;
  wire::GetSupportedOperationsResponse response;
  grpc::ClientContext context;
  const grpc::Status status = (*other)->stub()->GetSupportedOperations(&context, query, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(wire::fromGrpcStatus(status).message,
              HasSubstr("does not name one of this session's registered memories"));

  // Names that are not this host's shared memory are refused clearly.
  wire::RegisterMemoryRequest bogus;
  bogus.set_session_id(connection_->sessionId());
  bogus.set_shm_name("/nnremote-does-not-exist");
  bogus.set_size(64);
  wire::RegisterMemoryResponse registered;
  grpc::ClientContext registerContext;
  const grpc::Status refused = connection_->stub()->RegisterMemory(&registerContext, bogus, &registered);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(wire::fromGrpcStatus(refused).message, HasSubstr("cannot open shared memory"));
}

TEST_F(PoolTransportTest, PassedDescriptorsAreTakenOnlyWhereTheServerHasASideChannel) {
  connect();
  auto memory = *hal::createSharedMemory(64);
  const auto registerMemory = [&](const std::string& name, uint64_t token) {
    wire::RegisterMemoryRequest request;
    request.set_session_id(connection_->sessionId());
    request.set_shm_name(name);
    request.set_passed_descriptor(token);
    request.set_size(64);
    wire::RegisterMemoryResponse response;
    grpc::ClientContext context;
    return wire::fromGrpcStatus(connection_->stub()->RegisterMemory(&context, request, &response));
  };
  const hal::Error both = registerMemory(memory->sharedName(), 1);
  EXPECT_EQ(both.code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(both.message, HasSubstr("names shm_name and passed_descriptor; one is enough"));
  const hal::Error noChannel = registerMemory("", 1);
  EXPECT_EQ(noChannel.code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(noChannel.message, HasSubstr("passed_descriptor: this server takes no descriptors"));
}

// A server with a side channel (as a backend host has), and a client that hands pools over it:
// they are registered by descriptor and written in place, and a pool without a name (unlinked)
// works the same.
TEST_F(PoolTransportTest, PoolsHandedOverByDescriptorAreWrittenInPlace) {
  auto inbox = std::make_shared<emulator::DescriptorInbox>();
  emulator::ServerOptions options = testing::plainLoopbackOptions();
  options.descriptors = inbox;
  auto server = emulator::EmulatorServer::start({sim::SimDevice::create(sim::edgeNpuConfig())}, "127.0.0.1:0", options);
  ASSERT_TRUE(server.ok()) << server.error().message;
  server_ = std::move(server).value();
  std::atomic<uint64_t> handedOver{0};
  ConnectionOptions connectionOptions;
  connectionOptions.passDescriptor = [&](int descriptor) -> hal::Result<uint64_t> {
    const uint64_t token = ++handedOver + 100;
    inbox->put(token, ::dup(descriptor));
    return token;
  };
  connect(connectionOptions);
  auto prepared = prepare(addModel(16));
  // Mapped by name then unlinked, as a server holds what a client registered.
  auto a = *hal::createSharedMemory(64), b = *hal::createSharedMemory(64), out = *hal::createSharedMemory(64);
  auto mappedA = *hal::mapSharedMemory(a->sharedName(), 64), mappedB = *hal::mapSharedMemory(b->sharedName(), 64),
       mappedOut = *hal::mapSharedMemory(out->sharedName(), 64);
  ASSERT_GE(mappedA->descriptor(), 0);
  EXPECT_EQ(a->descriptor(), -1);  // a pool's creator keeps no descriptor: it has the name
  fill(a, 1, 1);
  fill(b, 100, 0);
  a.reset();  // unlinks its name; the mapping and its descriptor live on
  for (int round = 0; round < 2; ++round) {
    auto outcome = prepared->execute(requestOver(mappedA, mappedB, mappedOut), hal::MeasureTiming::NO, std::nullopt,
                                     std::nullopt);
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    EXPECT_EQ(reinterpret_cast<const float*>(out->data())[15], 116.0f);  // 1 + 15 + 100
  }
  EXPECT_EQ(handedOver.load(), 3u) << "each pool handed over once, then registered";
  EXPECT_EQ(serverRegistrations(), 3u);
}

// A server that maps all the clients' shared memory it may refuses one more registration: that
// pool travels by value, and the next one is offered for registration again.
TEST_F(PoolTransportTest, APoolTheServerHasNoRoomToMapTravelsByValue) {
  emulator::SessionLimits limits;
  limits.sharedMemoryMappings = 2;
  auto server = emulator::EmulatorServer::start({sim::SimDevice::create(sim::edgeNpuConfig())}, "127.0.0.1:0",
                                                testing::plainLoopbackOptions(limits));
  ASSERT_TRUE(server.ok()) << server.error().message;
  server_ = std::move(server).value();
  connect();
  auto prepared = prepare(addModel(16));
  auto a = *hal::createSharedMemory(64), b = *hal::createSharedMemory(64), out = *hal::createSharedMemory(64);
  fill(a, 1, 1);
  fill(b, 100, 0);
  auto outcome = prepared->execute(requestOver(a, b, out), hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(reinterpret_cast<const float*>(out->data())[15], 116.0f);  // came back by value
  EXPECT_EQ(serverRegistrations(), 2u);

  // With room again (a is gone, and unregistered with the next request), pools are registered.
  a.reset();
  auto fresh = *hal::createSharedMemory(64);
  fill(fresh, 2, 1);
  outcome = prepared->execute(requestOver(fresh, b, out), hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(reinterpret_cast<const float*>(out->data())[15], 117.0f);
  EXPECT_EQ(serverRegistrations(), 2u);
  EXPECT_EQ(connection_->pools().registeredCount(), 2u) << "fresh took a's place";
}

TEST_F(PoolTransportTest, TensorsOf68MiBCrossTcpInBulkBothWays) {
  ConnectionOptions options;
  options.useSharedMemory = false;  // as a client on another host would
  connect(options);
#ifdef NNREMOTE_TSAN
  // 2 Mi floats = 8 MiB, still eight chunks each way. Each chunk is handed between gRPC's threads
  // inside libgrpc, where TSan cannot see it, so TSan processes a (suppressed) report for every
  // slice; at 68 MiB that takes minutes (16 s with reporting off).
  constexpr uint32_t kElements = 2u << 20;
#else
  constexpr uint32_t kElements = 17u << 20;  // 17 Mi floats = 68 MiB per tensor
#endif
  auto prepared = prepare(addModel(kElements));
  auto a = *hal::createHeapMemory(size_t{kElements} * 4), b = *hal::createHeapMemory(size_t{kElements} * 4),
       out = *hal::createHeapMemory(size_t{kElements} * 4);
  fill(a, 0.5f, 1);
  fill(b, 1000, 0);
  auto outcome = prepared->execute(requestOver(a, b, out), hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  const float* sum = reinterpret_cast<const float*>(out->data());
  EXPECT_EQ(sum[0], 1000.5f);
  EXPECT_EQ(sum[kElements - 1], 1000.5f + float((kElements - 1) % 1000));
  EXPECT_EQ(sum[kElements / 2], 1000.5f + float((kElements / 2) % 1000));
  auto session = server_->service().sessions().find(connection_->sessionId(), connection_->identity());
  ASSERT_TRUE(session.ok());
  EXPECT_EQ((*session)->uploads.size(), 0u) << "uploads are used up by the request";
  EXPECT_EQ((*session)->downloads.size(), 0u) << "downloads are fetched once";
}

TEST_F(PoolTransportTest, MalformedBulkTransfersAreRefused) {
  connect();
  // Chunks that skip bytes.
  grpc::ClientContext context;
  wire::BulkTransferHandle handle;
  auto writer = connection_->stub()->UploadBulk(&context, &handle);
  wire::BulkChunk chunk;
  chunk.set_session_id(connection_->sessionId());
  chunk.set_total_size(10);
  chunk.set_data("abc");
  writer->Write(chunk);
  chunk.set_offset(7);
  writer->Write(chunk);
  writer->WritesDone();
  const grpc::Status gap = writer->Finish();
  EXPECT_EQ(gap.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(wire::fromGrpcStatus(gap).message, HasSubstr("does not continue the 3 bytes received of 10"));

  // An upload that stops short.
  grpc::ClientContext shortContext;
  auto shortWriter = connection_->stub()->UploadBulk(&shortContext, &handle);
  chunk.set_offset(0);
  shortWriter->Write(chunk);
  shortWriter->WritesDone();
  EXPECT_THAT(wire::fromGrpcStatus(shortWriter->Finish()).message, HasSubstr("ended after 3 of 10 bytes"));

  // Absurd sizes.
  grpc::ClientContext hugeContext;
  auto hugeWriter = connection_->stub()->UploadBulk(&hugeContext, &handle);
  chunk.set_total_size(uint64_t{1} << 50);
  hugeWriter->Write(chunk);
  hugeWriter->WritesDone();
  EXPECT_EQ(hugeWriter->Finish().error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);

  // Unknown downloads.
  uint8_t buffer[4];
  auto missing = connection_->pools().download(12345, buffer, sizeof(buffer));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
}

}  // namespace
}  // namespace nnremote::proxy
