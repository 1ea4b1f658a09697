// A client that shrinks (ftruncate) shared memory it registered, while a real npu_emulator has it
// mapped: the server's next access would raise SIGBUS and end it for every client. With every
// executor, on the simulator in the server and in an isolated backend host (which maps the pages
// by descriptor): the execution that touched the shrunk pool, and every later one naming it, is
// refused with INVALID_ARGUMENT naming the pool; the same client goes on with new memory, other
// clients never notice, and no process ends. Nor does one that shrinks a burst's shared queue,
// which the server made and the client maps.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "conformance/cts_runner.h"
#include "drivers/proxy/proxy_device.h"
#include "hal/memory.h"
#include "hal/model_builder.h"
#include "hal/truncation_guard.h"
#include "testing/add_model.h"
#include "testing/emulator_process.h"
#include "wire/nnremote.pb.h"

namespace nnremote::emulator {
namespace {

using conformance::Executor;
using ::testing::HasSubstr;

constexpr const char* kDevice = "nnremote-edge16";

struct ShrinkCase {
  const char* name;
  Executor executor;
  bool isolated;                  // the device is sim_backend.so in a backend host
  bool sharedQueueBursts = true;  // bursts over the same-host shared-memory queue
};

std::string caseName(const ::testing::TestParamInfo<ShrinkCase>& info) { return info.param.name; }

// What a client can do to shared memory it registered: shrink the object behind its name.
void shrinkToNothing(const hal::SharedMemory& memory) {
  const int fd = ::shm_open(memory->sharedName().c_str(), O_RDWR, 0);
  ASSERT_GE(fd, 0) << memory->sharedName();
  ASSERT_EQ(::ftruncate(fd, 0), 0);
  ::close(fd);
}

class Client {
 public:
  Client(const std::string& address, bool sharedQueueBursts) {
    proxy::ConnectionOptions options;
    options.useSharedMemoryBursts = sharedQueueBursts;
    auto connection = proxy::Connection::connect(address, options);
    EXPECT_TRUE(connection.ok()) << connection.error().message;
    if (!connection.ok()) return;
    auto devices = proxy::ProxyDevice::discover(*connection);
    EXPECT_TRUE(devices.ok()) << devices.error().message;
    if (!devices.ok()) return;
    for (const auto& device : *devices) {
      if (device->getName() == kDevice) device_ = device;
    }
    EXPECT_NE(device_, nullptr) << "no device " << kDevice;
  }

  hal::SharedPreparedModel prepare() const {
    if (device_ == nullptr) return nullptr;
    auto prepared = device_->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                          hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
    EXPECT_TRUE(prepared.ok()) << prepared.error().message;
    return prepared.ok() ? *prepared : nullptr;
  }

  const proxy::ProxyDevice* device() const { return device_.get(); }

 private:
  std::shared_ptr<proxy::ProxyDevice> device_;
};

// 1+10, 2+20 in POSIX shared memory.
hal::RequestWithMemories sharedAddRequest() {
  auto io =
      hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8}, hal::createSharedMemory);
  EXPECT_TRUE(io.ok()) << io.error().message;
  return io.ok() ? *io : hal::RequestWithMemories{};
}

void expectSums(const hal::SharedPreparedModel& prepared, const hal::RequestWithMemories& io, Executor executor) {
  ASSERT_NE(prepared, nullptr) << "no prepared model to run on";  // the server is gone, say
  std::fill_n(io.outputs[0]->data(), 8, uint8_t{0});
  auto outcome = conformance::executeWith(prepared, io.request, executor);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(hal::fromMemory<float>(io.outputs[0], 2), (std::vector<float>{11, 22}));
}

class ShrunkMemoryTest : public ::testing::TestWithParam<ShrinkCase> {};

