// The server over a real socket: malformed input gets a clear HAL error and costs nothing,
// sessions own what they create, and a client whose server is gone gets DEAD_OBJECT.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <thread>

#include "drivers/proxy/proxy_device.h"
#include "drivers/sim/sim_device.h"
#include "emulator/accelerator_service.h"
#include "emulator/emulator_server.h"
#include "hal/forwarding_device.h"
#include "hal/model_builder.h"
#include "hal/operand_types.h"
#include "testing/add_model.h"
#include "testing/proc_status.h"
#include "tests/common/raw_session.h"
#include "tests/common/scripted_device.h"
#include "tests/common/server_options.h"
#include "wire/conversions.h"
#include "wire/grpc_status.h"
#include "wire/wire_constants.h"

namespace nnremote::emulator {
namespace {

using ::testing::HasSubstr;
using hal::OperandType;
using hal::OperationType;

hal::Model addModel() { return testing::twoInputAddModel(); }

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = EmulatorServer::start(
        {sim::SimDevice::create(sim::edgeNpuConfig()), sim::SimDevice::create(sim::largeNpuConfig())},
        "127.0.0.1:0", testing::plainLoopbackOptions());
    ASSERT_TRUE(server.ok()) << server.error().message;
    server_ = std::move(server).value();
    channel_ = grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
    stub_ = wire::Accelerator::NewStub(channel_);
    waits_ = wire::AcceleratorWaits::NewStub(channel_);
  }

  uint64_t openSession() { return testing::openRawSession(*stub_); }

  wire::PrepareModelRequest prepareRequest(uint64_t session, const hal::Model& model) {
    wire::PrepareModelRequest request;
    request.set_session_id(session);
    request.set_device_name("nnremote-edge16");
    *request.mutable_model() = *wire::toWire(model);
    return request;
  }

  grpc::Status prepare(const wire::PrepareModelRequest& request, uint64_t* id = nullptr) {
    grpc::ClientContext context;
    wire::PrepareModelResponse response;
    grpc::Status status = stub_->PrepareModel(&context, request, &response);
    if (id) *id = response.prepared_model_id();
    return status;
  }

  // Runs the ADD model through the proxy driver as a brand-new client: proof the server is fine.
  void expectServesANewClient() {
    auto connection = proxy::Connection::connect(server_->address());
    ASSERT_TRUE(connection.ok()) << connection.error().message;
    auto devices = proxy::ProxyDevice::discover(*connection);
    ASSERT_TRUE(devices.ok());
    auto prepared = devices->front()->prepareModel(addModel(), hal::ExecutionPreference::LOW_POWER,
                                                   hal::Priority::LOW, std::nullopt, {}, {}, {});
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
  }

