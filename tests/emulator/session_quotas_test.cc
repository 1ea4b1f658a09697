// Session quotas and the server config that sets them: every limit refuses with the right
// RESOURCE_EXHAUSTED status and a message naming the limit and its value, before allocating,
// and only for the session that is over it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <grpcpp/generic/generic_stub.h>

#include <future>
#include <thread>

#include "drivers/proxy/proxy_device.h"
#include "emulator/accelerator_service.h"
#include "emulator/emulator_server.h"
#include "emulator/server_config.h"
#include "emulator/simulated_npus.h"
#include "hal/memory.h"
#include "hal/model_builder.h"
#include "testing/add_model.h"
#include "testing/proc_status.h"
#include "tests/common/raw_session.h"
#include "tests/common/server_options.h"
#include "tests/middleware/qos_stack.h"
#include "wire/conversions.h"
#include "wire/grpc_status.h"
#include "wire/nnremote.grpc.pb.h"

namespace nnremote::emulator {
namespace {

using hal::ErrorStatus;
using hal::OperandType;
using hal::OperationType;
using ::testing::HasSubstr;

hal::Model addModel() { return testing::twoInputAddModel(); }

void expectExhausted(const hal::Error& error, ErrorStatus code, const std::string& limit) {
  EXPECT_EQ(error.code, code) << error.message;
  EXPECT_THAT(error.message, HasSubstr(limit));
}

// Uploads `size` zero bytes in one chunk; the transfer's id in *id.
grpc::Status uploadBulk(wire::Accelerator::Stub& stub, uint64_t session, uint64_t size, uint64_t* id) {
  grpc::ClientContext context;
  wire::BulkTransferHandle handle;
  auto writer = stub.UploadBulk(&context, &handle);
  wire::BulkChunk chunk;
  chunk.set_session_id(session);
  chunk.set_total_size(size);
  chunk.set_data(std::string(size, '\0'));
  writer->Write(chunk);
  writer->WritesDone();
  const grpc::Status status = writer->Finish();
  *id = handle.bulk_transfer_id();
  return status;
}

grpc::Status registerShared(wire::Accelerator::Stub& stub, uint64_t session, const hal::SharedMemory& memory,
                            uint64_t* id) {
  return testing::registerRawMemory(stub, session, memory, id);
}

grpc::Status unregisterShared(wire::Accelerator::Stub& stub, uint64_t session, uint64_t id) {
  grpc::ClientContext context;
  wire::UnregisterMemoryRequest request;
  request.set_session_id(session);
  request.set_memory_id(id);
  wire::Empty empty;
  return stub.UnregisterMemory(&context, request, &empty);
}

// Prepares `model` on the server's first device for `session`; the prepared model's id in *id.
grpc::Status prepareWire(wire::Accelerator::Stub& stub, uint64_t session, const wire::Model& model, uint64_t* id) {
  grpc::ClientContext listContext;
  wire::ListDevicesResponse devices;
  EXPECT_TRUE(stub.ListDevices(&listContext, wire::ListDevicesRequest(), &devices).ok());
  grpc::ClientContext context;
  wire::PrepareModelRequest request;
  request.set_session_id(session);
  request.set_device_name(devices.devices(0).name());
  *request.mutable_model() = model;
  wire::PrepareModelResponse response;
  const grpc::Status status = stub.PrepareModel(&context, request, &response);
  *id = response.prepared_model_id();
  return status;
}

uint64_t prepareRaw(wire::Accelerator::Stub& stub, uint64_t session, const hal::Model& model) {
  uint64_t id = 0;
  const grpc::Status status = prepareWire(stub, session, *wire::toWire(model), &id);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return id;
}

// A request for a two-input, one-output model over `bytes`-byte operands: the inputs in pool 0
// (`inputs`), the output in an inline pool 1 of its own.
wire::Request twoInOneOut(uint64_t bytes, const wire::Memory& inputs) {
  wire::Request request;
  *request.add_pools()->mutable_memory() = inputs;
  request.add_pools()->mutable_memory()->mutable_inline_data()->set_size(bytes);
  for (uint64_t i = 0; i < 2; ++i) {
    wire::DataLocation* location = request.add_inputs()->mutable_location();
    location->set_offset(i * bytes);
    location->set_length(bytes);
  }
  wire::DataLocation* output = request.add_outputs()->mutable_location();
  output->set_pool_index(1);
  output->set_length(bytes);
  return request;
}

grpc::Status execute(wire::Accelerator::Stub& stub, uint64_t session, uint64_t prepared, const wire::Request& request,
                     wire::ExecuteResponse* response) {
  grpc::ClientContext context;
  wire::ExecuteRequest call;
  call.set_session_id(session);
  call.set_prepared_model_id(prepared);
  *call.mutable_request() = request;
  return stub.Execute(&context, call, response);
}

// A server of the simulated edge NPU under the ServerConfig `config`, and a stub for it.
struct ConfiguredServer {
  explicit ConfiguredServer(const std::string& config) {
    auto limits = parseServerConfig(config, "test config");
    EXPECT_TRUE(limits.ok()) << limits.error().message;
    if (!limits.ok()) return;
    auto started = EmulatorServer::start({createSimulatedNpu(sim::edgeNpuConfig())}, "127.0.0.1:0",
                                         testing::plainLoopbackOptions(limits->session));
    EXPECT_TRUE(started.ok()) << started.error().message;
    if (!started.ok()) return;
    server = std::move(started).value();
    stub = wire::Accelerator::NewStub(grpc::CreateChannel(server->address(), grpc::InsecureChannelCredentials()));
  }
  std::unique_ptr<EmulatorServer> server;
  std::unique_ptr<wire::Accelerator::Stub> stub;
};

class SessionQuotasTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto limits = parseServerConfig(R"(
        session_quotas { prepared_models: 2 registered_memory_mib: 1 device_buffers: 1 fences: 2 bursts: 1 })",
                                    "test config");
    ASSERT_TRUE(limits.ok()) << limits.error().message;
    auto server = EmulatorServer::start({createSimulatedNpu(sim::edgeNpuConfig())}, "127.0.0.1:0",
                                        testing::plainLoopbackOptions(limits->session));
    ASSERT_TRUE(server.ok()) << server.error().message;
    server_ = std::move(server).value();
    stub_ = wire::Accelerator::NewStub(grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials()));
  }

  std::shared_ptr<proxy::ProxyDevice> newClient() {
    auto connection = proxy::Connection::connect(server_->address());
    EXPECT_TRUE(connection.ok());
    auto devices = proxy::ProxyDevice::discover(*connection);
    EXPECT_TRUE(devices.ok());
    return devices->front();
  }

  hal::Result<hal::SharedPreparedModel> prepare(const std::shared_ptr<proxy::ProxyDevice>& device) {
    return device->prepareModel(addModel(), hal::ExecutionPreference::LOW_POWER, hal::Priority::LOW, std::nullopt, {},
                                {}, {});
  }

  uint64_t openSession() { return testing::openRawSession(*stub_); }

  // Shared memory of 768 KiB, most of the 1 MiB quota, and 512 KiB more that does not fit beside it.
  struct Pools {
    hal::SharedMemory big, more;
  };
  static Pools bigAndMore() {
    auto big = hal::createSharedMemory(768 << 10);
    auto more = hal::createSharedMemory(512 << 10);
    EXPECT_TRUE(big.ok() && more.ok());
    return {big.ok() ? *big : nullptr, more.ok() ? *more : nullptr};
  }
  // A new session with `memory` registered (its id in *id; 0 if that failed).
  uint64_t sessionHolding(const hal::SharedMemory& memory, uint64_t* id) {
    const uint64_t session = openSession();
    *id = 0;
    if (memory != nullptr) {
      EXPECT_TRUE(registerShared(*stub_, session, memory, id).ok());
    }
    return session;
  }

  std::unique_ptr<EmulatorServer> server_;
  std::unique_ptr<wire::Accelerator::Stub> stub_;
};

