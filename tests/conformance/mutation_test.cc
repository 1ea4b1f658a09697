// The VTS-style mutation suite (tests/conformance/mutations.h) over every conformance model, on
// device factories (in process, through the proxy, and through a proxy that leaves every check to
// the server): every invalid model is refused
// by getSupportedOperations (as VTS checks, where preference and priority are valid) and at
// preparation, and every invalid request at execution, with INVALID_ARGUMENT; and the device
// serves a valid model correctly afterwards. Per-kind counts are printed. Only the valid models
// are prepared for real (once each, for the request mutations).
//
// SampleMutationTest.SampleCoverage (mutation_test, in CI) applies each kind at the first and the
// last place it fits (through the proxy, on a quarter of the models); FullMutationTest.FullCoverage
// (mutation_full_test, manual) everywhere, on every model, as VTS does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "hal/model_builder.h"
#include "hal/operand_types.h"
#include "hal/validation.h"
#include "testing/add_model.h"
#include "conformance/cts_loader.h"
#include "tests/conformance/mutations.h"
#include "tests/hal/device_factories.h"

namespace nnremote::conformance {
namespace {

struct KindTally {
  size_t made = 0, wronglyAccepted = 0;
  std::string firstRefusal;  // the message of the first refusal, to see that it names the fault
  std::map<std::string, size_t> messageShapes;  // with NNREMOTE_MUTATION_MESSAGES set
};

// A refusal message with its numbers and operand types blanked, to group refusals by reason.
std::string messageShape(const std::string& message) {
  std::string shape;
  for (size_t i = 0; i < message.size() && shape.size() < 110; ++i) {
    if (std::isdigit(static_cast<unsigned char>(message[i]))) {
      while (i + 1 < message.size() && std::isdigit(static_cast<unsigned char>(message[i + 1]))) ++i;
      shape += '#';
    } else {
      shape += message[i];
    }
  }
  return shape;
}

// NNREMOTE_MUTATION_MESSAGES=N prints the N commonest refusal messages of each kind (0 or unset:
// none), e.g. bazel test ... --test_env=NNREMOTE_MUTATION_MESSAGES=8.
size_t messagesToShow() {
  const char* value = std::getenv("NNREMOTE_MUTATION_MESSAGES");
  return value == nullptr ? 0 : static_cast<size_t>(std::strtoul(value, nullptr, 10));
}
const size_t kMessagesToShow = messagesToShow();
const bool kSummarizeMessages = kMessagesToShow > 0;

struct Tally {
  size_t models = 0, modelMutations = 0, requestMutations = 0, wronglyAccepted = 0;
  std::map<std::string, KindTally> kinds;
  std::map<std::string, size_t> failuresShownPerKind;
  std::ostringstream failures;  // the first few of each kind
};

// `status` must be INVALID_ARGUMENT. `counted`: the mutation is counted as made (a model mutation
// is checked twice, by getSupportedOperations and by prepareModel, and counted once).
void expectRefused(const hal::Status& status, const std::string& kind, const std::string& what, Tally* tally,
                   bool counted = true) {
  KindTally& kindTally = tally->kinds[kind];
  if (counted) ++kindTally.made;
  if (!status.ok() && status.code() == hal::ErrorStatus::INVALID_ARGUMENT) {
    if (kindTally.firstRefusal.empty()) kindTally.firstRefusal = what + "\n      -> " + status.error().message;
    if (kSummarizeMessages) ++kindTally.messageShapes[messageShape(status.error().message)];
    return;
  }
  ++kindTally.wronglyAccepted;
  ++tally->wronglyAccepted;
  if (++tally->failuresShownPerKind[kind] <= 3 && tally->wronglyAccepted <= 60) {
    tally->failures << what << ": "
                    << (status.ok() ? std::string("accepted")
                                    : std::string(hal::toString(status.code())) + ": " + status.error().message)
                    << "\n";
  }
}

void printKinds(std::ostream& out, const std::vector<std::string>& order, const Tally& tally) {
  for (const std::string& kind : order) {
    auto it = tally.kinds.find(kind);
    const KindTally counts = it == tally.kinds.end() ? KindTally{} : it->second;
    out << "  " << std::left << std::setw(40) << kind << std::right << std::setw(9) << counts.made;
    if (counts.wronglyAccepted > 0) out << "  (" << counts.wronglyAccepted << " not refused)";
    out << "\n";
  }
}

void printFirstRefusals(std::ostream& out, const std::vector<std::string>& order, const Tally& tally) {
  for (const std::string& kind : order) {
    auto it = tally.kinds.find(kind);
    if (it != tally.kinds.end() && !it->second.firstRefusal.empty()) out << "  " << it->second.firstRefusal << "\n";
  }
}

// The commonest reasons each kind was refused for (NNREMOTE_MUTATION_MESSAGES).
void printMessageShapes(std::ostream& out, const std::vector<std::string>& order, const Tally& tally) {
  for (const std::string& kind : order) {
    auto it = tally.kinds.find(kind);
    if (it == tally.kinds.end() || it->second.messageShapes.empty()) continue;
    std::vector<std::pair<size_t, std::string>> shapes;
    for (const auto& [shape, count] : it->second.messageShapes) shapes.emplace_back(count, shape);
    std::sort(shapes.rbegin(), shapes.rend());
    out << "  " << kind << " (" << shapes.size() << " kinds of message):\n";
    for (size_t i = 0; i < shapes.size() && i < kMessagesToShow; ++i) {
      out << "    " << std::setw(8) << shapes[i].first << "  " << shapes[i].second << "\n";
    }
  }
}

// `withSupportedOperations`: each model mutation also goes to getSupportedOperations (the full
// run everywhere; the sample only in process, since on a server both calls reach the same
// validation and the second would double the run's time in CI).
// `modelStride`: which models are mutated: every `modelStride`-th, and any model with an operation
// type no model before it had (so every operation type's validation is still reached).
void runMutations(const testing::DeviceFactory& factory, Coverage coverage, bool withSupportedOperations = true,
                  size_t modelStride = 1) {
  const std::string directory = defaultConformanceDirectory();
  if (directory.empty()) GTEST_SKIP() << "../shared/conformance is absent; set NNREMOTE_CONFORMANCE_DIR to run it";
  auto files = findSpecFiles(directory);
  ASSERT_TRUE(files.ok()) << files.error().message;
  const auto start = std::chrono::steady_clock::now();
  const testing::DeviceUnderTest dut = factory.create();
  const hal::IDevice& device = *dut.device;
  Tally tally;

  // VTS's CycleTest model.
  const ModelMutation cycle = cycleTestModel();
  ++tally.modelMutations;
  expectRefused(device.getSupportedOperations(cycle.model).status(), cycle.kind,
                cycle.name + " [getSupportedOperations]", &tally, false);
  expectRefused(device.prepareModel(cycle.model, cycle.preference, cycle.priority, std::nullopt, {}, {}, {}).status(),
                cycle.kind, cycle.name, &tally);

  std::set<hal::OperationType> typesSeen;
  size_t validModels = 0;
  auto chosen = [&](const hal::Model& model) {
    bool newType = false;
    for (const hal::Operation& operation : model.main.operations) newType |= typesSeen.insert(operation.type).second;
    return newType || validModels++ % modelStride == 0;
  };
  for (const auto& file : *files) {
    auto cases = loadSpecFile(file, file);
    ASSERT_TRUE(cases.ok()) << cases.error().message;
    for (const CtsTestCase& testCase : *cases) {
      if (testCase.expectFailure || !chosen(testCase.model)) continue;
      ++tally.models;
      forEachModelMutation(testCase.model, coverage, [&](const ModelMutation& mutation) {
        ++tally.modelMutations;
        // As VTS: getSupportedOperations refuses the model too, where preference and priority
        // are valid (they are not its arguments).
        if (withSupportedOperations && mutation.preference == hal::ExecutionPreference::FAST_SINGLE_ANSWER &&
            mutation.priority == hal::Priority::MEDIUM) {
          expectRefused(device.getSupportedOperations(mutation.model).status(), mutation.kind,
                        testCase.fullName() + " " + mutation.name + " [getSupportedOperations]", &tally, false);
        }
        auto prepared = device.prepareModel(mutation.model, mutation.preference, mutation.priority, std::nullopt,
                                            {}, {}, {});
        expectRefused(prepared.status(), mutation.kind, testCase.fullName() + " " + mutation.name, &tally);
      });
      // The one valid preparation: the request mutations need a prepared model.
      auto prepared = device.prepareModel(testCase.model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                          hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
      ASSERT_TRUE(prepared.ok()) << testCase.fullName() << ": " << prepared.error().message;
      std::vector<size_t> outputSizes;
      for (const auto& output : testCase.outputs) outputSizes.push_back(std::max<size_t>(output.data.size(), 1));
      auto io = hal::makeRequest(testCase.inputs, outputSizes);
      ASSERT_TRUE(io.ok());
      // As the CTS harness does, an input without data is an omitted (optional) operand.
      for (size_t i = 0; i < testCase.inputs.size(); ++i) {
        if (testCase.inputs[i].empty()) {
          io->request.inputs[i].lifetime = hal::Request::Argument::LifeTime::NO_VALUE;
          io->request.inputs[i].location = {};
        }
      }
      // The mutations start from a valid request (checked without executing it).
      const hal::Status valid = hal::validateRequestForModel(io->request, testCase.model);
      ASSERT_TRUE(valid.ok()) << testCase.fullName() << ": " << valid.error().message;
      forEachRequestMutation(testCase.model, io->request, coverage, [&](const RequestMutation& mutation) {
        ++tally.requestMutations;
        auto outcome = (*prepared)->execute(mutation.request, hal::MeasureTiming::NO, std::nullopt,
                                            std::chrono::milliseconds(200));
        expectRefused(outcome.status(), mutation.kind, testCase.fullName() + " " + mutation.name, &tally);
      });
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::ostringstream report;
  report << factory.name << " (" << (coverage == Coverage::kAll ? "all places" : "sample") << "): " << tally.models
         << " models" << (modelStride > 1 ? " (every " + std::to_string(modelStride) + "th, and each operation type's first)" : "")
         << ", " << tally.modelMutations << " model mutations and " << tally.requestMutations
         << " request mutations in " << std::fixed << std::setprecision(1) << seconds << " s, "
         << tally.wronglyAccepted << " not refused with INVALID_ARGUMENT\n";
  report << " model mutations per kind:\n";
  printKinds(report, modelMutationKinds(), tally);
  report << " request mutations per kind:\n";
  printKinds(report, requestMutationKinds(), tally);
  report << " the first refusal of each kind:\n";
  printFirstRefusals(report, modelMutationKinds(), tally);
  printFirstRefusals(report, requestMutationKinds(), tally);
  if (kSummarizeMessages) {
    report << " why they were refused:\n";
    printMessageShapes(report, modelMutationKinds(), tally);
    printMessageShapes(report, requestMutationKinds(), tally);
  }
  std::cout << report.str() << std::flush;
  EXPECT_EQ(tally.wronglyAccepted, 0u) << tally.failures.str();
  EXPECT_GT(tally.modelMutations, 10 * tally.models);

  // The device (and the server behind the proxy) still serves a valid model correctly.
  auto prepared = device.prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                      hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
  ASSERT_TRUE(io.ok());
  ASSERT_TRUE((*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
}

std::string factoryName(const ::testing::TestParamInfo<testing::DeviceFactory>& info) { return info.param.name; }

// mutation_test (CI): each kind at the first and the last place it fits, in process on every
// model, and through a proxy that leaves every check to the server (the proxy's own checks are
// hal::validateModel, which the in-process run covers) on every 4th model and each operation
// type's first: the server validates with the same hal code, so what the proxy run checks is
// that every refusal survives the wire, which a quarter of the models show in a quarter of the
// time (250 s of CI's test time before).
constexpr size_t kServerModelStride = 4;
class SampleMutationTest : public ::testing::TestWithParam<testing::DeviceFactory> {};
TEST_P(SampleMutationTest, SampleCoverage) {
  const bool inProcess = GetParam().name == testing::allDeviceFactories().front().name;
  runMutations(GetParam(), Coverage::kSample, /*withSupportedOperations=*/inProcess,
               inProcess ? 1 : kServerModelStride);
}
INSTANTIATE_TEST_SUITE_P(Devices, SampleMutationTest,
                         ::testing::Values(testing::allDeviceFactories().front(),
                                           testing::throughProxyServerChecksFactory()),
                         factoryName);

// mutation_full_test (manual): each kind everywhere, as VTS does, on every device factory and on
// the proxy that leaves every check to the server.
std::vector<testing::DeviceFactory> everyFactory() {
  std::vector<testing::DeviceFactory> factories = testing::allDeviceFactories();
  factories.push_back(testing::throughProxyServerChecksFactory());
  return factories;
}
class FullMutationTest : public ::testing::TestWithParam<testing::DeviceFactory> {};
TEST_P(FullMutationTest, FullCoverage) { runMutations(GetParam(), Coverage::kAll); }
INSTANTIATE_TEST_SUITE_P(AllDevices, FullMutationTest, ::testing::ValuesIn(everyFactory()), factoryName);

}  // namespace
}  // namespace nnremote::conformance