  bool eventuallyWatching(size_t sessions) {
    for (int i = 0; i < 500 && server_->service().sessionWatch().watching() != sessions; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return server_->service().sessionWatch().watching() == sessions;
  }

  std::unique_ptr<EmulatorServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<wire::Accelerator::Stub> stub_;
  std::unique_ptr<wire::AcceleratorWaits::Stub> waits_;
};

void expectHalInvalidArgument(const grpc::Status& status, const std::string& text) {
  // A session the server does not know is NOT_FOUND on the wire (a client's cue that nothing ran
  // and a new session is needed); every other refusal is INVALID_ARGUMENT.
  const bool unknownSession = text.find("is not an open session") != std::string::npos;
  EXPECT_EQ(status.error_code(), unknownSession ? grpc::StatusCode::NOT_FOUND : grpc::StatusCode::INVALID_ARGUMENT)
      << status.error_message();
  const hal::Error error = wire::fromGrpcStatus(status);
  EXPECT_EQ(error.code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(error.message, HasSubstr(text));
}

TEST_F(ServerTest, MalformedModelsGetInvalidArgumentNamingTheField) {
  const uint64_t session = openSession();

  expectHalInvalidArgument(prepare(prepareRequest(session + 1, addModel())), "is not an open session");

  auto unknownDevice = prepareRequest(session, addModel());
  unknownDevice.set_device_name("acme-nothing");
  expectHalInvalidArgument(prepare(unknownDevice), "device_name 'acme-nothing' is not served here");

  auto badIndex = prepareRequest(session, addModel());
  badIndex.mutable_model()->mutable_main()->mutable_operations(0)->set_inputs(1, 57);
  expectHalInvalidArgument(prepare(badIndex), "main.operations[0].inputs[1] = 57 is out of range");

  auto badLifetime = prepareRequest(session, addModel());
  badLifetime.mutable_model()->mutable_main()->mutable_operands(0)->set_lifetime(
      static_cast<wire::OperandLifeTime>(99));
  expectHalInvalidArgument(prepare(badLifetime), "main.operands[0].lifetime = 99");

  auto pointer = prepareRequest(session, addModel());
  pointer.mutable_model()->mutable_main()->mutable_operands(3)->set_lifetime(wire::POINTER);
  expectHalInvalidArgument(prepare(pointer), "POINTER cannot cross a process boundary");

  auto badPool = prepareRequest(session, addModel());
  auto* constant = badPool.mutable_model()->mutable_main()->mutable_operands(3);
  constant->set_lifetime(wire::CONSTANT_REFERENCE);
  constant->mutable_location()->set_pool_index(5);
  expectHalInvalidArgument(prepare(badPool), "main.operands[3].location.poolIndex = 5 is out of range");

  auto lyingPool = prepareRequest(session, addModel());
  auto* pool = lyingPool.mutable_model()->add_pools()->mutable_inline_data();
  pool->set_size(100);
  pool->set_data("short");
  expectHalInvalidArgument(prepare(lyingPool), "model.pools[0]");

  auto badPreference = prepareRequest(session, addModel());
  badPreference.set_preference(static_cast<wire::ExecutionPreference>(-3));
  expectHalInvalidArgument(prepare(badPreference), "preference = -3");

  auto badPriority = prepareRequest(session, addModel());
  badPriority.set_priority(static_cast<wire::Priority>(42));
  expectHalInvalidArgument(prepare(badPriority), "priority = 42");

  auto badToken = prepareRequest(session, addModel());
  badToken.set_cache_token("abc");
  expectHalInvalidArgument(prepare(badToken), "cache_token has 3 bytes");

  expectHalInvalidArgument(prepare(wire::PrepareModelRequest()), "is not an open session");
  wire::PrepareModelRequest empty;
  empty.set_session_id(session);
  empty.set_device_name("nnremote-edge16");
  expectHalInvalidArgument(prepare(empty), "main.operations is empty");

  expectServesANewClient();
}

// These crashed npu_emulator in getSupportedOperations and prepareModel: a CONV_2D with 8 inputs
// (DEPTHWISE_CONV_2D with 9) whose last is INT32 was taken for explicit padding and its kernel
// read operands past the end. The operation-signature table refuses them before any device sees
// them, and the server goes on serving.
TEST_F(ServerTest, InvalidOperationSignaturesAreRefusedBeforeAnyDeviceSeesThem) {
  const uint64_t session = openSession();
  for (const OperationType type : {OperationType::CONV_2D, OperationType::DEPTHWISE_CONV_2D}) {
    hal::ModelBuilder b;
    const uint32_t in = b.addInput(OperandType::TENSOR_FLOAT32, {1, 3, 3, 1});
    std::vector<uint32_t> inputs = {in, b.addConstant(OperandType::TENSOR_FLOAT32, {1, 2, 2, 1}, std::vector<float>(4, 1)),
                                    b.addConstant(OperandType::TENSOR_FLOAT32, {1}, std::vector<float>{0})};
    const int scalars = type == OperationType::CONV_2D ? 5 : 6;
    for (int i = 0; i < scalars; ++i) inputs.push_back(b.addInt32(1));
    b.addOperation(type, inputs, {b.addOutput(OperandType::TENSOR_FLOAT32, {1, 3, 3, 1})});
    const std::string rule = hal::toString(type) + ": input " + std::to_string(inputs.size() - 1);
    const auto request = prepareRequest(session, b.build());
    expectHalInvalidArgument(prepare(request), rule);
    grpc::ClientContext context;
    wire::GetSupportedOperationsRequest query;
    query.set_session_id(session);
    query.set_device_name(request.device_name());
    *query.mutable_model() = request.model();
    wire::GetSupportedOperationsResponse supported;
    expectHalInvalidArgument(stub_->GetSupportedOperations(&context, query, &supported), rule);
  }
  expectServesANewClient();
}

TEST_F(ServerTest, MalformedRequestsGetInvalidArgumentAndPreparedModelsAreSessionScoped) {
  const uint64_t session = openSession();
  uint64_t preparedId = 0;
  ASSERT_TRUE(prepare(prepareRequest(session, addModel()), &preparedId).ok());

  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({3, 4})}, {8});
  wire::ExecuteRequest good;
  good.set_session_id(session);
  good.set_prepared_model_id(preparedId);
  *good.mutable_request() = *wire::toWire(io->request);
  auto execute = [&](const wire::ExecuteRequest& request, wire::ExecuteResponse* response = nullptr) {
    grpc::ClientContext context;
    wire::ExecuteResponse ignored;
    return stub_->Execute(&context, request, response ? response : &ignored);
  };

  auto wrongDims = good;
  wrongDims.mutable_request()->mutable_inputs(0)->add_dimensions(3);
  expectHalInvalidArgument(execute(wrongDims), "request.inputs[0].dimensions[0] = 3 disagrees");

