// The RPC scaffold and each RPC family on its own, without gRPC: a family's handlers are plain
// functions of a session and a request, so their checks and answers are tested by calling them.
// What the scaffold adds (identity, session lookup, status conversion, where a call runs) is
// tested through a real server everywhere else (security_test, server_robustness_test, ...).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "drivers/sim/npu_config.h"
#include "emulator/accelerator_service.h"
#include "emulator/buffer_rpcs.h"
#include "emulator/fence_rpcs.h"
#include "emulator/model_rpcs.h"
#include "emulator/rpc_scaffold.h"
#include "emulator/session_rpcs.h"
#include "emulator/simulated_npus.h"
#include "emulator/wait_rpcs.h"
#include "google/protobuf/descriptor.h"
#include "testing/add_model.h"
#include "wire/conversions.h"
#include "wire/nnremote.grpc.pb.h"
#include "wire/wire_constants.h"

namespace nnremote::emulator {
namespace {

using ::testing::HasSubstr;

const google::protobuf::ServiceDescriptor& acceleratorDescriptor() {
  return *google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(wire::Accelerator::service_full_name());
}

// Every unary method of `service` has exactly one entry in `table`, and nothing else has one.
void expectEveryUnaryMethodServedOnce(const RpcTable& table, const std::string& service) {
  const google::protobuf::ServiceDescriptor& descriptor =
      *google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(service);
  std::multiset<std::string> served;
  for (const RpcEntry& entry : table.entries()) served.insert(entry.method);
  size_t unary = 0;
  for (int i = 0; i < descriptor.method_count(); ++i) {
    const google::protobuf::MethodDescriptor* method = descriptor.method(i);
    const size_t expected = method->client_streaming() || method->server_streaming() ? 0 : 1;
    unary += expected;
    EXPECT_EQ(served.count(method->name()), expected) << method->name();
  }
  EXPECT_EQ(served.size(), unary);
}

TEST(RpcTableTest, TheServiceServesEveryUnaryMethodOnce) {
  AcceleratorService service({}, SessionLimits{}, ClientAccess{}, std::make_unique<Authenticator>(TokenTable{}, nullptr));
  expectEveryUnaryMethodServedOnce(service.rpcs(), wire::Accelerator::service_full_name());  // not the bulk streams
}

TEST(RpcTableTest, TheWaitsTableServesEveryUnaryMethodOfItsServiceOnce) {
  RpcTable table;
  addWaitRpcs(table);
  expectEveryUnaryMethodServedOnce(table, wire::AcceleratorWaits::service_full_name());  // not Burst
}

TEST(RpcTableDeathTest, AMethodTheServiceLacksStopsTheServerAtStart) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the service has threads
  AcceleratorService service({}, SessionLimits{}, ClientAccess{}, std::make_unique<Authenticator>(TokenTable{}, nullptr));
  RpcTable table;
  table.add("PrepareModels", Runs::kNow, &createFence);
  EXPECT_DEATH(serveRpcTable(table, service.rpcServices(), acceleratorDescriptor(),
                             [](int, grpc::internal::MethodHandler*) {}),
               "PrepareModels is not a method of nnremote.wire.Accelerator");
}

TEST(RpcTableDeathTest, AHandlerOfTheWrongTypesStopsTheServerAtStart) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the service has threads
  AcceleratorService service({}, SessionLimits{}, ClientAccess{}, std::make_unique<Authenticator>(TokenTable{}, nullptr));
  RpcTable table;
  table.add("SignalFence", Runs::kNow, &createFence);
  EXPECT_DEATH(serveRpcTable(table, service.rpcServices(), acceleratorDescriptor(),
                             [](int, grpc::internal::MethodHandler*) {}),
               "SignalFence takes nnremote.wire.CreateFenceRequest");
}

class FamilyTest : public ::testing::Test {
 protected:
  FamilyTest() : sessions_(limits()), session_(*sessions_.open("alice", "rpc_families_test")) {}
  static SessionLimits limits() {
    SessionLimits limits;
    limits.fences = 2;
    return limits;
  }
  SessionRegistry sessions_;
  std::shared_ptr<Session> session_;
};

TEST_F(FamilyTest, FencesAreCreatedSignaledAndReleasedWithinTheirQuota) {
  auto first = createFence(*session_, {});
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(checkHolds(*session_, kHoldsFence).ok());
  ASSERT_TRUE(createFence(*session_, {}).ok());
  // The scaffold checks this before CreateFence's handler runs (the server's refusal itself is
  // session_quotas_test's).
  const hal::Status full = checkHolds(*session_, kHoldsFence);
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().code, hal::ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT);
  EXPECT_THAT(full.error().message, HasSubstr("session_quotas.fences"));

  wire::SignalFenceRequest signal;
  signal.set_fence_id(first->fence_id());
  signal.set_release(true);
  ASSERT_TRUE(signalFence(*session_, signal).ok());
  EXPECT_EQ(session_->fences.size(), 1u);
  auto again = signalFence(*session_, signal);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(again.error().message, HasSubstr("fence_id"));
}

