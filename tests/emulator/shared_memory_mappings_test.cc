// The clients' shared memory a server maps, for all clients together (shared_memory_mappings):
// however small, each mapping costs the server one of the mappings and descriptors a process
// has. Without the bound, one client registering 20,000 memories left npu_emulator no descriptor
// to accept another client with.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "drivers/proxy/pool_transport.h"
#include "drivers/proxy/proxy_device.h"
#include "emulator/emulator_server.h"
#include "emulator/server_config.h"
#include "emulator/simulated_npus.h"
#include "hal/memory.h"
#include "hal/model_builder.h"
#include "testing/add_model.h"
#include "testing/emulator_process.h"
#include "tests/common/raw_session.h"
#include "wire/conversions.h"
#include "wire/grpc_status.h"
#include "wire/nnremote.grpc.pb.h"

namespace nnremote::emulator {
namespace {

using ::testing::HasSubstr;

constexpr const char* kDevice = "nnremote-edge16";

std::unique_ptr<wire::Accelerator::Stub> stubFor(const std::string& address) {
  return wire::Accelerator::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
}

// Registers `memory` (by name) for `session`.
hal::Status registerShared(wire::Accelerator::Stub& stub, uint64_t session, const hal::SharedMemory& memory) {
  uint64_t id = 0;
  const grpc::Status status = testing::registerRawMemory(stub, session, memory, &id);
  if (!status.ok()) return wire::fromGrpcStatus(status);
  return {};
}

void closeSession(wire::Accelerator::Stub& stub, uint64_t session) {
  grpc::ClientContext context;
  wire::CloseSessionRequest request;
  request.set_session_id(session);
  wire::Empty empty;
  ASSERT_TRUE(stub.CloseSession(&context, request, &empty).ok());
}

// Opens a burst asking for a shared queue and runs 1+10, 2+20 on it over the stream: whether the
// server offered a queue.
bool burstAddsOverItsStream(const std::string& address, uint64_t session, uint64_t prepared) {
  auto waits = wire::AcceleratorWaits::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  auto stream = waits->Burst(&context);
  wire::BurstRequest open;
  open.mutable_open()->set_session_id(session);
  open.mutable_open()->set_prepared_model_id(prepared);
  open.mutable_open()->set_want_shared_queue(true);
  EXPECT_TRUE(stream->Write(open));
  wire::BurstResponse answer;
  EXPECT_TRUE(stream->Read(&answer));
  const bool offered = !answer.shared_queue().shm_name().empty();

  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
  EXPECT_TRUE(io.ok());
  wire::BurstRequest execute;
  execute.mutable_execute()->set_serial(1);
  *execute.mutable_execute()->mutable_request() = *wire::toWire(io->request);
  EXPECT_TRUE(stream->Write(execute));
  wire::BurstResponse executed;
  EXPECT_TRUE(stream->Read(&executed));
  EXPECT_EQ(executed.serial(), 1u);
  EXPECT_EQ(executed.outcome().error().status(), wire::NONE) << executed.outcome().error().message();
  EXPECT_EQ(executed.outcome().output_data(0),
            std::string(reinterpret_cast<const char*>(hal::toBytes<float>({11, 22}).data()), 8));
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
  return offered;
}

TEST(SharedMemoryMappingsTest, ClientsTogetherCannotHaveTheServerMapMore) {
  ServerOptions options;
  options.session.sharedMemoryMappings = 3;
  // A unix socket: only a client on the server's host is offered a burst's shared queue.
  const std::string address = testing::EmulatorProcess::uniqueAddress("mappings");
  auto server = EmulatorServer::start({createSimulatedNpu(sim::edgeNpuConfig())}, address, options);
  ASSERT_TRUE(server.ok()) << server.error().message;
  auto stub = stubFor(address);
  auto memory = hal::createSharedMemory(16);
  ASSERT_TRUE(memory.ok());

  const uint64_t first = testing::openRawSession(*stub), second = testing::openRawSession(*stub);
  ASSERT_TRUE(registerShared(*stub, first, *memory).ok());
  ASSERT_TRUE(registerShared(*stub, first, *memory).ok());
  ASSERT_TRUE(registerShared(*stub, second, *memory).ok());
  auto expectFull = [&] {
    const hal::Status refused = registerShared(*stub, second, *memory);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, hal::ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT) << refused.error().message;
    EXPECT_THAT(refused.error().message, HasSubstr("this server's clients together have 3 shared memories mapped, "
                                                   "its limit (shared_memory_mappings = 3)"));
  };
  expectFull();