  auto badPool = good;
  badPool.mutable_request()->mutable_inputs(1)->mutable_location()->set_pool_index(40);
  expectHalInvalidArgument(execute(badPool), "request.inputs[1].location.poolIndex = 40");

  auto badMeasure = good;
  badMeasure.set_measure(static_cast<wire::MeasureTiming>(7));
  expectHalInvalidArgument(execute(badMeasure), "measure = 7");

  auto endlessDeadline = good;
  endlessDeadline.mutable_deadline()->set_nanoseconds_from_now(UINT64_MAX);
  expectHalInvalidArgument(execute(endlessDeadline), "deadline.nanoseconds_from_now = 18446744073709551615");

  auto unknownModel = good;
  unknownModel.set_prepared_model_id(preparedId + 1);
  expectHalInvalidArgument(execute(unknownModel), "does not name one of this session's prepared models");

  // Another session cannot use this session's prepared model.
  auto otherSession = good;
  otherSession.set_session_id(openSession());
  expectHalInvalidArgument(execute(otherSession), "does not name one of this session's prepared models");

  wire::ExecuteResponse response;
  ASSERT_TRUE(execute(good, &response).ok());
  ASSERT_EQ(response.outcome().output_data_size(), 1);
  std::vector<float> sum(2);
  std::memcpy(sum.data(), response.outcome().output_data(0).data(), 8);
  EXPECT_EQ(sum, (std::vector<float>{4, 6}));

  // Once released, the prepared model is gone.
  grpc::ClientContext releaseContext;
  wire::ReleasePreparedModelRequest release;
  release.set_session_id(session);
  release.set_prepared_model_id(preparedId);
  wire::Empty empty;
  ASSERT_TRUE(stub_->ReleasePreparedModel(&releaseContext, release, &empty).ok());
  expectHalInvalidArgument(execute(good), "does not name one of this session's prepared models");
}

TEST_F(ServerTest, SurvivesMutatedMessages) {
  const uint64_t session = openSession();
  const std::string valid = prepareRequest(session, addModel()).SerializeAsString();
  std::mt19937 rng(42);
  int answered = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string mutated = valid;
    for (int flips = 1 + rng() % 2; flips > 0; --flips) {
      mutated[rng() % mutated.size()] = static_cast<char>(rng() & 0xff);
    }
    wire::PrepareModelRequest request;
    if (!request.ParseFromString(mutated)) continue;  // the server would never see it
    const grpc::Status status = prepare(request);
    EXPECT_NE(status.error_code(), grpc::StatusCode::UNAVAILABLE) << "the server went away";
    if (!status.ok()) {
      EXPECT_FALSE(status.error_message().empty());
    }
    ++answered;
  }
  EXPECT_GT(answered, 300);
  expectServesANewClient();
}

