// Waiting costs the server no thread: open bursts (stream and same-host shared queue), fenced
// executions waiting on a fence that has not signaled, and WaitFence calls in progress, all at
// once against a real server on a unix socket. Then the fence signals and every one of them
// completes correctly, and every burst still executes (its parked queue woken).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "drivers/proxy/proxy_burst.h"
#include "drivers/proxy/proxy_device.h"
#include "drivers/sim/sim_device.h"
#include "emulator/accelerator_service.h"
#include "emulator/emulator_server.h"
#include "testing/add_model.h"
#include "testing/proc_status.h"
#include "testing/unique_names.h"
#include "wire/conversions.h"
#include "wire/wire_constants.h"

namespace nnremote::emulator {
namespace {

using namespace std::chrono_literals;

int threadCount() { return static_cast<int>(testing::procStatusNumber("/proc/self/status", "Threads")); }

template <typename Done>
bool eventually(Done&& done) {
  for (int i = 0; i < 1000 && !done(); ++i) std::this_thread::sleep_for(10ms);
  return done();
}

hal::Result<hal::ExecutionOutcome> addOnce(const hal::IBurst& burst, float a, float b, std::vector<float>* sum) {
  auto io = hal::makeRequest({hal::toBytes<float>({a, 1}), hal::toBytes<float>({b, 2})}, {8});
  auto outcome = burst.execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  if (outcome.ok()) *sum = hal::fromMemory<float>(io->outputs[0], 2);
  return outcome;
}

// A raw client's session with the ADD model prepared and a fence nobody has signaled.
struct GatedSession {
  uint64_t session = 0, preparedModel = 0, gate = 0;
};

void openGatedSession(wire::Accelerator::Stub& stub, GatedSession* opened) {
  wire::OpenSessionRequest open;
  open.set_client_version(wire::kWireVersion);
  wire::OpenSessionResponse session;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub.OpenSession(&context, open, &session).ok());
  }
  wire::PrepareModelRequest prepare;
  prepare.set_session_id(session.session_id());
  prepare.set_device_name("nnremote-edge16");
  *prepare.mutable_model() = *wire::toWire(testing::twoInputAddModel());
  wire::PrepareModelResponse prepared;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub.PrepareModel(&context, prepare, &prepared).ok());
  }
  wire::CreateFenceRequest createFence;
  createFence.set_session_id(session.session_id());
  wire::CreateFenceResponse gate;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub.CreateFence(&context, createFence, &gate).ok());
  }
  *opened = {session.session_id(), prepared.prepared_model_id(), gate.fence_id()};
}