TEST_F(SessionQuotasTest, PreparedModelsPastTheLimitAreRefusedPersistently) {
  auto client = newClient();
  auto first = prepare(client);
  ASSERT_TRUE(first.ok());
  auto second = prepare(client);  // held: a released prepared model no longer counts
  ASSERT_TRUE(second.ok());
  auto third = prepare(client);
  ASSERT_FALSE(third.ok());
  expectExhausted(third.error(), ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT, "session_quotas.prepared_models = 2");
  // Another client has its own quota; releasing one frees a place.
  EXPECT_TRUE(prepare(newClient()).ok());
  first->reset();
  EXPECT_TRUE(prepare(client).ok());
}

TEST_F(SessionQuotasTest, RegisteredMemoryPastTheLimitIsRefusedBeforeMapping) {
  const Pools pools = bigAndMore();
  uint64_t bigId = 0, moreId = 0;
  const uint64_t session = sessionHolding(pools.big, &bigId);
  ASSERT_NE(bigId, 0u);
  auto registerMore = [&] { return registerShared(*stub_, session, pools.more, &moreId); };
  const grpc::Status refused = registerMore();
  ASSERT_FALSE(refused.ok());
  expectExhausted(wire::fromGrpcStatus(refused), ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT,
                  "session_quotas.registered_memory_mib = 1");
  // A bulk upload must fit beside what is registered.
  {
    grpc::ClientContext context;
    wire::BulkTransferHandle handle;
    auto writer = stub_->UploadBulk(&context, &handle);
    wire::BulkChunk chunk;
    chunk.set_session_id(session);
    chunk.set_total_size(512 << 10);
    writer->Write(chunk);
    writer->WritesDone();
    const grpc::Status upload = writer->Finish();
    ASSERT_FALSE(upload.ok());
    expectExhausted(wire::fromGrpcStatus(upload), ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT,
                    "session_quotas.registered_memory_mib = 1");
  }
  ASSERT_TRUE(unregisterShared(*stub_, session, bigId).ok());
  EXPECT_TRUE(registerMore().ok());
}