std::vector<float> floatsOf(const wire::ExecuteResponse& response) {
  const std::string& bytes = response.outcome().output_data(0);
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

TEST_F(ServerTest, StartedExecutionsAreAwaitedInAnyOrder) {
  const uint64_t session = openSession();
  uint64_t preparedId = 0;
  ASSERT_TRUE(prepare(prepareRequest(session, addModel()), &preparedId).ok());
  std::vector<uint64_t> ids;
  for (float x : {1.0f, 2.0f, 3.0f}) {
    auto io = hal::makeRequest({hal::toBytes<float>({x, x}), hal::toBytes<float>({10, 20})}, {8});
    wire::ExecuteRequest request;
    request.set_session_id(session);
    request.set_prepared_model_id(preparedId);
    *request.mutable_request() = *wire::toWire(io->request);
    grpc::ClientContext context;
    wire::StartExecutionResponse started;
    ASSERT_TRUE(stub_->StartExecution(&context, request, &started).ok());
    ids.push_back(started.execution_id());
  }
  for (size_t i : {2u, 0u, 1u}) {
    grpc::ClientContext context;
    wire::AwaitExecutionRequest await;
    await.set_session_id(session);
    await.set_execution_id(ids[i]);
    wire::ExecuteResponse response;
    ASSERT_TRUE(waits_->AwaitExecution(&context, await, &response).ok());
    const float x = float(i + 1);
    EXPECT_EQ(floatsOf(response), (std::vector<float>{x + 10, x + 20}));
  }
  // Each is collected once.
  grpc::ClientContext again;
  wire::AwaitExecutionRequest await;
  await.set_session_id(session);
  await.set_execution_id(ids[0]);
  wire::ExecuteResponse response;
  expectHalInvalidArgument(waits_->AwaitExecution(&again, await, &response),
                           "does not name one of this session's started executions");
}

TEST_F(ServerTest, ReusableExecutionsComputeAgainWithUpdatedInlineInputs) {
  const uint64_t session = openSession();
  uint64_t preparedId = 0;
  ASSERT_TRUE(prepare(prepareRequest(session, addModel()), &preparedId).ok());
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
  wire::CreateReusableExecutionRequest create;
  create.set_session_id(session);
  create.set_prepared_model_id(preparedId);
  *create.mutable_request() = *wire::toWire(io->request);
  wire::CreateReusableExecutionResponse created;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->CreateReusableExecution(&context, create, &created).ok());
  }
  auto compute = [&](const wire::ComputeReusableExecutionRequest& request, wire::ExecuteResponse* response) {
    grpc::ClientContext context;
    return stub_->ComputeReusableExecution(&context, request, response);
  };
  wire::ComputeReusableExecutionRequest request;
  request.set_session_id(session);
  request.set_reusable_execution_id(created.reusable_execution_id());
  wire::ExecuteResponse first;
  ASSERT_TRUE(compute(request, &first).ok());
  EXPECT_EQ(floatsOf(first), (std::vector<float>{11, 22}));
  // Pool 0 holds the first input.
  const std::vector<uint8_t> newInput = hal::toBytes<float>({100, 200});
  (*request.mutable_updated_pools())[0] = std::string(newInput.begin(), newInput.end());
  wire::ExecuteResponse second;
  ASSERT_TRUE(compute(request, &second).ok());
  EXPECT_EQ(floatsOf(second), (std::vector<float>{110, 220}));

  auto wrongSize = request;
  (*wrongSize.mutable_updated_pools())[0] = "abc";
  wire::ExecuteResponse ignored;
  expectHalInvalidArgument(compute(wrongSize, &ignored), "updated_pools[0] has 3 bytes for a pool of 8");
  auto wrongPool = request;
  (*wrongPool.mutable_updated_pools())[7] = "abcd";
  expectHalInvalidArgument(compute(wrongPool, &ignored), "request.pools[7], which is not an inline pool");

  wire::ReleaseReusableExecutionRequest release;
  release.set_session_id(session);
  release.set_reusable_execution_id(created.reusable_execution_id());
  wire::Empty empty;
  grpc::ClientContext releaseContext;
  ASSERT_TRUE(stub_->ReleaseReusableExecution(&releaseContext, release, &empty).ok());
  expectHalInvalidArgument(compute(request, &ignored), "does not name one of this session's reusable executions");
}

TEST_F(ServerTest, MalformedCacheRequestsAreRefusedNamingTheField) {
  const uint64_t session = openSession();
  auto prepareFromCache = [&](const std::function<void(wire::PrepareModelFromCacheRequest&)>& change) {
    grpc::ClientContext context;
    wire::PrepareModelFromCacheRequest request;
    request.set_session_id(session);
    request.set_device_name("nnremote-edge16");
    for (auto* files : {request.mutable_model_cache(), request.mutable_data_cache()}) {
      wire::CacheFile* file = files->Add();
      file->set_fd_count(1);
      file->set_access(wire::CACHE_FILE_READ_WRITE);
      file->set_contents("not a cache");
    }
    request.set_cache_token(std::string(32, 'x'));
    change(request);
    wire::PrepareModelResponse response;
    return wire::fromGrpcStatus(stub_->PrepareModelFromCache(&context, request, &response));
  };
  struct Case {
    std::function<void(wire::PrepareModelFromCacheRequest&)> change;
    hal::ErrorStatus code;
    std::string field;
  };
  const std::vector<Case> cases = {
      {[](auto& r) { r.set_cache_token("short"); }, hal::ErrorStatus::INVALID_ARGUMENT, "cache_token has 5 bytes"},
      {[](auto& r) { r.mutable_model_cache(0)->set_fd_count(99); }, hal::ErrorStatus::INVALID_ARGUMENT,
       "model_cache[0].fd_count = 99"},
      {[](auto& r) { r.mutable_data_cache(0)->set_access(static_cast<wire::CacheFileAccess>(77)); },
       hal::ErrorStatus::INVALID_ARGUMENT, "data_cache[0].access = 77"},
      {[](auto& r) { r.mutable_data_cache(0)->set_withheld_size(3); }, hal::ErrorStatus::INVALID_ARGUMENT,
       "data_cache[0].withheld_size = 3"},
      {[](auto& r) { r.mutable_data_cache(0)->set_withheld_size(uint64_t{1} << 40); },
       hal::ErrorStatus::INVALID_ARGUMENT, "data_cache[0].withheld_size"},
      {[](auto& r) {
         for (int i = 0; i < 40; ++i) *r.add_model_cache() = r.model_cache(0);
       },
       hal::ErrorStatus::INVALID_ARGUMENT, "model_cache has 41 handles"},
      {[](auto&) {}, hal::ErrorStatus::GENERAL_FAILURE, "model_cache[0] is not a model cache"},
      {[](auto& r) { r.mutable_model_cache(0)->set_fd_count(0); }, hal::ErrorStatus::GENERAL_FAILURE,
       "model_cache[0] holds 0 file descriptors"},
      {[](auto& r) { r.mutable_model_cache(0)->set_access(wire::CACHE_FILE_WRITE_ONLY); },
       hal::ErrorStatus::GENERAL_FAILURE, "model_cache[0] is not open for reading"},
      {[](auto& r) { r.clear_data_cache(); }, hal::ErrorStatus::GENERAL_FAILURE, "data_cache has 0 handles"},
  };
  for (const Case& c : cases) {
    const hal::Error error = prepareFromCache(c.change);
    EXPECT_EQ(error.code, c.code) << error.message;
    EXPECT_THAT(error.message, HasSubstr(c.field));
  }
  expectServesANewClient();
}

