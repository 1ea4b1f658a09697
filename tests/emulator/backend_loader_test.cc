// npu_emulator --backend: the simulator served from its backend library gives what the simulator
// gives; every way a library can be wrong is a clear error at startup (in process and from the
// real binary); and a backend whose calls throw fails those calls, named, while the server goes
// on serving.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "emulator/backend_loader.h"
#include "emulator/device_scheduling.h"
#include "emulator/emulator_server.h"
#include "hal/memory.h"
#include "drivers/proxy/proxy_device.h"
#include "testing/add_model.h"
#include "testing/sanitizers.h"
#include "tests/common/server_options.h"

namespace nnremote::emulator {
namespace {

using ::testing::HasSubstr;

constexpr const char* kSimBackend = "drivers/sim/sim_backend.so";
constexpr const char* kTestBackend = "tests/emulator/backends/test_backend.so";

hal::Result<std::vector<hal::BackendDevice>> load(const std::string& flag) {
  NN_ASSIGN_OR_RETURN(auto spec, parseBackendSpec(flag));
  return loadBackend(spec, hal::randomCacheSecret());
}

std::string loadError(const std::string& flag) {
  auto loaded = load(flag);
  EXPECT_FALSE(loaded.ok()) << flag << " loaded";
  return loaded.ok() ? "" : loaded.error().message;
}

// Runs 1+10, 2+20 on `device`; returns the sums or the error.
hal::Result<std::vector<float>> addOnce(const hal::IDevice& device,
                                        hal::ExecutionPreference preference = hal::ExecutionPreference::FAST_SINGLE_ANSWER) {
  NN_ASSIGN_OR_RETURN(auto prepared, device.prepareModel(testing::twoInputAddModel(), preference,
                                                         hal::Priority::MEDIUM, std::nullopt, {}, {}, {}));
  NN_ASSIGN_OR_RETURN(auto io, hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8}));
  NN_RETURN_IF_ERROR(prepared->execute(io.request, hal::MeasureTiming::YES, std::nullopt, std::nullopt).status());
  return hal::fromMemory<float>(io.outputs[0], 2);
}

TEST(BackendSpecTest, SplitsThePathFromTheArgumentAfterTheLibraryName) {
  auto plain = parseBackendSpec("/opt/npu/libnpu.so");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->path, "/opt/npu/libnpu.so");
  EXPECT_EQ(plain->argument, "");
  auto versioned = parseBackendSpec("libnpu.so.2.1:CpuAcc,CpuRef");
  ASSERT_TRUE(versioned.ok());
  EXPECT_EQ(versioned->path, "libnpu.so.2.1");
  EXPECT_EQ(versioned->argument, "CpuAcc,CpuRef");
  auto configPath = parseBackendSpec("sim_backend.so:configs/a:b.textproto");
  ASSERT_TRUE(configPath.ok());
  EXPECT_EQ(configPath->argument, "configs/a:b.textproto");
  for (const char* bad : {"", "libnpu", "libnpu.dll:x", ":x"}) {
    auto parsed = parseBackendSpec(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_THAT(parsed.error().message, HasSubstr("expected PATH.so[:ARG]"));
  }
}

TEST(BackendLoaderTest, TheSimulatorLibraryServesTheSimulatedNpus) {
  auto devices = load(std::string(kSimBackend) + ":edge16,large128");
  ASSERT_TRUE(devices.ok()) << devices.error().message;
  ASSERT_EQ(devices->size(), 2u);
  EXPECT_EQ((*devices)[0].device->getName(), "nnremote-edge16");
  EXPECT_EQ((*devices)[1].device->getName(), "nnremote-large128");
  EXPECT_GE((*devices)[1].engines, 1u);
  ASSERT_TRUE((*devices)[0].preparationTime);
  EXPECT_GT((*devices)[0].preparationTime(testing::twoInputAddModel()).count(), 0);
  const auto device = scheduleDevice(std::move((*devices)[0]), {});
  auto sums = addOnce(*device);
  ASSERT_TRUE(sums.ok()) << sums.error().message;
  EXPECT_EQ(*sums, (std::vector<float>{11, 22}));
}

