// The runner hands a model marked expect_failure to the device even when the runner itself finds
// it odd (a constant listed among the inputs), so the device's refusal is what counts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "emulator/simulated_npus.h"
#include "conformance/cts_loader.h"
#include "conformance/cts_runner.h"
#include "hal/forwarding_device.h"

namespace nnremote::conformance {
namespace {

// ADD whose input_indexes name operand 2, a CONSTANT_COPY: invalid.
std::string constantAmongInputs(bool expectFailure) {
  const std::string operand = R"({"type": "TENSOR_FLOAT32", "dimensions": [2], "number_of_consumers": 1,
      "scale": 0, "zero_point": 0, "is_ignored": false, )";
  return std::string(R"({"spec": "test", "version": "V1_0", "models": [{"name": "constant_among_inputs", "main": {
    "operands": [)") +
         operand + R"("lifetime": "SUBGRAPH_INPUT", "data": "AACAPwAAAEA="},)" + operand +
         R"("lifetime": "SUBGRAPH_INPUT", "data": "AABAQAAAgEA="},
      {"type": "INT32", "dimensions": [], "number_of_consumers": 1, "scale": 0, "zero_point": 0,
       "lifetime": "CONSTANT_COPY", "is_ignored": false, "data": "AAAAAA=="},)" +
         operand + R"("lifetime": "SUBGRAPH_OUTPUT", "data": "AACAQAAAwEA="}],
    "operations": [{"type": "ADD", "inputs": [0, 1, 2], "outputs": [3]}],
    "input_indexes": [0, 1, 2], "output_indexes": [3]},
    "referenced": [], "is_relaxed": false, "expect_failure": )" +
         (expectFailure ? "true" : "false") +
         R"(, "min_supported_version": "V1_0", "expected_multinomial_distribution_tolerance": 0}]})";
}

Totals runOne(const std::string& json, const std::string& name, std::string* log,
              const sim::NpuConfig& npu = sim::edgeNpuConfig(), const RunOptions& options = {}) {
  const std::string directory = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::filesystem::create_directories(directory);
  std::ofstream(directory + "/model.json") << json;
  const auto device = emulator::createSimulatedNpu(npu);
  std::ostringstream out;
  auto totals = runDirectory(*device, directory, out, nullptr, nullptr, options);
  *log = out.str();
  EXPECT_TRUE(totals.ok());
  return totals.ok() ? *totals : Totals{};
}

TEST(CtsRunnerTest, AnOddExpectFailureModelIsSentToTheDeviceAndItsRefusalPasses) {
  std::string log;
  const Totals refused = runOne(constantAmongInputs(/*expectFailure=*/true), "expect_failure", &log);
  EXPECT_EQ(refused.passed, 1u) << log;
  EXPECT_EQ(refused.failed, 0u) << log;
  // The same model not marked expect_failure is a broken test file, and says so.
  const Totals broken = runOne(constantAmongInputs(/*expectFailure=*/false), "not_expect_failure", &log);
  EXPECT_EQ(broken.failed, 1u);
  EXPECT_NE(log.find("which is not a SUBGRAPH_INPUT"), std::string::npos) << log;
}

// A replayed division by zero gives back the recorded infinity: the same non-finite value agrees,
// while a different one, or a number where the golden is not one, differs.
TEST(CtsRunnerTest, TheSameInfinityOrNaNAgreesAndAnyOtherNonFiniteValueDiffers) {
  const auto bytesOf = [](std::vector<float> values) {
    std::vector<uint8_t> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  };
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CtsTestCase testCase;
  GoldenOutput golden;
  golden.dimensions = {3};
  golden.data = bytesOf({inf, -inf, nan});
  testCase.outputs.push_back(golden);
  EXPECT_EQ(compareOutput(testCase, 0, bytesOf({inf, -inf, nan}), {3}), "");
  EXPECT_NE(compareOutput(testCase, 0, bytesOf({-inf, -inf, nan}), {3}).find("element 0: got -inf, want inf"),
            std::string::npos);
  EXPECT_NE(compareOutput(testCase, 0, bytesOf({inf, 1.0f, nan}), {3}).find("element 1: got 1, want -inf"),
            std::string::npos);
  EXPECT_NE(compareOutput(testCase, 0, bytesOf({inf, -inf, 0.0f}), {3}).find("element 2: got 0, want nan"),
            std::string::npos);
  testCase.outputs[0].data = bytesOf({1.0f, 2.0f, 3.0f});
  EXPECT_NE(compareOutput(testCase, 0, bytesOf({1.0f, 2.0f, nan}), {3}).find("element 2: got nan, want 3"),
            std::string::npos);
}

TEST(CtsRunnerTest, AFileThatIsNotConformanceJsonIsNamedWithTheLineAndColumnOfTheError) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/broken.json";
  std::ofstream(path) << "{\"models\": [\n  {\"name\": \"x\",,}]}";
  auto loaded = loadSpecFile(path, "broken.json");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_EQ(loaded.error().message, path + " is not a conformance JSON file (../shared/conformance/README.md): "
                                           "line 2, column 16: Expected an object key or }");
  std::ofstream(path, std::ios::trunc) << "# a README\n";
  loaded = loadSpecFile(path, "broken.json");
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("line 1, column 1: Expected a value"), std::string::npos)
      << loaded.error().message;
}