TEST_F(ServerTest, ClosingOrLosingTheClientEndsItsSession) {
  {
    auto connection = proxy::Connection::connect(server_->address());
    ASSERT_TRUE(connection.ok());
    EXPECT_EQ(server_->service().sessions().size(), 1u);
  }
  EXPECT_EQ(server_->service().sessions().size(), 0u) << "closing the connection closes the session";

  // A client that dies without closing: only its WatchSessions stream breaks.
  const uint64_t session = openSession();
  auto watch = std::make_unique<grpc::ClientContext>();
  wire::WatchSessionsRequest request;
  request.add_add(session);
  auto watchStub = wire::SessionWatch::NewStub(channel_);
  auto stream = watchStub->WatchSessions(watch.get());
  ASSERT_TRUE(stream->Write(request));
  ASSERT_TRUE(eventuallyWatching(1));
  ASSERT_TRUE(prepare(prepareRequest(session, addModel())).ok());
  EXPECT_EQ(server_->service().sessions().size(), 1u);
  watch->TryCancel();
  (void)stream->Finish();
  for (int i = 0; i < 500 && server_->service().sessions().size() != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(server_->service().sessions().size(), 0u);
  expectHalInvalidArgument(prepare(prepareRequest(session, addModel())), "is not an open session");
}

// A client may close its session while an execution it started still runs. The execution
// then ends after the session, and gives its place in the session's quota of executions in
// flight back to a count that must outlive the session: it was the session's own member, and a
// write to freed memory (found by session_fuzzer; ASan, which CI runs this under, sees it).
TEST(SessionLifetimeTest, AnExecutionStillRunningWhenItsSessionClosesEndsSafely) {
  auto gate = std::make_shared<testing::ExecutionGate>();
  testing::DeviceScript script;
  script.gate = gate;
  auto server = EmulatorServer::start(
      {std::make_shared<testing::ScriptedDevice>(sim::SimDevice::create(sim::edgeNpuConfig()), script)}, "127.0.0.1:0",
      testing::plainLoopbackOptions());
  ASSERT_TRUE(server.ok()) << server.error().message;
  auto channel = grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials());
  auto stub = wire::Accelerator::NewStub(channel);
  const uint64_t session = testing::openRawSession(*stub);

  wire::PrepareModelRequest prepare;
  prepare.set_session_id(session);
  prepare.set_device_name("nnremote-edge16");
  *prepare.mutable_model() = *wire::toWire(addModel());
  wire::PrepareModelResponse prepared;
  grpc::ClientContext prepareContext;
  ASSERT_TRUE(stub->PrepareModel(&prepareContext, prepare, &prepared).ok());

  gate->close();
  wire::ExecuteRequest start;
  start.set_session_id(session);
  start.set_prepared_model_id(prepared.prepared_model_id());
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
  *start.mutable_request() = *wire::toWire(io->request);
  wire::StartExecutionResponse started;
  grpc::ClientContext startContext;
  ASSERT_TRUE(stub->StartExecution(&startContext, start, &started).ok());
  ASSERT_TRUE(gate->awaitArrival()) << "the execution never reached the device";

  wire::CloseSessionRequest close;
  close.set_session_id(session);
  wire::Empty closed;
  grpc::ClientContext closeContext;
  ASSERT_TRUE(stub->CloseSession(&closeContext, close, &closed).ok());
  EXPECT_EQ((*server)->service().sessions().size(), 0u);

  gate->open();  // the execution ends now, after its session
  const uint64_t next = testing::openRawSession(*stub);
  prepare.set_session_id(next);
  grpc::ClientContext againContext;
  EXPECT_TRUE(stub->PrepareModel(&againContext, prepare, &prepared).ok()) << "the server serves on";
  server->reset();  // waits for the pool's tasks, so the ended execution's last step has run
}

