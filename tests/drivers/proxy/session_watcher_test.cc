// The session watcher against a real npu_emulator in its own process, so that nothing but the
// watcher itself polls this process's sockets: a session's end is noticed while the client is
// idle, whether the session was closed or the server went away, and never after unwatch.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "emulator/accelerator_service.h"
#include "wire/wire_constants.h"
#include "wire/nnremote.grpc.pb.h"
#include "drivers/proxy/session_watcher.h"
#include "testing/emulator_process.h"

namespace nnremote::proxy {
namespace {

using testing::EmulatorProcess;
using namespace std::chrono_literals;

// Counts the `ended` calls of the sessions it watches.
class EndedSessions {
 public:
  std::function<void()> callback() {
    return [this] {
      std::lock_guard<std::mutex> lock(mutex_);
      ++count_;
      changed_.notify_all();
    };
  }
  // Waits (bounded) until `count` sessions ended; the number that did.
  int waitFor(int count, std::chrono::milliseconds within) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_for(lock, within, [&] { return count_ >= count; });
    return count_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int count_ = 0;
};

class SessionWatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    address_ = EmulatorProcess::uniqueAddress("watcher");
    server_ = std::make_unique<EmulatorProcess>(address_);
    channel_ = grpc::CreateChannel(address_, grpc::InsecureChannelCredentials());
    stub_ = wire::Accelerator::NewStub(channel_);
    watcher_ = SessionWatcher::shared("session-watcher-test:" + address_, channel_);
  }

  uint64_t openSession() {
    grpc::ClientContext context;
    wire::OpenSessionRequest request;
    request.set_client_version(wire::kWireVersion);
    wire::OpenSessionResponse response;
    const grpc::Status status = stub_->OpenSession(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.session_id();
  }

  std::string address_;
  std::unique_ptr<EmulatorProcess> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<wire::Accelerator::Stub> stub_;
  std::shared_ptr<SessionWatcher> watcher_;
};

TEST_F(SessionWatcherTest, SessionsEndWithTheServerWhileTheClientIsIdle) {
  EndedSessions ended;
  watcher_->watch(openSession(), ended.callback());
  watcher_->watch(openSession(), ended.callback());
  std::this_thread::sleep_for(200ms);  // both are on the stream
  EXPECT_EQ(ended.waitFor(1, 0ms), 0) << "nothing ended yet";
  server_->kill();
  // gRPC's own backup poll of an idle channel comes every 5 s; the watcher's every 50 ms.
  EXPECT_EQ(ended.waitFor(2, 2000ms), 2);
}

TEST_F(SessionWatcherTest, AClosedSessionEndsAndTheOthersStayWatched) {
  EndedSessions closedOne, other;
  const uint64_t closed = openSession();
  watcher_->watch(closed, closedOne.callback());
  watcher_->watch(openSession(), other.callback());
  std::this_thread::sleep_for(200ms);
  {
    grpc::ClientContext context;
    wire::CloseSessionRequest request;
    request.set_session_id(closed);
    wire::Empty empty;
    ASSERT_TRUE(stub_->CloseSession(&context, request, &empty).ok());
  }
  EXPECT_EQ(closedOne.waitFor(1, 2000ms), 1);
  EXPECT_EQ(other.waitFor(1, 300ms), 0) << "the other session is still open";
  server_->kill();
  EXPECT_EQ(other.waitFor(1, 2000ms), 1);
}

TEST_F(SessionWatcherTest, UnwatchedSessionsNeverEnd) {
  EndedSessions ended;
  const uint64_t session = openSession();
  watcher_->watch(session, ended.callback());
  watcher_->unwatch(session);
  EndedSessions stillWatched;
  watcher_->watch(openSession(), stillWatched.callback());
  std::this_thread::sleep_for(200ms);
  server_->kill();
  EXPECT_EQ(stillWatched.waitFor(1, 2000ms), 1);
  EXPECT_EQ(ended.waitFor(1, 0ms), 0);
}

}  // namespace
}  // namespace nnremote::proxy
