// What a client leaves behind ends on the server's own pool threads, never on gRPC's: the last
// reference to a prepared model can be held by a burst stream or by a session whose client
// vanished, and when the backend is a server of its own (an isolated backend host, a chained
// server) ending it is a blocking call. On a gRPC callback thread that call can hold up every
// call of the process until its deadline (emulator/burst_reactor.cc, OnDone).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "drivers/sim/sim_device.h"
#include "emulator/accelerator_service.h"
#include "emulator/emulator_server.h"
#include "hal/forwarding_device.h"
#include "hal/forwarding_prepared_model.h"
#include "hal/memory.h"
#include "testing/add_model.h"
#include "tests/common/raw_session.h"
#include "tests/common/server_options.h"
#include "wire/conversions.h"
#include "wire/nnremote.grpc.pb.h"

namespace nnremote::emulator {
namespace {

// The names of the threads prepared models ended on.
class EndThreads {
 public:
  void ended() {
    char name[16] = {};
    pthread_getname_np(pthread_self(), name, sizeof(name));
    std::lock_guard<std::mutex> lock(mutex_);
    names_.emplace_back(name);
    changed_.notify_all();
  }
  // The names once `count` prepared models have ended, or those so far after 30 s.
  std::vector<std::string> waitFor(size_t count) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(30), [&] { return names_.size() >= count; });
    return names_;
  }
  size_t count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return names_.size();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> names_;
};

// A prepared model that tells `ends` which thread destroyed it.
class RecordedPreparedModel final : public hal::ForwardingPreparedModel {
 public:
  RecordedPreparedModel(hal::SharedPreparedModel inner, std::shared_ptr<EndThreads> ends)
      : ForwardingPreparedModel(std::move(inner)), ends_(std::move(ends)) {}
  ~RecordedPreparedModel() override { ends_->ended(); }

 private:
  const std::shared_ptr<EndThreads> ends_;
};

class RecordingDevice final : public hal::ForwardingDevice {
 public:
  RecordingDevice(hal::SharedDevice inner, std::shared_ptr<EndThreads> ends)
      : ForwardingDevice(std::move(inner)), ends_(std::move(ends)) {}

  hal::Result<hal::SharedPreparedModel> prepareModel(const hal::Model& model, hal::ExecutionPreference preference,
                                                     hal::Priority priority, const hal::OptionalTimePoint& deadline,
                                                     const std::vector<hal::CacheFile>& modelCache,
                                                     const std::vector<hal::CacheFile>& dataCache,
                                                     const hal::CacheToken& token) const override {
    NN_ASSIGN_OR_RETURN(hal::SharedPreparedModel prepared,
                        inner()->prepareModel(model, preference, priority, deadline, modelCache, dataCache, token));
    return hal::SharedPreparedModel(std::make_shared<RecordedPreparedModel>(std::move(prepared), ends_));
  }

 private:
  const std::shared_ptr<EndThreads> ends_;
};

class ReleaseThreadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto device = std::make_shared<RecordingDevice>(sim::SimDevice::create(sim::edgeNpuConfig()), ends_);
    auto server = EmulatorServer::start({device}, "127.0.0.1:0", testing::plainLoopbackOptions());
    ASSERT_TRUE(server.ok()) << server.error().message;
    server_ = std::move(server).value();
    channel_ = grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
    stub_ = wire::Accelerator::NewStub(channel_);
    waits_ = wire::AcceleratorWaits::NewStub(channel_);
    device_ = device->getName();
  }

  uint64_t openSession() { return testing::openRawSession(*stub_); }

  uint64_t prepare(uint64_t session) {
    grpc::ClientContext context;
    wire::PrepareModelRequest request;
    request.set_session_id(session);
    request.set_device_name(device_);
    *request.mutable_model() = *wire::toWire(testing::twoInputAddModel());
    wire::PrepareModelResponse response;
    const grpc::Status status = stub_->PrepareModel(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.prepared_model_id();
  }

  std::shared_ptr<EndThreads> ends_ = std::make_shared<EndThreads>();
  std::unique_ptr<EmulatorServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<wire::Accelerator::Stub> stub_;
  std::unique_ptr<wire::AcceleratorWaits::Stub> waits_;
  std::string device_;
};

TEST_F(ReleaseThreadsTest, APreparedModelABurstHeldLastEndsOnThePool) {
  const uint64_t session = openSession();
  const uint64_t prepared = prepare(session);

  grpc::ClientContext burstContext;
  auto burst = waits_->Burst(&burstContext);
  wire::BurstRequest open;
  open.mutable_open()->set_session_id(session);
  open.mutable_open()->set_prepared_model_id(prepared);
  ASSERT_TRUE(burst->Write(open));
  // An execution answered: the burst is open and holds the prepared model.
  wire::BurstRequest execute;
  execute.mutable_execute()->set_serial(1);
  hal::Request request;
  request.inputs = {{hal::Request::Argument::LifeTime::POOL, {nullptr, 0, 0, 8, 0}, {}},
                    {hal::Request::Argument::LifeTime::POOL, {nullptr, 0, 8, 8, 0}, {}}};
  request.outputs = {{hal::Request::Argument::LifeTime::POOL, {nullptr, 1, 0, 8, 0}, {}}};
  request.pools = {*hal::createHeapMemory(16), *hal::createHeapMemory(8)};
  auto wireRequest = wire::toWire(request);
  ASSERT_TRUE(wireRequest.ok()) << wireRequest.error().message;
  *execute.mutable_execute()->mutable_request() = *wireRequest;
  ASSERT_TRUE(burst->Write(execute));
  wire::BurstResponse answer;
  ASSERT_TRUE(burst->Read(&answer));
  ASSERT_FALSE(answer.outcome().has_error()) << answer.outcome().error().message();

  {
    grpc::ClientContext context;
    wire::ReleasePreparedModelRequest release;
    release.set_session_id(session);
    release.set_prepared_model_id(prepared);
    wire::Empty empty;
    ASSERT_TRUE(stub_->ReleasePreparedModel(&context, release, &empty).ok());
  }
  EXPECT_EQ(ends_->count(), 0u) << "the burst still holds the prepared model";

  // Ending the stream ends the last reference.
  ASSERT_TRUE(burst->WritesDone());
  EXPECT_TRUE(burst->Finish().ok());
  EXPECT_THAT(ends_->waitFor(1), ::testing::ElementsAre("work_pool"));
}

TEST_F(ReleaseThreadsTest, TheSessionOfAVanishedClientEndsOnThePool) {
  const uint64_t session = openSession();
  // The client "dies": only its WatchSessions stream breaks.
  grpc::ClientContext watchContext;
  auto watchStub = wire::SessionWatch::NewStub(channel_);
  auto watch = watchStub->WatchSessions(&watchContext);
  wire::WatchSessionsRequest add;
  add.add_add(session);
  ASSERT_TRUE(watch->Write(add));
  for (int i = 0; i < 3000 && server_->service().sessionWatch().watching() != 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(server_->service().sessionWatch().watching(), 1u);
  prepare(session);
  prepare(session);
  EXPECT_EQ(ends_->count(), 0u);

  watchContext.TryCancel();
  (void)watch->Finish();
  EXPECT_THAT(ends_->waitFor(2), ::testing::ElementsAre("work_pool", "work_pool"));
}

}  // namespace
}  // namespace nnremote::emulator