  // A burst gets no shared queue then, and runs over its stream.
  const uint64_t prepared = testing::prepareRaw(*stub, second, kDevice, *wire::toWire(testing::twoInputAddModel()));
  EXPECT_FALSE(burstAddsOverItsStream(address, second, prepared));

  // The first session's end gives its two back: one more registration, and a queue for a burst.
  closeSession(*stub, first);
  ASSERT_TRUE(registerShared(*stub, second, *memory).ok());
  EXPECT_TRUE(burstAddsOverItsStream(address, second, prepared));
  // The queue is given back once the server has let go of the ended burst.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  hal::Status again = registerShared(*stub, second, *memory);
  while (!again.ok() && std::chrono::steady_clock::now() < deadline) {
    ASSERT_EQ(again.error().code, hal::ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT) << again.error().message;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    again = registerShared(*stub, second, *memory);
  }
  EXPECT_TRUE(again.ok()) << again.error().message;
  expectFull();
}

// npu_emulator's default comes from its own limits. Under a descriptor limit of 512 (as a
// container may set), one client registering without end is refused at 256, and another client
// still connects and computes, its shared memory travelling by value until there is room.
TEST(SharedMemoryMappingsTest, OneClientRegisteringWithoutEndLeavesTheServerServingOthers) {
  int maxMapCount = 0;
  std::ifstream("/proc/sys/vm/max_map_count") >> maxMapCount;
  if (maxMapCount < 1024) GTEST_SKIP() << "vm.max_map_count is " << maxMapCount << ", below the limit tested here";
  // Lowered for this process and so for the server it starts, which raises its own soft limit
  // to this hard one.
  const rlimit descriptors{512, 512};
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &descriptors), 0);
  EXPECT_EQ(defaultSharedMemoryMappings(), 256u);

  const std::string address = testing::EmulatorProcess::uniqueAddress("mapping-flood");
  testing::EmulatorProcess server(address, {"--config=edge16"});
  auto stub = stubFor(address);
  auto memory = hal::createSharedMemory(16);
  ASSERT_TRUE(memory.ok());
  const uint64_t flooding = testing::openRawSession(*stub);
  int registered = 0;
  hal::Status refused;
  for (; registered < 2000; ++registered) {  // bounded: a server without the limit fails at ~500
    refused = registerShared(*stub, flooding, *memory);
    if (!refused.ok()) break;
  }
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(registered, 256);
  EXPECT_EQ(refused.error().code, hal::ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT) << refused.error().message;
  EXPECT_THAT(refused.error().message, HasSubstr("(shared_memory_mappings = 256)"));

  // Another client connects, and computes over shared memory the server has no room to map.
  auto connection = proxy::Connection::connect(address);
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  auto devices = proxy::ProxyDevice::discover(*connection);
  ASSERT_TRUE(devices.ok()) << devices.error().message;
  auto prepared = devices->front()->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::LOW_POWER,
                                                 hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io =
      hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8}, hal::createSharedMemory);
  ASSERT_TRUE(io.ok());
  auto compute = [&] {
    std::fill_n(io->outputs[0]->data(), 8, uint8_t{0});
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
  };
  compute();
  EXPECT_EQ((*connection)->pools().registeredCount(), 0u);

  // Once the flooding client is gone, its pools are registered.
  closeSession(*stub, flooding);
  compute();
  EXPECT_EQ((*connection)->pools().registeredCount(), 3u);
}

}  // namespace
}  // namespace nnremote::emulator