TEST_F(SessionQuotasTest, BulkUploadsCountAgainstTheByteQuotaUntilACallUsesThem) {
  const uint64_t session = openSession();
  uint64_t first = 0, second = 0;
  ASSERT_TRUE(uploadBulk(*stub_, session, 768 << 10, &first).ok());
  // An upload nobody has used yet is held on the server: a second one does not fit beside it.
  const grpc::Status refused = uploadBulk(*stub_, session, 512 << 10, &second);
  ASSERT_FALSE(refused.ok());
  expectExhausted(wire::fromGrpcStatus(refused), ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT,
                  "session_quotas.registered_memory_mib = 1");
  EXPECT_THAT(refused.error_message(), HasSubstr("an upload of 524288 bytes"));
  EXPECT_THAT(refused.error_message(), HasSubstr("from 786432 bytes"));

  // An execution that takes its inputs from the upload uses it up, and lets go of it when done.
  const uint64_t prepared = prepareRaw(*stub_, session, addModel());
  wire::Memory uploaded;
  uploaded.set_bulk_transfer_id(first);
  wire::ExecuteResponse response;
  const grpc::Status executed = execute(*stub_, session, prepared, twoInOneOut(8, uploaded), &response);
  ASSERT_TRUE(executed.ok()) << executed.error_message();
  EXPECT_EQ(response.outcome().output_data(0), std::string(8, '\0'));  // 0 + 0
  const grpc::Status fits = uploadBulk(*stub_, session, 512 << 10, &second);
  EXPECT_TRUE(fits.ok()) << fits.error_message();
}