TEST(CtsRunnerTest, AFolderWithoutModelsIsAnErrorNotAnEmptyPass) {
  const std::string directory = std::string(std::getenv("TEST_TMPDIR")) + "/no_models";
  std::filesystem::create_directories(directory + "/V1_0");
  std::ofstream(directory + "/V1_0/notes.txt") << "not a model";
  std::ofstream(directory + "/index.json") << "{}";  // an index, not a model
  const auto device = emulator::createSimulatedNpu(sim::edgeNpuConfig());
  std::ostringstream out;
  auto totals = runDirectory(*device, directory, out);
  ASSERT_FALSE(totals.ok());
  EXPECT_EQ(totals.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_NE(totals.error().message.find("no conformance models under " + directory), std::string::npos)
      << totals.error().message;
}

// A valid model: the constantAmongInputs one with its INT32 operand no longer an input.
std::string validAddModel() {
  std::string json = constantAmongInputs(false);
  json.replace(json.find(R"("input_indexes": [0, 1, 2])"), 26, R"("input_indexes": [0, 1])");
  return json;
}

// A device whose server died: every preparation is DEAD_OBJECT.
class LostDevice final : public hal::ForwardingDevice {
 public:
  using ForwardingDevice::ForwardingDevice;
  hal::Result<hal::SharedPreparedModel> prepareModel(const hal::Model&, hal::ExecutionPreference, hal::Priority,
                                                     const hal::OptionalTimePoint&, const std::vector<hal::CacheFile>&,
                                                     const std::vector<hal::CacheFile>&,
                                                     const hal::CacheToken&) const override {
    ++preparations;
    return hal::makeError(hal::ErrorStatus::DEAD_OBJECT) << "the server did not come back";
  }
  mutable int preparations = 0;
};

// A device gone for good ends the run at the first model that finds it so, saying what ran; one
// lost only for a moment (deviceGone says no) costs that model alone.
TEST(CtsRunnerTest, OneFileRunsAloneNamedAsInItsFoldersRun) {
  const std::string directory = std::string(std::getenv("TEST_TMPDIR")) + "/one_file/V1_0";
  std::filesystem::create_directories(directory);
  std::ofstream(directory + "/add.json") << constantAmongInputs(/*expectFailure=*/false);
  std::ofstream(directory + "/other.json") << constantAmongInputs(/*expectFailure=*/true);
  const auto device = emulator::createSimulatedNpu(sim::edgeNpuConfig());
  std::ostringstream log;
  std::map<std::string, Totals> perVersion;
  auto totals = runDirectory(*device, directory + "/add.json", log, &perVersion);
  ASSERT_TRUE(totals.ok()) << totals.error().message;
  EXPECT_EQ(totals->failed, 1u) << "only add.json ran";
  EXPECT_EQ(totals->passed, 0u);
  EXPECT_NE(log.str().find("V1_0/add.json"), std::string::npos) << log.str();
  EXPECT_EQ(perVersion.count("V1_0"), 1u);
  auto missing = runDirectory(*device, directory + "/nope.json", log);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("nope.json does not exist"), std::string::npos);
}

TEST(CtsRunnerTest, ADeviceGoneForGoodStopsTheRunAndOneLostForAMomentDoesNot) {
  const std::string directory = std::string(std::getenv("TEST_TMPDIR")) + "/gone";
  std::filesystem::create_directories(directory);
  for (const char* name : {"a.json", "b.json", "c.json"}) std::ofstream(directory + "/" + name) << validAddModel();
  const LostDevice device(emulator::createSimulatedNpu(sim::edgeNpuConfig()));
  RunOptions options;
  int asked = 0;
  options.deviceGone = [&] { return ++asked > 0; };
  std::ostringstream log;
  auto stopped = runDirectory(device, directory, log, nullptr, nullptr, options);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error().code, hal::ErrorStatus::DEAD_OBJECT);
  EXPECT_NE(
      stopped.error().message.find("is gone (prepareModel failed: DEAD_OBJECT: the server did not come back): "
                                   "stopped after 0 passed, 1 failed, 0 unsupported; the models left were not run"),
      std::string::npos)
      << stopped.error().message;
  EXPECT_EQ(device.preparations, 1);
  EXPECT_EQ(asked, 1);

  options.deviceGone = [] { return false; };
  std::ostringstream again;
  auto carriedOn = runDirectory(device, directory, again, nullptr, nullptr, options);
  ASSERT_TRUE(carriedOn.ok()) << carriedOn.error().message;
  EXPECT_EQ(carriedOn->failed, 3u);
  EXPECT_EQ(device.preparations, 4);
}

TEST(CtsRunnerTest, WithACacheDirectoryTheModelMustAlsoPassPreparedFromItsCache) {
  RunOptions options;
  options.cacheDirectory = std::string(std::getenv("TEST_TMPDIR"));
  std::string log;
  const Totals cached = runOne(validAddModel(), "cached", &log, sim::edgeNpuConfig(), options);
  EXPECT_EQ(cached.passed, 1u) << log;
  // A device that writes no cache fails the second preparation, and the runner says so.
  sim::NpuConfig noCache = sim::edgeNpuConfig();
  noCache.clear_compilation_cache();
  const Totals uncached = runOne(validAddModel(), "uncached", &log, noCache, options);
  EXPECT_EQ(uncached.failed, 1u);
  EXPECT_NE(log.find("prepareModelFromCache failed: GENERAL_FAILURE"), std::string::npos) << log;
}

}  // namespace
}  // namespace nnremote::conformance