// A backend's answer whose output shapes break the HAL's rules is that device's failure for the
// client, by every executor, and the server serves on; an answer with no shapes, which the HAL
// allows, reaches the client as it is.
TEST(DeviceAnswerTest, BrokenOutputShapesAreTheDevicesFailureAndNoShapesPassThrough) {
  auto scripted = [](const char* name, testing::DeviceScript::Shapes shapes) {
    testing::DeviceScript script;
    script.name = name;
    script.shapesOnSuccess = shapes;
    return std::make_shared<testing::ScriptedDevice>(sim::SimDevice::create(sim::edgeNpuConfig()), script);
  };
  auto server = EmulatorServer::start({scripted("broken-shapes", testing::DeviceScript::Shapes::kFirstInsufficient),
                                       scripted("no-shapes", testing::DeviceScript::Shapes::kNone)},
                                      "127.0.0.1:0", testing::plainLoopbackOptions());
  ASSERT_TRUE(server.ok()) << server.error().message;
  auto connection = proxy::Connection::connect((*server)->address());
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  auto devices = proxy::ProxyDevice::discover(*connection);
  ASSERT_TRUE(devices.ok() && devices->size() == 2u);
  auto prepare = [&](size_t device) {
    return (*devices)[device]->prepareModel(addModel(), hal::ExecutionPreference::LOW_POWER, hal::Priority::LOW,
                                            std::nullopt, {}, {}, {});
  };
  auto broken = prepare(0);
  ASSERT_TRUE(broken.ok()) << broken.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
  auto expectDevicesFailure = [](const hal::Result<hal::ExecutionOutcome>& outcome, const char* executor) {
    ASSERT_FALSE(outcome.ok()) << executor;
    EXPECT_EQ(outcome.error().code, hal::ErrorStatus::GENERAL_FAILURE) << executor;
    EXPECT_THAT(outcome.error().message, HasSubstr("the device answered success with output 0 marked insufficient"))
        << executor;
  };
  expectDevicesFailure((*broken)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt), "sync");
  auto burst = (*broken)->configureExecutionBurst();
  ASSERT_TRUE(burst.ok());
  for (int i = 0; i < 2; ++i) {  // the second rides the shared-memory queue
    expectDevicesFailure((*burst)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt), "burst");
  }
  auto reusable = (*broken)->createReusableExecution(io->request, hal::MeasureTiming::NO, std::nullopt);
  ASSERT_TRUE(reusable.ok());
  expectDevicesFailure((*reusable)->compute(std::nullopt), "reusable");
  auto fenced =
      (*broken)->executeFenced(io->request, {}, hal::MeasureTiming::NO, std::nullopt, std::nullopt, std::nullopt);
  ASSERT_TRUE(fenced.ok()) << fenced.error().message;
  EXPECT_EQ(fenced->first.wait(std::chrono::seconds(30)), hal::SyncFence::State::ERROR) << "fenced";
  auto fencedInfo = fenced->second();
  ASSERT_FALSE(fencedInfo.ok());
  EXPECT_THAT(fencedInfo.error().message, HasSubstr("the device answered success with output 0 marked insufficient"));

  // The server's own fence for it fails too, so that what waits for it on the server does not run.
  auto stub = wire::Accelerator::NewStub(grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials()));
  const uint64_t session = testing::openRawSession(*stub);
  wire::ExecuteFencedRequest fencedRaw;
  fencedRaw.set_session_id(session);
  fencedRaw.set_prepared_model_id(testing::prepareRaw(*stub, session, "broken-shapes", *wire::toWire(addModel())));
  *fencedRaw.mutable_request() = *wire::toWire(io->request);
  wire::ExecuteFencedResponse fencedResponse;
  grpc::ClientContext fencedContext;
  ASSERT_TRUE(stub->ExecuteFenced(&fencedContext, fencedRaw, &fencedResponse).ok());
  auto waits =
      wire::AcceleratorWaits::NewStub(grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials()));
  wire::WaitFenceRequest wait;
  wait.set_session_id(session);
  wait.set_fence_id(fencedResponse.sync_fence_id());
  wire::WaitFenceResponse waited;
  for (int i = 0; i < 3 && waited.state() == wire::WaitFenceResponse::ACTIVE; ++i) {  // 10 s a call
    grpc::ClientContext waitContext;
    ASSERT_TRUE(waits->WaitFence(&waitContext, wait, &waited).ok());
  }
  EXPECT_EQ(waited.state(), wire::WaitFenceResponse::ERROR);

  auto none = prepare(1);
  ASSERT_TRUE(none.ok()) << none.error().message;
  auto outcome = (*none)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_TRUE(outcome->outputShapes.empty());
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
}