TEST(WaitingCallsTest, OpenBurstsWaitingFencedExecutionsAndFenceWaitsHoldNoServerThread) {
  const std::string address = "unix:/tmp/nnremote-waiting-" + testing::uniqueToken() + ".sock";
  auto server = EmulatorServer::start({sim::SimDevice::create(sim::edgeNpuConfig())}, address, {});
  ASSERT_TRUE(server.ok()) << server.error().message;

  // A proxy client whose bursts use shared queues (same host), and one that stays on streams.
  auto shared = proxy::Connection::connect(address);
  ASSERT_TRUE(shared.ok()) << shared.error().message;
  proxy::ConnectionOptions streamsOnly;
  streamsOnly.useSharedMemoryBursts = false;
  auto streams = proxy::Connection::connect(address, streamsOnly);
  ASSERT_TRUE(streams.ok()) << streams.error().message;
  std::vector<hal::SharedPreparedModel> prepared;
  for (const auto& connection : {*shared, *streams}) {
    auto devices = proxy::ProxyDevice::discover(connection);
    ASSERT_TRUE(devices.ok());
    auto model = devices->front()->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::LOW_POWER,
                                                hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
    ASSERT_TRUE(model.ok()) << model.error().message;
    prepared.push_back(*model);
  }

  // A raw client for fences: a session, the model, and a fence nobody signals yet.
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = wire::Accelerator::NewStub(channel);
  auto waits = wire::AcceleratorWaits::NewStub(channel);
  GatedSession raw;
  ASSERT_NO_FATAL_FAILURE(openGatedSession(*stub, &raw));

  const int before = threadCount();
  constexpr int kBurstsEach = 50, kFenced = 50, kFenceWaits = 50;

  // Bursts: each executes once (so a shared queue has been served), then sits idle.
  std::vector<hal::SharedBurst> bursts;
  for (const auto& model : prepared) {
    for (int i = 0; i < kBurstsEach; ++i) {
      auto burst = model->configureExecutionBurst();
      ASSERT_TRUE(burst.ok()) << burst.error().message;
      std::vector<float> sum;
      auto outcome = addOnce(**burst, static_cast<float>(i), 10, &sum);
      ASSERT_TRUE(outcome.ok()) << outcome.error().message;
      ASSERT_EQ(sum, (std::vector<float>{i + 10.0f, 3}));
      bursts.push_back(*burst);
    }
  }
  auto* first = dynamic_cast<const proxy::ProxyBurst*>(bursts.front().get());
  auto* last = dynamic_cast<const proxy::ProxyBurst*>(bursts.back().get());
  ASSERT_TRUE(first != nullptr && last != nullptr);
  EXPECT_TRUE(first->usesSharedQueue());
  EXPECT_FALSE(last->usesSharedQueue());

  // Fenced executions waiting for the gate.
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({30, 40})}, {8});
  std::vector<uint64_t> fencedIds;
  for (int i = 0; i < kFenced; ++i) {
    wire::ExecuteFencedRequest request;
    request.set_session_id(raw.session);
    request.set_prepared_model_id(raw.preparedModel);
    *request.mutable_request() = *wire::toWire(io->request);
    request.add_wait_for_fence_ids(raw.gate);
    wire::ExecuteFencedResponse response;
    grpc::ClientContext context;
    ASSERT_TRUE(stub->ExecuteFenced(&context, request, &response).ok());
    fencedIds.push_back(response.execution_id());
  }

  // WaitFence calls in progress (the client's callback API: no client thread each either).
  struct PendingWait {
    grpc::ClientContext context;
    wire::WaitFenceRequest request;
    wire::WaitFenceResponse response;
    grpc::Status status;
  };
  std::vector<std::unique_ptr<PendingWait>> fenceWaits;
  std::mutex mutex;
  std::condition_variable changed;
  int waitsDone = 0;
  for (int i = 0; i < kFenceWaits; ++i) {
    auto wait = std::make_unique<PendingWait>();
    wait->request.set_session_id(raw.session);
    wait->request.set_fence_id(raw.gate);
    wait->context.set_deadline(std::chrono::system_clock::now() + 20s);
    PendingWait* w = wait.get();
    waits->async()->WaitFence(&w->context, &w->request, &w->response, [&, w](grpc::Status status) {
      std::lock_guard<std::mutex> lock(mutex);
      w->status = std::move(status);
      ++waitsDone;
      changed.notify_all();
    });
    fenceWaits.push_back(std::move(wait));
  }

  // Once the pool's threads have gone back (the queues parked), nothing waiting holds one.
  const WorkPool& pool = (*server)->service().workPool();
  EXPECT_TRUE(eventually([&] { return pool.threads() == 0; })) << pool.threads() << " pool threads stayed";
  const int during = threadCount();
  EXPECT_LT(during - before, 16) << "threads before " << before << ", with " << 2 * kBurstsEach << " bursts, "
                                 << kFenced << " fenced executions and " << kFenceWaits << " fence waits: "
                                 << during;
  {
    std::lock_guard<std::mutex> lock(mutex);
    EXPECT_EQ(waitsDone, 0) << "a WaitFence returned before its fence signaled";
  }

  // The gate opens: every waiter completes, every fenced execution runs, every burst works.
  wire::SignalFenceRequest signal;
  signal.set_session_id(raw.session);
  signal.set_fence_id(raw.gate);
  wire::Empty empty;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub->SignalFence(&context, signal, &empty).ok());
  }
  {
    std::unique_lock<std::mutex> lock(mutex);
    ASSERT_TRUE(changed.wait_for(lock, 20s, [&] { return waitsDone == kFenceWaits; }));
  }
  for (const auto& wait : fenceWaits) {
    EXPECT_TRUE(wait->status.ok()) << wait->status.error_message();
    EXPECT_EQ(wait->response.state(), wire::WaitFenceResponse::SIGNALED);
  }
  for (const uint64_t id : fencedIds) {
    wire::GetExecuteFencedInfoRequest request;
    request.set_session_id(raw.session);
    request.set_execution_id(id);
    wire::GetExecuteFencedInfoResponse info;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 20s);
    ASSERT_TRUE(waits->GetExecuteFencedInfo(&context, request, &info).ok());
    const wire::ExecutionOutcome& outcome = info.outcome();
    EXPECT_EQ(outcome.error().status(), wire::NONE) << outcome.error().message();
    ASSERT_EQ(outcome.output_data_size(), 1);
    std::vector<float> sum(2);
    ASSERT_EQ(outcome.output_data(0).size(), sizeof(float) * 2);
    std::memcpy(sum.data(), outcome.output_data(0).data(), sizeof(float) * 2);
    EXPECT_EQ(sum, (std::vector<float>{31, 42}));
  }
  for (size_t i = 0; i < bursts.size(); ++i) {
    std::vector<float> sum;
    auto outcome = addOnce(*bursts[i], static_cast<float>(i), 100, &sum);
    ASSERT_TRUE(outcome.ok()) << "burst " << i << ": " << outcome.error().message;
    EXPECT_EQ(sum, (std::vector<float>{i + 100.0f, 3}));
  }
}

TEST(WaitingCallsTest, AFencedExecutionWaitingOnAFenceOfAClosedSessionLetsGo) {
  const std::string address = "unix:/tmp/nnremote-waiting-closed-" + testing::uniqueToken() + ".sock";
  auto server = EmulatorServer::start({sim::SimDevice::create(sim::edgeNpuConfig())}, address, {});
  ASSERT_TRUE(server.ok()) << server.error().message;
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = wire::Accelerator::NewStub(channel);
  GatedSession raw;
  ASSERT_NO_FATAL_FAILURE(openGatedSession(*stub, &raw));
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({3, 4})}, {8});
  wire::ExecuteFencedRequest request;
  request.set_session_id(raw.session);
  request.set_prepared_model_id(raw.preparedModel);
  *request.mutable_request() = *wire::toWire(io->request);
  request.add_wait_for_fence_ids(raw.gate);
  wire::ExecuteFencedResponse response;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub->ExecuteFenced(&context, request, &response).ok());
  }
  // Its prepared model and the session's memory are held only while it waits.
  std::weak_ptr<const hal::IPreparedModel> watched;
  {
    auto found = (*server)->service().sessions().find(raw.session, "uid:" + std::to_string(::getuid()));
    ASSERT_TRUE(found.ok()) << found.error().message;
    auto entry = (*found)->preparedModels.find(raw.preparedModel);
    ASSERT_TRUE(entry.ok());
    watched = entry->preparedModel;
  }
  wire::CloseSessionRequest close;
  close.set_session_id(raw.session);
  wire::Empty empty;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub->CloseSession(&context, close, &empty).ok());
  }
  // The session's fences ended in error, so the waiting execution gave up what it held.
  EXPECT_TRUE(eventually([&] { return watched.expired(); })) << "the fenced execution still holds its model";
}

}  // namespace
}  // namespace nnremote::emulator