TEST_P(ShrunkMemoryTest, WhatUsesItIsRefusedAndTheServerServesOn) {
  const ShrinkCase param = GetParam();
  const std::string address = testing::EmulatorProcess::uniqueAddress("shrunk-memory");
  const std::vector<std::string> flags =
      param.isolated ? std::vector<std::string>{"--config=large128", "--backend=drivers/sim/sim_backend.so:edge16"}
                     : std::vector<std::string>{"--config=edge16"};
  testing::EmulatorProcess server(address, flags);
  Client client(address, param.sharedQueueBursts);
  const hal::SharedPreparedModel prepared = client.prepare();
  ASSERT_NE(prepared, nullptr);

  const hal::RequestWithMemories io = sharedAddRequest();
  expectSums(prepared, io, param.executor);  // registered, and mapped by whoever computes

  shrinkToNothing(io.inputs[0]);
  for (const char* attempt : {"the execution that finds it shrunk", "a later one naming it"}) {
    SCOPED_TRACE(attempt);
    auto refused = conformance::executeWith(prepared, io.request, param.executor);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, hal::ErrorStatus::INVALID_ARGUMENT) << refused.error().message;
    EXPECT_THAT(refused.error().message,
                HasSubstr("request pool 0: the shared memory"));  // the first input's pool
    EXPECT_THAT(refused.error().message,
                HasSubstr("lost pages under the server's mapping (its owner shrank it below its 8 bytes"));
  }

  // The same client, its prepared model and session, with memory it leaves alone: as before.
  expectSums(prepared, sharedAddRequest(), param.executor);
  // Another client never noticed.
  Client other(address, param.sharedQueueBursts);
  expectSums(other.prepare(), sharedAddRequest(), param.executor);

  EXPECT_EQ(::waitpid(server.pid(), nullptr, WNOHANG), 0) << "npu_emulator ended";
  if (param.isolated) {
    const Client fresh(address, true);  // a fresh look, as `nnremote devices` takes
    ASSERT_NE(fresh.device(), nullptr);
    const auto host = fresh.device()->backendHost();
    ASSERT_NE(host, nullptr);
    EXPECT_TRUE(host->running());
    EXPECT_EQ(host->restarts(), 0u) << "the backend host ended: " << host->ShortDebugString();
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryExecutor, ShrunkMemoryTest,
    ::testing::Values(ShrinkCase{"Sync", Executor::SYNC, false}, ShrinkCase{"Async", Executor::ASYNC, false},
                      ShrinkCase{"Reusable", Executor::REUSABLE, false}, ShrinkCase{"Fenced", Executor::FENCED, false},
                      ShrinkCase{"BurstSharedQueue", Executor::BURST, false},
                      ShrinkCase{"BurstStream", Executor::BURST, false, /*sharedQueueBursts=*/false},
                      ShrinkCase{"IsolatedSync", Executor::SYNC, true},
                      ShrinkCase{"IsolatedFenced", Executor::FENCED, true},
                      ShrinkCase{"IsolatedBurst", Executor::BURST, true}),
    caseName);

// The descriptor this process holds of a shared-memory object `owner` made (a burst's queue,
// which the proxy maps and keeps open), or -1.
int descriptorOfObjectMadeBy(pid_t owner) {
  const std::string prefix = "/dev/shm/nnremote-" + std::to_string(owner) + "-";
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code error;
    const std::string target = std::filesystem::read_symlink(entry.path(), error).string();
    if (!error && target.rfind(prefix, 0) == 0) return std::stoi(entry.path().filename().string());
  }
  return -1;
}

TEST(ShrunkBurstQueueTest, AClientShrinkingItsBurstsQueueCannotEndTheServer) {
  // The server makes a burst's shared queue and the client maps it; a client can shrink it too.
  // The client's own accesses would end this test, so it is armed as the server is.
  hal::armTruncationGuard();
  const std::string address = testing::EmulatorProcess::uniqueAddress("shrunk-queue");
  testing::EmulatorProcess server(address, {"--config=edge16"});
  {
    Client client(address, /*sharedQueueBursts=*/true);
    const hal::SharedPreparedModel prepared = client.prepare();
    ASSERT_NE(prepared, nullptr);
    auto burst = prepared->configureExecutionBurst();
    ASSERT_TRUE(burst.ok()) << burst.error().message;
    const hal::RequestWithMemories io = sharedAddRequest();
    for (int i = 0; i < 2; ++i) {
      auto outcome = (*burst)->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
      ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    }
    const int queue = descriptorOfObjectMadeBy(server.pid());
    ASSERT_GE(queue, 0) << "no shared queue mapped from npu_emulator (pid " << server.pid() << ")";
    ASSERT_EQ(::ftruncate(queue, 0), 0);
    // The burst and its client go: the client closes the queue, the server shuts it down, each
    // writing to its mapping of it.
  }
  EXPECT_EQ(::waitpid(server.pid(), nullptr, WNOHANG), 0) << "npu_emulator ended";
  Client other(address, /*sharedQueueBursts=*/true);
  expectSums(other.prepare(), sharedAddRequest(), Executor::BURST);
}

}  // namespace
}  // namespace nnremote::emulator