// A server's device that needs more cache files than the HAL allows is refused by the client,
// as Android's runtime refuses such a driver: a compilation would open that many files.
TEST(DeviceAnswerTest, ADeviceNeedingMoreCacheFilesThanTheHalAllowsIsRefusedByTheClient) {
  class ManyCacheFiles final : public hal::ForwardingDevice {
   public:
    using ForwardingDevice::ForwardingDevice;
    std::pair<uint32_t, uint32_t> getNumberOfCacheFilesNeeded() const override {
      return {1, hal::kMaxNumberOfCacheFiles + 1};
    }
  };
  auto server = EmulatorServer::start({std::make_shared<ManyCacheFiles>(sim::SimDevice::create(sim::edgeNpuConfig()))},
                                      "127.0.0.1:0", testing::plainLoopbackOptions());
  ASSERT_TRUE(server.ok()) << server.error().message;
  auto connection = proxy::Connection::connect((*server)->address());
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  auto devices = proxy::ProxyDevice::discover(*connection);
  ASSERT_FALSE(devices.ok());
  EXPECT_EQ(devices.error().code, hal::ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(devices.error().message, HasSubstr("the server's device nnremote-edge16 needs 1 model and 33 data cache "
                                                 "files; a device needs at most 32 of each"));
}

// A fence the client created and then released unsignaled can never be signaled: it ends in
// error, and so does the fenced execution waiting on it. Before, that execution (its request,
// its prepared model) stayed on the server for good, kept alive by a reference cycle between the
// fence and its waiter (found by session_fuzzer's leak check).
TEST_F(ServerTest, AFencedExecutionWaitingOnAFenceItsClientReleasedEndsInError) {
  const uint64_t session = openSession();
  uint64_t prepared = 0;
  ASSERT_TRUE(prepare(prepareRequest(session, addModel()), &prepared).ok());
  wire::CreateFenceRequest create;
  create.set_session_id(session);
  wire::CreateFenceResponse fence;
  grpc::ClientContext createContext;
  ASSERT_TRUE(stub_->CreateFence(&createContext, create, &fence).ok());

  wire::ExecuteFencedRequest fenced;
  fenced.set_session_id(session);
  fenced.set_prepared_model_id(prepared);
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
  *fenced.mutable_request() = *wire::toWire(io->request);
  fenced.add_wait_for_fence_ids(fence.fence_id());
  wire::ExecuteFencedResponse started;
  grpc::ClientContext fencedContext;
  ASSERT_TRUE(stub_->ExecuteFenced(&fencedContext, fenced, &started).ok());

  wire::ReleaseFencesRequest release;
  release.set_session_id(session);
  release.add_fence_ids(fence.fence_id());
  wire::Empty released;
  grpc::ClientContext releaseContext;
  ASSERT_TRUE(stub_->ReleaseFences(&releaseContext, release, &released).ok());

  wire::WaitFenceRequest wait;
  wait.set_session_id(session);
  wait.set_fence_id(started.sync_fence_id());
  wait.mutable_timeout()->set_nanoseconds(std::chrono::nanoseconds(std::chrono::seconds(10)).count());
  wire::WaitFenceResponse state;
  grpc::ClientContext waitContext;
  ASSERT_TRUE(waits_->WaitFence(&waitContext, wait, &state).ok());
  EXPECT_EQ(state.state(), wire::WaitFenceResponse::ERROR) << "the execution still waits for a fence nobody can signal";
  EXPECT_EQ(server_->service().sessions().size(), 1u);
}

// The threads of this process, from /proc.
int threadCount() { return static_cast<int>(testing::procStatusNumber("/proc/self/status", "Threads")); }

TEST_F(ServerTest, IdleSessionsHoldNoServerThread) {
  constexpr int kSessions = 200;
  auto watchStub = wire::SessionWatch::NewStub(channel_);
  // A stream per session, as separate client processes would hold.
  struct Watch {
    std::unique_ptr<grpc::ClientContext> context = std::make_unique<grpc::ClientContext>();
    std::unique_ptr<grpc::ClientReaderWriter<wire::WatchSessionsRequest, wire::SessionEvent>> reader;
  };
  const int before = threadCount();
  std::vector<Watch> watches(kSessions);
  for (auto& watch : watches) {
    wire::WatchSessionsRequest request;
    request.add_add(openSession());
    watch.reader = watchStub->WatchSessions(watch.context.get());
    ASSERT_TRUE(watch.reader->Write(request));
  }
  for (int i = 0; i < 500 && server_->service().sessionWatch().watching() < kSessions; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(server_->service().sessionWatch().watching(), static_cast<size_t>(kSessions));
  // The synchronous API would hold one server thread per open stream.
  EXPECT_LT(threadCount() - before, kSessions / 10) << "threads before: " << before;
  for (auto& watch : watches) watch.context->TryCancel();
  for (auto& watch : watches) (void)watch.reader->Finish();
  for (int i = 0; i < 500 && server_->service().sessions().size() != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(server_->service().sessions().size(), 0u) << "a cancelled watch ends its session";
  expectServesANewClient();
}

TEST_F(ServerTest, OneWatchSessionsStreamWatchesManySessionsAndEndsThemWhenCancelled) {
  auto watchStub = wire::SessionWatch::NewStub(channel_);
  const uint64_t a = openSession(), b = openSession(), c = openSession();
  grpc::ClientContext context;
  auto stream = watchStub->WatchSessions(&context);
  wire::WatchSessionsRequest add;
  for (const uint64_t id : {a, b, c, uint64_t{12345}}) add.add_add(id);
  ASSERT_TRUE(stream->Write(add));
  // The id that names no session of ours is answered at once: not watched.
  wire::SessionEvent event;
  ASSERT_TRUE(stream->Read(&event));
  EXPECT_EQ(event.session_id(), 12345u);
  ASSERT_TRUE(eventuallyWatching(3));

  // A session closed by its owner is reported and no longer watched; the others stay.
  grpc::ClientContext closeContext;
  wire::CloseSessionRequest close;
  close.set_session_id(b);
  wire::Empty empty;
  ASSERT_TRUE(stub_->CloseSession(&closeContext, close, &empty).ok());
  ASSERT_TRUE(stream->Read(&event));
  EXPECT_EQ(event.session_id(), b);
  EXPECT_EQ(server_->service().sessions().size(), 2u);

  // Removing one stops watching it without ending it.
  wire::WatchSessionsRequest remove;
  remove.add_remove(c);
  ASSERT_TRUE(stream->Write(remove));
  ASSERT_TRUE(eventuallyWatching(1));

  // The client goes away: the sessions it still watched end, the removed one does not.
  context.TryCancel();
  (void)stream->Finish();
  for (int i = 0; i < 500 && server_->service().sessions().size() != 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(server_->service().sessions().size(), 1u);
  expectHalInvalidArgument(prepare(prepareRequest(a, addModel())), "is not an open session");
  EXPECT_TRUE(prepare(prepareRequest(c, addModel())).ok());
  expectServesANewClient();
}

TEST_F(ServerTest, ClientsOfAGoneServerGetDeadObjectPromptly) {
  // Without reconnecting, at once; with it, once the server has not come back in time.
  for (const bool reconnect : {false, true}) {
    SCOPED_TRACE(reconnect ? "reconnect on" : "reconnect off");
    if (server_ == nullptr) SetUp();
    proxy::ConnectionOptions options;
    options.reconnect = reconnect;
    options.reconnectTimeout = std::chrono::milliseconds(300);
    auto connection = proxy::Connection::connect(server_->address(), options);
    ASSERT_TRUE(connection.ok());
    auto devices = proxy::ProxyDevice::discover(*connection);
    auto prepared = devices->front()->prepareModel(addModel(), hal::ExecutionPreference::LOW_POWER,
                                                   hal::Priority::LOW, std::nullopt, {}, {}, {});
    ASSERT_TRUE(prepared.ok());
    server_.reset();  // the server goes away

    const auto start = std::chrono::steady_clock::now();
    auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({3, 4})}, {8});
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    ASSERT_FALSE(outcome.ok());
    EXPECT_EQ(outcome.error().code, hal::ErrorStatus::DEAD_OBJECT);
    auto supported = devices->front()->getSupportedOperations(addModel());
    ASSERT_FALSE(supported.ok());
    EXPECT_EQ(supported.error().code, hal::ErrorStatus::DEAD_OBJECT);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
    if (reconnect) {
      EXPECT_THAT(supported.error().message, HasSubstr("did not come back within 300 ms"));
    }
  }
}

TEST(ConnectionTest, NoServerMeansDeadObject) {
  proxy::ConnectionOptions options;
  options.connectTimeout = std::chrono::milliseconds(300);
  auto connection = proxy::Connection::connect("unix-abstract:nnremote-nobody-listens", options);
  ASSERT_FALSE(connection.ok());
  EXPECT_EQ(connection.error().code, hal::ErrorStatus::DEAD_OBJECT);
}

TEST(ConnectionTest, WrongWireVersionIsRefused) {
  auto server = EmulatorServer::start({sim::SimDevice::create(sim::edgeNpuConfig())}, "127.0.0.1:0", testing::plainLoopbackOptions());
  ASSERT_TRUE(server.ok());
  auto stub = wire::Accelerator::NewStub(
      grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  wire::OpenSessionRequest request;
  request.set_client_version(wire::kWireVersion + 1);
  wire::OpenSessionResponse response;
  expectHalInvalidArgument(stub->OpenSession(&context, request, &response), "client_version");
}

}  // namespace
}  // namespace nnremote::emulator