TEST(BackendLoaderTest, EveryWrongLibraryIsAClearErrorAtLoad) {
  EXPECT_THAT(loadError("tests/emulator/backends/absent.so"), HasSubstr("cannot load it"));
  EXPECT_THAT(loadError("tests/emulator/backends/not_a_backend.so"),
              HasSubstr("not an nnremote backend: it does not export nnremote_backend_abi_stamp"));
  const std::string otherAbi = loadError("tests/emulator/backends/other_abi_backend.so");
  EXPECT_THAT(otherAbi, HasSubstr("built for backend ABI version " + std::to_string(hal::kBackendAbiVersion + 1)));
  EXPECT_THAT(otherAbi, HasSubstr("this server speaks version " + std::to_string(hal::kBackendAbiVersion)));
  EXPECT_THAT(loadError(std::string(kTestBackend) + ":throw-in-factory"),
              HasSubstr("threw an exception: the board is not connected"));
  EXPECT_THAT(loadError(std::string(kTestBackend) + ":fail"), HasSubstr("no board answers on /dev/npu0"));
  EXPECT_THAT(loadError(std::string(kTestBackend) + ":none"), HasSubstr("serves no devices"));
  EXPECT_THAT(loadError(std::string(kTestBackend) + ":engines=0"), HasSubstr("test-throwing has 0 engines (1 to 256)"));
  EXPECT_THAT(loadError(std::string(kTestBackend) + ":engines=4294967295"),
              HasSubstr("test-throwing has 4294967295 engines (1 to 256)"));
  EXPECT_THAT(loadError(std::string(kTestBackend) + ":cache-files=33"),
              HasSubstr("test-throwing needs 33 model and 0 data cache files (at most 32 of each)"));
  EXPECT_THAT(loadError(std::string(kSimBackend) + ":no-such-npu"), HasSubstr("unknown NPU preset 'no-such-npu'"));
}