TEST_F(SessionQuotasTest, UnregisteredMemoryStillInUseCountsUntilLetGo) {
  const Pools pools = bigAndMore();
  uint64_t bigId = 0, moreId = 0;
  const uint64_t session = sessionHolding(pools.big, &bigId);
  ASSERT_NE(bigId, 0u);
  auto registerMore = [&] { return registerShared(*stub_, session, pools.more, &moreId); };
  // A reusable execution reads its inputs from the registered memory, which is then unregistered.
  const uint64_t prepared = prepareRaw(*stub_, session, addModel());
  wire::Memory registered;
  registered.set_registered_memory_id(bigId);
  wire::CreateReusableExecutionRequest create;
  create.set_session_id(session);
  create.set_prepared_model_id(prepared);
  *create.mutable_request() = twoInOneOut(8, registered);
  wire::CreateReusableExecutionResponse reusable;
  {
    grpc::ClientContext context;
    const grpc::Status status = stub_->CreateReusableExecution(&context, create, &reusable);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  ASSERT_TRUE(unregisterShared(*stub_, session, bigId).ok());
  // The server keeps it mapped for the execution, so it still counts.
  const grpc::Status refused = registerMore();
  ASSERT_FALSE(refused.ok());
  expectExhausted(wire::fromGrpcStatus(refused), ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT,
                  "session_quotas.registered_memory_mib = 1");
  {
    grpc::ClientContext context;
    wire::ReleaseReusableExecutionRequest release;
    release.set_session_id(session);
    release.set_reusable_execution_id(reusable.reusable_execution_id());
    wire::Empty empty;
    ASSERT_TRUE(stub_->ReleaseReusableExecution(&context, release, &empty).ok());
  }
  const grpc::Status fits = registerMore();
  EXPECT_TRUE(fits.ok()) << fits.error_message();
}

// However small, each registered memory costs the server a mapping and a descriptor, so their
// number is limited too, counted like their bytes: until the server unmaps them.
TEST(SessionMemoryCountTest, RegisteredMemoriesPastTheLimitAreRefusedUntilOneIsUnmapped) {
  ConfiguredServer configured("session_quotas { registered_memories: 2 }");
  ASSERT_NE(configured.server, nullptr);
  wire::Accelerator::Stub& stub = *configured.stub;
  auto memory = hal::createSharedMemory(16);
  ASSERT_TRUE(memory.ok());
  const uint64_t session = testing::openRawSession(stub);
  uint64_t first = 0, second = 0, third = 0;
  ASSERT_TRUE(registerShared(stub, session, *memory, &first).ok());
  ASSERT_TRUE(registerShared(stub, session, *memory, &second).ok());  // the same pages again: one more mapping
  auto expectRefused = [&] {
    const grpc::Status refused = registerShared(stub, session, *memory, &third);
    ASSERT_FALSE(refused.ok());
    expectExhausted(
        wire::fromGrpcStatus(refused), ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT,
        "this session has 2 registered memories mapped, its limit (session_quotas.registered_memories = 2)");
  };
  expectRefused();
  // Another session has its own count.
  uint64_t other = 0;
  EXPECT_TRUE(registerShared(stub, testing::openRawSession(stub), *memory, &other).ok());

  // A reusable execution keeps the second mapped after it is unregistered: it still counts.
  const uint64_t prepared = prepareRaw(stub, session, addModel());
  wire::Memory registered;
  registered.set_registered_memory_id(second);
  wire::CreateReusableExecutionRequest create;
  create.set_session_id(session);
  create.set_prepared_model_id(prepared);
  *create.mutable_request() = twoInOneOut(8, registered);
  wire::CreateReusableExecutionResponse reusable;
  {
    grpc::ClientContext context;
    const grpc::Status status = stub.CreateReusableExecution(&context, create, &reusable);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  ASSERT_TRUE(unregisterShared(stub, session, second).ok());
  expectRefused();
  {
    grpc::ClientContext context;
    wire::ReleaseReusableExecutionRequest release;
    release.set_session_id(session);
    release.set_reusable_execution_id(reusable.reusable_execution_id());
    wire::Empty empty;
    ASSERT_TRUE(stub.ReleaseReusableExecution(&context, release, &empty).ok());
  }
  const grpc::Status fits = registerShared(stub, session, *memory, &third);
  EXPECT_TRUE(fits.ok()) << fits.error_message();
  expectRefused();  // first and third
  ASSERT_TRUE(unregisterShared(stub, session, first).ok());
  EXPECT_TRUE(registerShared(stub, session, *memory, &first).ok());
}

TEST(SessionByteQuotaTest, OutputsWaitingForDownloadCountAgainstTheByteQuota) {
  ConfiguredServer configured("session_quotas { registered_memory_mib: 16 }");
  ASSERT_NE(configured.server, nullptr);
  wire::Accelerator::Stub* stub = configured.stub.get();
  const uint64_t session = testing::openRawSession(*stub);

  // out = a + b over just more floats than travel inside an answer (4 MiB): the output waits for
  // DownloadBulk, and its 4 MiB pool is held until then. Each call's inline pools (12 MiB) count
  // while it runs.
  constexpr uint32_t kElements = (4u << 20) / 4 + 1;
  constexpr uint64_t kBytes = uint64_t{kElements} * 4;
  hal::ModelBuilder builder;
  const uint32_t a = builder.addInput(OperandType::TENSOR_FLOAT32, {kElements});
  const uint32_t b = builder.addInput(OperandType::TENSOR_FLOAT32, {kElements});
  const uint32_t out = builder.addOutput(OperandType::TENSOR_FLOAT32, {kElements});
  builder.addOperation(OperationType::ADD, {a, b, builder.addInt32(0)}, {out});
  const uint64_t prepared = prepareRaw(*stub, session, builder.build());
  wire::Memory zeros;
  zeros.mutable_inline_data()->set_size(2 * kBytes);  // the server fills it with zeros
  const wire::Request request = twoInOneOut(kBytes, zeros);

  wire::ExecuteResponse first;
  const grpc::Status kept = execute(*stub, session, prepared, request, &first);
  ASSERT_TRUE(kept.ok()) << kept.error_message();
  ASSERT_EQ(first.outcome().output_bulk_transfer_ids().count(0), 1u);
  // Beside the waiting output, a second call's pools would take the session past 16 MiB: it is
  // refused before it runs, naming the limit, and leaves nothing behind.
  wire::ExecuteResponse second;
  const grpc::Status refused = execute(*stub, session, prepared, request, &second);
  ASSERT_FALSE(refused.ok());
  expectExhausted(wire::fromGrpcStatus(refused), ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT,
                  "session_quotas.registered_memory_mib = 16");
  EXPECT_THAT(refused.error_message(), HasSubstr("an inline pool of " + std::to_string(kBytes) + " bytes"));
  EXPECT_THAT(refused.error_message(), HasSubstr("request.pools[1]"));
  auto holdings = configured.server->service().sessions().holdings(session);
  ASSERT_TRUE(holdings.ok());
  EXPECT_EQ(holdings->downloads, 1u);
  EXPECT_EQ(holdings->heldBytes, kBytes);

  // Fetching the first output lets go of it; then the next execution's output fits.
  {
    grpc::ClientContext context;
    wire::BulkTransferHandle handle;
    handle.set_session_id(session);
    handle.set_bulk_transfer_id(first.outcome().output_bulk_transfer_ids().at(0));
    auto reader = stub->DownloadBulk(&context, handle);
    wire::BulkChunk chunk;
    uint64_t received = 0;
    while (reader->Read(&chunk)) received += chunk.data().size();
    ASSERT_TRUE(reader->Finish().ok());
    EXPECT_EQ(received, kBytes);
  }
  wire::ExecuteResponse third;
  const grpc::Status fits = execute(*stub, session, prepared, request, &third);
  EXPECT_TRUE(fits.ok()) << fits.error_message();
}

TEST(SessionKeptExecutionsTest, ExecutionsKeptForTheClientPastTheLimitAreRefusedUntilCollected) {
  ConfiguredServer configured("session_quotas { kept_executions: 2 }");
  ASSERT_NE(configured.server, nullptr);
  wire::Accelerator::Stub* stub = configured.stub.get();
  auto waits = wire::AcceleratorWaits::NewStub(
      grpc::CreateChannel(configured.server->address(), grpc::InsecureChannelCredentials()));
  const uint64_t session = testing::openRawSession(*stub);
  const uint64_t prepared = prepareRaw(*stub, session, addModel());
  wire::Memory inputs;
  inputs.mutable_inline_data()->set_size(16);
  wire::ExecuteRequest call;
  call.set_session_id(session);
  call.set_prepared_model_id(prepared);
  *call.mutable_request() = twoInOneOut(8, inputs);

  // A started execution nobody awaits and a fenced one whose outcome nobody asks for, its fence
  // released at once: each stays on the server until collected.
  wire::StartExecutionResponse started;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub->StartExecution(&context, call, &started).ok());
  }
  {
    grpc::ClientContext context;
    wire::ExecuteFencedRequest fenced;
    fenced.set_session_id(session);
    fenced.set_prepared_model_id(prepared);
    *fenced.mutable_request() = call.request();
    wire::ExecuteFencedResponse response;
    ASSERT_TRUE(stub->ExecuteFenced(&context, fenced, &response).ok());
    grpc::ClientContext releaseContext;
    wire::ReleaseFencesRequest release;
    release.set_session_id(session);
    release.add_fence_ids(response.sync_fence_id());
    wire::Empty empty;
    ASSERT_TRUE(stub->ReleaseFences(&releaseContext, release, &empty).ok());
  }
  // Before, these could pile up without bound; now each kind is refused, naming the limit.
  {
    grpc::ClientContext context;
    wire::StartExecutionResponse response;
    const grpc::Status refused = stub->StartExecution(&context, call, &response);
    ASSERT_FALSE(refused.ok());
    expectExhausted(wire::fromGrpcStatus(refused), ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT,
                    "session_quotas.kept_executions = 2");
  }
  wire::CreateReusableExecutionRequest create;
  create.set_session_id(session);
  create.set_prepared_model_id(prepared);
  *create.mutable_request() = call.request();
  {
    grpc::ClientContext context;
    wire::CreateReusableExecutionResponse response;
    const grpc::Status refused = stub->CreateReusableExecution(&context, create, &response);
    ASSERT_FALSE(refused.ok());
    expectExhausted(wire::fromGrpcStatus(refused), ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT,
                    "session_quotas.kept_executions = 2");
  }
  // Awaiting the started execution collects it: a place is free again.
  {
    grpc::ClientContext context;
    wire::AwaitExecutionRequest await;
    await.set_session_id(session);
    await.set_execution_id(started.execution_id());
    wire::ExecuteResponse response;
    const grpc::Status awaited = waits->AwaitExecution(&context, await, &response);
    ASSERT_TRUE(awaited.ok()) << awaited.error_message();
  }
  grpc::ClientContext context;
  wire::CreateReusableExecutionResponse reusable;
  const grpc::Status fits = stub->CreateReusableExecution(&context, create, &reusable);
  EXPECT_TRUE(fits.ok()) << fits.error_message();
}