TEST_F(FamilyTest, WaitFenceWaitsForTheSessionsFenceAtMostTenSeconds) {
  auto created = createFence(*session_, {});
  ASSERT_TRUE(created.ok()) << created.error().message;
  wire::WaitFenceRequest wait;
  wait.set_fence_id(created->fence_id());
  wait.mutable_timeout()->set_nanoseconds(2'000'000'000);
  const auto before = hal::Clock::now();
  auto awaited = waitFence(*session_, wait);
  ASSERT_TRUE(awaited.ok()) << awaited.error().message;
  ASSERT_TRUE(awaited->deadline.has_value());
  EXPECT_GE(*awaited->deadline - before, std::chrono::seconds(2));
  EXPECT_LT(*awaited->deadline - before, std::chrono::seconds(3));
  EXPECT_EQ(awaited->fence.state(), hal::SyncFence::State::ACTIVE);
  EXPECT_EQ(awaited->answer(hal::SyncFence::State::SIGNALED)->state(), wire::WaitFenceResponse::SIGNALED);
  EXPECT_EQ(awaited->answer(hal::SyncFence::State::ACTIVE)->state(), wire::WaitFenceResponse::ACTIVE);

  wait.mutable_timeout()->set_nanoseconds(60'000'000'000);  // a client asks again after 10 s
  awaited = waitFence(*session_, wait);
  ASSERT_TRUE(awaited.ok());
  EXPECT_LE(*awaited->deadline - hal::Clock::now(), std::chrono::seconds(10));

  wait.set_fence_id(created->fence_id() + 1);
  auto unknown = waitFence(*session_, wait);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(unknown.error().message, HasSubstr("fence_id"));
}

TEST_F(FamilyTest, OnlyAStartedOrFencedExecutionOfTheSessionIsWaitedFor) {
  wire::AwaitExecutionRequest await;
  await.set_execution_id(42);
  auto started = awaitExecution(*session_, await);
  ASSERT_FALSE(started.ok());
  EXPECT_THAT(started.error().message, HasSubstr("execution_id"));
  wire::GetExecuteFencedInfoRequest info;
  info.set_execution_id(42);
  auto fenced = getExecuteFencedInfo(*session_, info);
  ASSERT_FALSE(fenced.ok());
  EXPECT_THAT(fenced.error().message, HasSubstr("execution_id"));
}

class DeviceFamilyTest : public FamilyTest {
 protected:
  DeviceFamilyTest() : devices_({createSimulatedNpu(*sim::npuPreset("edge16"))}, ClientAccess{}) {}
  ServedDevices devices_;
  Authenticator authenticator_{TokenTable{}, nullptr};
};

TEST_F(DeviceFamilyTest, SessionsRefuseAnotherWireVersionAndDescribeTheDevices) {
  WorkPool pool;
  SessionWatchService watch(sessions_, authenticator_, pool);
  SessionRpcs rpcs(sessions_, watch, devices_);
  wire::OpenSessionRequest open;
  open.set_client_version(wire::kWireVersion + 1);
  auto refused = rpcs.openSession({"alice", "test"}, open);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("client_version"));
  open.set_client_version(wire::kWireVersion);
  auto opened = rpcs.openSession({"alice", "test"}, open);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  EXPECT_EQ(opened->identity(), "alice");

  auto devices = rpcs.listDevices({"alice", "test"}, {});
  ASSERT_TRUE(devices.ok());
  ASSERT_EQ(devices->devices_size(), 1);
  EXPECT_EQ(devices->devices(0).name(), "nnremote-edge16");
  wire::GetDeviceInfoRequest info;
  info.set_device_name("nnremote-edge32");
  auto unknown = rpcs.getDeviceInfo({"alice", "test"}, info);
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.error().message, HasSubstr("device_name 'nnremote-edge32' is not served here"));

  wire::CloseSessionRequest close;
  close.set_session_id(opened->session_id());
  EXPECT_FALSE(rpcs.closeSession({"mallory", "test"}, close).ok());  // not hers
  EXPECT_TRUE(rpcs.closeSession({"alice", "test"}, close).ok());
  EXPECT_FALSE(sessions_.find(opened->session_id(), "alice").ok());
}

TEST_F(DeviceFamilyTest, ModelsAreValidatedPreparedKeptAndReleased) {
  ModelRpcs rpcs(devices_);
  wire::PrepareModelRequest prepare;
  prepare.set_device_name("nnremote-edge16");
  *prepare.mutable_model() = *wire::toWire(testing::twoInputAddModel());
  prepare.set_preference(static_cast<wire::ExecutionPreference>(7));
  auto badPreference = rpcs.prepareModel(*session_, prepare);
  ASSERT_FALSE(badPreference.ok());
  EXPECT_THAT(badPreference.error().message, HasSubstr("preference = 7"));

  prepare.set_preference(wire::SUSTAINED_SPEED);
  auto prepared = rpcs.prepareModel(*session_, prepare);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto entry = session_->preparedModels.find(prepared->prepared_model_id());
  ASSERT_TRUE(entry.ok());
  EXPECT_EQ(entry->model->main.operations.size(), 1u);  // kept, for validating requests later

  wire::GetSupportedOperationsRequest supported;
  supported.set_device_name("nnremote-edge16");
  *supported.mutable_model() = prepare.model();
  supported.mutable_model()->mutable_main()->mutable_operations(0)->set_inputs(0, 99);
  auto invalid = rpcs.getSupportedOperations(*session_, supported);
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.error().code, hal::ErrorStatus::INVALID_ARGUMENT);

  wire::ReleasePreparedModelRequest release;
  release.set_prepared_model_id(prepared->prepared_model_id());
  EXPECT_TRUE(rpcs.releasePreparedModel(*session_, release).ok());
  EXPECT_FALSE(rpcs.releasePreparedModel(*session_, release).ok());
}

TEST_F(DeviceFamilyTest, ABufferRoleMustNameAModelOfTheSession) {
  BufferRpcs rpcs(devices_);
  wire::AllocateBufferRequest allocate;
  allocate.set_device_name("nnremote-edge16");
  allocate.add_input_roles()->set_prepared_model_id(12345);
  auto refused = rpcs.allocateBuffer(*session_, allocate);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("input_roles[0]"));
}

}  // namespace
}  // namespace nnremote::emulator