TEST(BackendLoaderTest, ABackendThatThrowsFailsItsCallsThroughTheProxyAndTheServerServesOn) {
  auto simulated = load(std::string(kSimBackend) + ":edge16");
  auto throwing = load(kTestBackend);
  ASSERT_TRUE(simulated.ok() && throwing.ok());
  auto server = EmulatorServer::start(
      {scheduleDevice(std::move(simulated->front()), {}), scheduleDevice(std::move(throwing->front()), {})},
      "127.0.0.1:0", testing::plainLoopbackOptions());
  ASSERT_TRUE(server.ok()) << server.error().message;
  auto connection = proxy::Connection::connect((*server)->address());
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  auto devices = proxy::ProxyDevice::discover(*connection);
  ASSERT_TRUE(devices.ok() && devices->size() == 2u);
  const auto& sim = *(*devices)[0];
  const auto& board = *(*devices)[1];
  ASSERT_EQ(board.getName(), "test-throwing");

  // Preparation throws a std::exception.
  auto prepareThrows = addOnce(board, hal::ExecutionPreference::FAST_SINGLE_ANSWER);
  ASSERT_FALSE(prepareThrows.ok());
  EXPECT_EQ(prepareThrows.error().code, hal::ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(prepareThrows.error().message,
              HasSubstr("backend test_backend.so threw from IDevice::prepareModel: no compiler on this board"));
  // Preparation works, execution throws.
  auto executeThrows = addOnce(board, hal::ExecutionPreference::LOW_POWER);
  ASSERT_FALSE(executeThrows.ok());
  EXPECT_EQ(executeThrows.error().code, hal::ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(executeThrows.error().message, HasSubstr("threw from IPreparedModel::execute: the board stopped answering"));
  // Something that is not a std::exception, and a std::bad_alloc.
  auto fromCache = board.prepareModelFromCache(std::nullopt, {}, {}, {});
  ASSERT_FALSE(fromCache.ok());
  hal::BufferDesc desc;
  auto allocated = board.allocate(desc, {}, {}, {});
  ASSERT_FALSE(allocated.ok());

  // The server and its other device are unharmed.
  auto sums = addOnce(sim);
  ASSERT_TRUE(sums.ok()) << sums.error().message;
  EXPECT_EQ(*sums, (std::vector<float>{11, 22}));
  EXPECT_TRUE(board.getSupportedOperations(testing::twoInputAddModel()).ok());
}

// The real binary: a wrong --backend stops it at startup with exit status 2 and the reason.
std::pair<int, std::string> runEmulator(const std::string& flags) {
  const std::string command = "emulator/npu_emulator --listen=unix:/tmp/nnremote-backend-test.sock " + flags + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string output;
  char buffer[512];
  while (pipe != nullptr && std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  const int status = pipe != nullptr ? ::pclose(pipe) : -1;
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// A library's success without the object it promised would crash the server that uses it, and
// a list of supported operations of the wrong length would be read as some other model's.
TEST(BackendLoaderTest, ABrokenAnswerIsTheBackendsFailure) {
  auto loaded = load(std::string(kTestBackend) + ":broken-answers");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const hal::IDevice& device = *loaded->front().device;
  auto supported = device.getSupportedOperations(testing::twoInputAddModel());
  ASSERT_FALSE(supported.ok());
  EXPECT_EQ(supported.error().code, hal::ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(supported.error().message, HasSubstr("backend test_backend.so answered IDevice::getSupportedOperations "
                                                   "for 0 operations of 1"));
  auto prepared = addOnce(device, hal::ExecutionPreference::LOW_POWER);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.error().code, hal::ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(prepared.error().message,
              HasSubstr("backend test_backend.so returned success but no object from IDevice::prepareModel"));
  hal::BufferDesc desc;
  auto buffer = device.allocate(desc, {}, {}, {});
  ASSERT_FALSE(buffer.ok());
  EXPECT_THAT(buffer.error().message, HasSubstr("returned success but no object from IDevice::allocate"));
}

TEST(BackendLoaderTest, TheEmulatorBinaryRefusesAWrongBackendAtStartup) {
  for (const auto& [flags, message] : std::vector<std::pair<std::string, std::string>>{
           {"--backend=tests/emulator/backends/other_abi_backend.so", "backend ABI version"},
           {"--backend=tests/emulator/backends/not_a_backend.so", "not an nnremote backend"},
           {std::string("--backend=") + kTestBackend + ":throw-in-factory", "threw an exception"},
           {std::string("--backend=") + kTestBackend + " --backend=" + kTestBackend,
            "two devices are named test-throwing"},
           {"--config=no-such-npu", "--config=no-such-npu: unknown NPU preset"},
           {"--backend=libnpu.dll", "expected PATH.so[:ARG]"},
           // Isolated (the default): the child's loader refuses it, and the parent says why.
           {std::string("--backend=") + kTestBackend + ":engines=100000", "has 100000 engines (1 to 256)"},
       }) {
    const auto [exitCode, output] = runEmulator(flags);
    EXPECT_EQ(exitCode, 2) << flags << "\n" << output;
    EXPECT_THAT(output, HasSubstr(message)) << flags;
  }
}

// An address-space limit too small for a backend host to load its library, or to start its
// threads (std::thread throws), is refused at startup naming the limit, not reported as a crash.
TEST(BackendLoaderTest, AnAddressSpaceLimitTooSmallForTheHostIsRefusedNamingIt) {
  if (testing::kUnderSanitizers) {
    GTEST_SKIP() << "the sanitizers reserve terabytes of shadow address space: no RLIMIT_AS fits them";
  }
  for (const int mib : {1, 200}) {
    const std::string config = std::string(std::getenv("TEST_TMPDIR")) + "/limit.textproto";
    std::ofstream(config) << "backend_isolation { address_space_mib: " << mib << " }\n";
    const auto [exitCode, output] =
        runEmulator(std::string("--backend=") + kSimBackend + ":edge16 --server-config=" + config);
    EXPECT_EQ(exitCode, 2) << output;
    EXPECT_THAT(output, HasSubstr("(under address_space_mib = " + std::to_string(mib) + ", with ")) << output;
    EXPECT_THAT(output, HasSubstr("MiB mapped before the library loaded: too small?")) << output;
    EXPECT_THAT(output, ::testing::Not(HasSubstr("SIGABRT"))) << output;
  }
}

}  // namespace
}  // namespace nnremote::emulator