// The pools of one request or model are held one by one as the server decodes them, so those
// that each fit but together never could must not be told to retry by the budget their own
// first pools filled.
TEST(ServerPoolMemoryTest, PoolsOfOneCallThatTogetherCouldNeverFitArePersistent) {
  ConfiguredServer configured("pool_memory_mib: 1");
  ASSERT_NE(configured.server, nullptr);
  wire::Accelerator::Stub* stub = configured.stub.get();
  const uint64_t session = testing::openRawSession(*stub);
  const uint64_t prepared = prepareRaw(*stub, session, addModel());
  wire::Memory largeInline;
  largeInline.mutable_inline_data()->set_size(768 << 10);
  wire::ExecuteResponse response;
  const grpc::Status request = execute(*stub, session, prepared, twoInOneOut(768 << 10, largeInline), &response);
  ASSERT_FALSE(request.ok());
  expectExhausted(wire::fromGrpcStatus(request), ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT, "pool_memory_mib = 1");
  EXPECT_THAT(request.error_message(), HasSubstr("the request's inline pools and uploads together take 1572864 bytes"));

  wire::Model twoPools = *wire::toWire(addModel());
  *twoPools.add_pools() = largeInline;
  *twoPools.add_pools() = largeInline;
  uint64_t unprepared = 0;
  const grpc::Status model = prepareWire(*stub, session, twoPools, &unprepared);
  ASSERT_FALSE(model.ok());
  expectExhausted(wire::fromGrpcStatus(model), ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT, "pool_memory_mib = 1");
  EXPECT_THAT(model.error_message(), HasSubstr("the model's inline pools and uploads together take 1572864 bytes"));

  // An upload the session holds counts with the inline pools of the request that uses it.
  uint64_t upload = 0;
  ASSERT_TRUE(uploadBulk(*stub, session, 768 << 10, &upload).ok());
  wire::Memory uploaded;
  uploaded.set_bulk_transfer_id(upload);
  const grpc::Status withUpload = execute(*stub, session, prepared, twoInOneOut(384 << 10, uploaded), &response);
  ASSERT_FALSE(withUpload.ok());
  expectExhausted(wire::fromGrpcStatus(withUpload), ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT, "pool_memory_mib = 1");
  EXPECT_THAT(withUpload.error_message(), HasSubstr("together take 1179648 bytes"));
  // What fits together passes: the upload with a small output pool.
  const grpc::Status fits = execute(*stub, session, prepared, twoInOneOut(8, uploaded), &response);
  EXPECT_TRUE(fits.ok()) << fits.error_message();

  // An upload named by two pools counts once: the request is malformed (an upload serves one
  // use), not too large.
  ASSERT_TRUE(uploadBulk(*stub, session, 768 << 10, &upload).ok());
  uploaded.set_bulk_transfer_id(upload);
  wire::Request twice = twoInOneOut(8, uploaded);
  *twice.mutable_pools(1)->mutable_memory() = uploaded;
  const grpc::Status namedTwice = execute(*stub, session, prepared, twice, &response);
  ASSERT_FALSE(namedTwice.ok());
  EXPECT_EQ(wire::fromGrpcStatus(namedTwice).code, ErrorStatus::INVALID_ARGUMENT) << namedTwice.error_message();
  EXPECT_THAT(namedTwice.error_message(), HasSubstr("bulk_transfer_id " + std::to_string(upload)));
}

TEST(ServerPoolMemoryTest, ClientsTogetherCannotHaveTheServerAllocateMoreThanItsPoolMemory) {
  ConfiguredServer configured("pool_memory_mib: 1");
  ASSERT_NE(configured.server, nullptr);
  wire::Accelerator::Stub* stub = configured.stub.get();
  const uint64_t first = testing::openRawSession(*stub), second = testing::openRawSession(*stub);

  uint64_t held = 0, other = 0;
  ASSERT_TRUE(uploadBulk(*stub, first, 768 << 10, &held).ok());
  // Another session, within its own quota, finds the server's pool memory taken: transient,
  // since it clears when the first lets go.
  const grpc::Status busy = uploadBulk(*stub, second, 512 << 10, &other);
  ASSERT_FALSE(busy.ok());
  expectExhausted(wire::fromGrpcStatus(busy), ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT, "pool_memory_mib = 1");
  EXPECT_THAT(busy.error_message(), HasSubstr("this server's clients together"));
  // One larger than all of it can never fit: persistent.
  const grpc::Status never = uploadBulk(*stub, second, 2 << 20, &other);
  ASSERT_FALSE(never.ok());
  expectExhausted(wire::fromGrpcStatus(never), ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT, "pool_memory_mib = 1");
  // Inline pools count the same: a request whose pools the server would have to allocate.
  const uint64_t prepared = prepareRaw(*stub, second, addModel());
  wire::Memory inlinePool;
  inlinePool.mutable_inline_data()->set_size(512 << 10);
  wire::ExecuteResponse response;
  const grpc::Status inlineBusy = execute(*stub, second, prepared, twoInOneOut(8, inlinePool), &response);
  ASSERT_FALSE(inlineBusy.ok());
  expectExhausted(wire::fromGrpcStatus(inlineBusy), ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT, "pool_memory_mib = 1");
  // Shared memory a client registers is its own, not the server's: it does not count here.
  auto shared = hal::createSharedMemory(512 << 10);
  ASSERT_TRUE(shared.ok());
  uint64_t registered = 0;
  const grpc::Status registering = registerShared(*stub, second, *shared, &registered);
  EXPECT_TRUE(registering.ok()) << registering.error_message();
  // The first session's execution uses its upload up; then the second's request fits.
  wire::Memory uploaded;
  uploaded.set_bulk_transfer_id(held);
  const uint64_t firstPrepared = prepareRaw(*stub, first, addModel());
  const grpc::Status used = execute(*stub, first, firstPrepared, twoInOneOut(8, uploaded), &response);
  ASSERT_TRUE(used.ok()) << used.error_message();
  const grpc::Status fits = execute(*stub, second, prepared, twoInOneOut(8, inlinePool), &response);
  EXPECT_TRUE(fits.ok()) << fits.error_message();
}

TEST_F(SessionQuotasTest, FencesDeviceBuffersAndBurstsPastTheLimitAreRefused) {
  const uint64_t session = openSession();
  auto createFence = [&] {
    grpc::ClientContext context;
    wire::CreateFenceRequest request;
    request.set_session_id(session);
    wire::CreateFenceResponse response;
    return stub_->CreateFence(&context, request, &response);
  };
  ASSERT_TRUE(createFence().ok());
  ASSERT_TRUE(createFence().ok());
  const grpc::Status fence = createFence();
  ASSERT_FALSE(fence.ok());
  expectExhausted(wire::fromGrpcStatus(fence), ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT, "session_quotas.fences = 2");

  auto client = newClient();
  auto prepared = prepare(client);
  ASSERT_TRUE(prepared.ok());
  auto held = client->allocate({}, {*prepared}, {{0, 0, 1.0f}}, {});
  ASSERT_TRUE(held.ok());
  auto buffer = client->allocate({}, {*prepared}, {{0, 0, 1.0f}}, {});
  ASSERT_FALSE(buffer.ok());
  expectExhausted(buffer.error(), ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT, "session_quotas.device_buffers = 1");

  auto burst = (*prepared)->configureExecutionBurst();
  ASSERT_TRUE(burst.ok());
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({3, 4})}, {8});
  ASSERT_TRUE((*burst)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  hal::Result<hal::ExecutionOutcome> second = hal::makeError(ErrorStatus::GENERAL_FAILURE) << "not opened";
  if (auto another = (*prepared)->configureExecutionBurst(); another.ok()) {
    second = (*another)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  } else {
    second = another.error();
  }
  ASSERT_FALSE(second.ok());
  expectExhausted(second.error(), ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT, "session_quotas.bursts = 1");
}

TEST(SessionQuotaInFlightTest, ExecutionsInFlightPastTheLimitAreRefusedTransiently) {
  testing::QosStackOptions options;
  options.paced = true;  // on a clock that stands still, the first execution stays in flight
  options.limits.session.executionsInFlight = 1;
  testing::QosStack stack = testing::makeQosStack(testing::Path::THROUGH_PROXY, options);
  auto pending = std::async(std::launch::async, [&] {
    return stack.device->prepareModel(addModel(), hal::ExecutionPreference::LOW_POWER, hal::Priority::LOW, std::nullopt,
                                      {}, {}, {});
  });
  for (int i = 0; i < 10000 && pending.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready; ++i) {
    stack.time->advance(std::chrono::seconds(1));
  }
  auto prepared = pending.get();
  ASSERT_TRUE(prepared.ok());
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({3, 4})}, {8});
  auto first = std::async(std::launch::async, [&] {
    return (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  });
  for (int i = 0; i < 5000 && stack.scheduler->snapshot().size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_NE(first.wait_for(std::chrono::milliseconds(0)), std::future_status::ready)
      << "the first execution must still be in flight";
  auto io2 = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({3, 4})}, {8});
  auto second = (*prepared)->execute(io2->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(second.ok());
  expectExhausted(second.error(), ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT, "session_quotas.executions_in_flight = 1");
  stack.time->advance(std::chrono::hours(1));
  EXPECT_TRUE(first.get().ok());
  // The slot is free again: the next execution is admitted (and returns once the clock moves).
  auto third = std::async(std::launch::async, [&] {
    return (*prepared)->execute(io2->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  });
  for (int i = 0; i < 10000 && third.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready; ++i) {
    stack.time->advance(std::chrono::seconds(1));
  }
  EXPECT_TRUE(third.get().ok());
}

TEST(ServerConfigTest, ParsesLimitsAndRefusesZeroOrUnknownFields) {
  auto limits = parseServerConfig(R"(
      session_quotas { prepared_models: 3 registered_memory_mib: 2 executions_in_flight: 9 }
      scheduling { queue_depth: 7 priority_aging_ms: 50 })",
                                  "config.textproto");
  ASSERT_TRUE(limits.ok()) << limits.error().message;
  EXPECT_EQ(limits->session.preparedModels, 3u);
  EXPECT_EQ(limits->session.registeredMemoryBytes, uint64_t{2} << 20);
  EXPECT_EQ(limits->session.executionsInFlight, 9u);
  EXPECT_EQ(limits->session.bursts, SessionLimits().bursts);  // unset: the default
  EXPECT_EQ(limits->session.keptExecutions, 4096u);
  EXPECT_EQ(limits->scheduling.queueDepth, 7u);
  EXPECT_EQ(limits->scheduling.priorityAgingStep, std::chrono::milliseconds(50));

  auto zero = parseServerConfig("session_quotas { bursts: 0 }", "config.textproto");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().code, ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(zero.error().message, HasSubstr("config.textproto: session_quotas.bursts = 0"));
  auto zeroDepth = parseServerConfig("scheduling { queue_depth: 0 }", "c");
  ASSERT_FALSE(zeroDepth.ok());
  EXPECT_THAT(zeroDepth.error().message, HasSubstr("scheduling.queue_depth = 0"));
  // 2^44 MiB is 2^64 bytes: it wrapped around to none, and every client was refused.
  for (const std::string field : {"pool_memory_mib", "message_memory_mib", "session_quotas { registered_memory_mib",
                                  "backend_isolation { address_space_mib"}) {
    const bool nested = field.find('{') != std::string::npos;
    auto huge = parseServerConfig(field + ": 17592186044416" + (nested ? " }" : ""), "c");
    ASSERT_FALSE(huge.ok()) << field;
    EXPECT_THAT(huge.error().message, HasSubstr(" = 17592186044416 is more than any machine has; give at most "
                                                "1073741824 (1 PiB)"));
  }
  auto mostMib = parseServerConfig("pool_memory_mib: 1073741824", "c");
  ASSERT_TRUE(mostMib.ok()) << mostMib.error().message;
  EXPECT_EQ(mostMib->session.serverPoolMemoryBytes, uint64_t{1} << 50);
  auto unknown = parseServerConfig("session_quotas { tensors: 3 }", "c");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.error().message, HasSubstr("not a valid ServerConfig"));
  // Where and why, in the error itself (not in a separate libprotobuf log line).
  EXPECT_THAT(unknown.error().message,
              HasSubstr("c: line 1, column 25: Message type \"nnremote.emulator.SessionQuotas\" has no field named "
                        "\"tensors\""));
  EXPECT_FALSE(loadServerConfig("/nonexistent/server.textproto").ok());

  auto pools = parseServerConfig("pool_memory_mib: 64", "c");
  ASSERT_TRUE(pools.ok()) << pools.error().message;
  EXPECT_EQ(pools->session.serverPoolMemoryBytes, uint64_t{64} << 20);
  EXPECT_EQ(limits->session.serverPoolMemoryBytes, defaultServerPoolMemoryBytes());  // unset
  EXPECT_GT(defaultServerPoolMemoryBytes(), uint64_t{0});
  auto sessions = parseServerConfig("sessions_per_identity: 8", "c");
  ASSERT_TRUE(sessions.ok()) << sessions.error().message;
  EXPECT_EQ(sessions->session.sessionsPerIdentity, 8u);
  EXPECT_EQ(limits->session.sessionsPerIdentity, 16384u);  // unset
  auto noPools = parseServerConfig("pool_memory_mib: 0", "c");
  ASSERT_FALSE(noPools.ok());
  EXPECT_THAT(noPools.error().message, HasSubstr("pool_memory_mib = 0"));
  auto messages = parseServerConfig("message_memory_mib: 32", "c");
  ASSERT_TRUE(messages.ok()) << messages.error().message;
  EXPECT_EQ(messages->session.messageMemoryBytes, uint64_t{32} << 20);
  EXPECT_EQ(limits->session.messageMemoryBytes, uint64_t{1} << 30);  // unset
  auto noMessages = parseServerConfig("message_memory_mib: 0", "c");
  ASSERT_FALSE(noMessages.ok());
  EXPECT_THAT(noMessages.error().message, HasSubstr("message_memory_mib = 0"));
  auto mappings = parseServerConfig("session_quotas { registered_memories: 5 } shared_memory_mappings: 7", "c");
  ASSERT_TRUE(mappings.ok()) << mappings.error().message;
  EXPECT_EQ(mappings->session.registeredMemories, 5u);
  EXPECT_EQ(mappings->session.sharedMemoryMappings, 7u);
  EXPECT_EQ(limits->session.registeredMemories, 4096u);                            // unset
  EXPECT_EQ(limits->session.sharedMemoryMappings, defaultSharedMemoryMappings());  // unset
  auto noMappings = parseServerConfig("shared_memory_mappings: 0", "c");
  ASSERT_FALSE(noMappings.ok());
  EXPECT_THAT(noMappings.error().message, HasSubstr("shared_memory_mappings = 0"));
  auto connections = parseServerConfig("connection_handshake_ms: 250 connection_idle_ms: 9000", "c");
  ASSERT_TRUE(connections.ok()) << connections.error().message;
  EXPECT_EQ(connections->session.connectionHandshake, std::chrono::milliseconds(250));
  EXPECT_EQ(connections->session.connectionIdle, std::chrono::milliseconds(9000));
  EXPECT_EQ(limits->session.connectionHandshake, std::chrono::seconds(20));  // unset
  EXPECT_EQ(limits->session.connectionIdle, std::chrono::minutes(5));        // unset
  auto noHandshake = parseServerConfig("connection_handshake_ms: 0", "c");
  ASSERT_FALSE(noHandshake.ok());
  EXPECT_THAT(noHandshake.error().message,
              HasSubstr("connection_handshake_ms = 0 would close every connection before it spoke"));
  auto noIdle = parseServerConfig("connection_idle_ms: 0", "c");
  ASSERT_FALSE(noIdle.ok());
  EXPECT_THAT(noIdle.error().message, HasSubstr("connection_idle_ms = 0 would close every connection between"));
}

// The most memory this process has had resident (VmHWM), in bytes.
uint64_t peakResidentBytes() {
  const long kib = testing::procStatusNumber("/proc/self/status", "VmHWM");
  EXPECT_GE(kib, 0) << "no VmHWM in /proc/self/status";
  return kib < 0 ? 0 : static_cast<uint64_t>(kib) << 10;
}

// gRPC takes a message in whole before it checks the message's size, so only its resource quota
// (message_memory_mib) keeps one client's huge message out of the server's memory: the call is
// cancelled instead of taken in, and the server goes on serving.
TEST(MessageMemoryTest, AMessageLargerThanTheServersMessageMemoryIsCancelledNotTakenIn) {
  ConfiguredServer configured("message_memory_mib: 32");
  ASSERT_NE(configured.server, nullptr);
  constexpr size_t kHuge = size_t{256} << 20;
  const std::string payload(kHuge, '\x0a');
  const uint64_t before = peakResidentBytes();
  // Sent from the payload in place (a static slice): the client holds no copy.
  grpc::Slice slice(payload.data(), payload.size(), grpc::Slice::STATIC_SLICE);
  grpc::ByteBuffer request(&slice, 1), response;
  grpc::GenericStub generic(grpc::CreateChannel(configured.server->address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
  std::promise<grpc::Status> answered;
  generic.UnaryCall(&context, "/nnremote.wire.Accelerator/PrepareModel", grpc::StubOptions(), &request, &response,
                    [&](grpc::Status status) { answered.set_value(std::move(status)); });
  const grpc::Status status = answered.get_future().get();  // bounded by the deadline
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
  const uint64_t grown = peakResidentBytes() - before;
  EXPECT_LT(grown, kHuge / 2) << "the process grew by " << (grown >> 20) << " MiB for a " << (kHuge >> 20)
                              << " MiB message";
  // Other calls are served as before.
  const uint64_t session = testing::openRawSession(*configured.stub);
  EXPECT_NE(prepareRaw(*configured.stub, session, testing::twoInputAddModel()), 0u);
}

}  // namespace
}  // namespace nnremote::emulator
