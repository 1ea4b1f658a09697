// The VTS-style mutation suite (tests/conformance/mutations.h) over every conformance model, in
// process and through the proxy: every invalid model is refused at preparation, and every
// invalid request at execution, with INVALID_ARGUMENT; and the device serves a valid model
// correctly afterwards.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>

#include "hal/model_builder.h"
#include "tests/conformance/cts_loader.h"
#include "tests/common/add_model.h"
#include "tests/conformance/mutations.h"
#include "tests/hal/device_factories.h"

namespace nnremote::cts {
namespace {

struct Tally {
  size_t models = 0, modelMutations = 0, requestMutations = 0, wronglyAccepted = 0;
  std::ostringstream failures;  // the first few
};

void expectRefused(const hal::Status& status, const std::string& what, Tally* tally) {
  if (!status.ok() && status.code() == hal::ErrorStatus::INVALID_ARGUMENT) return;
  if (++tally->wronglyAccepted <= 20) {
    tally->failures << what << ": "
                    << (status.ok() ? std::string("accepted")
                                    : std::string(hal::toString(status.code())) + ": " + status.error().message)
                    << "\n";
  }
}

class MutationTest : public ::testing::TestWithParam<testing::DeviceFactory> {};

TEST_P(MutationTest, EveryMutationOfEveryConformanceModelIsInvalidArgument) {
  const std::string directory = defaultConformanceDirectory();
  if (directory.empty()) GTEST_SKIP() << "../shared/conformance is absent; set NNREMOTE_CONFORMANCE_DIR to run it";
  auto files = findSpecFiles(directory);
  ASSERT_TRUE(files.ok()) << files.error().message;
  const testing::DeviceUnderTest dut = GetParam().create();
  const hal::IDevice& device = *dut.device;
  Tally tally;
  for (const auto& file : *files) {
    auto cases = loadSpecFile(file, file);
    ASSERT_TRUE(cases.ok()) << cases.error().message;
    for (const CtsTestCase& testCase : *cases) {
      if (testCase.expectFailure) continue;
      ++tally.models;
      for (const ModelMutation& mutation : mutateModel(testCase.model)) {
        ++tally.modelMutations;
        auto prepared = device.prepareModel(mutation.model, mutation.preference, mutation.priority, std::nullopt,
                                            {}, {}, {});
        expectRefused(prepared.status(), testCase.fullName() + " " + mutation.name, &tally);
      }
      auto prepared = device.prepareModel(testCase.model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                          hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
      ASSERT_TRUE(prepared.ok()) << testCase.fullName() << ": " << prepared.error().message;
      std::vector<size_t> outputSizes;
      for (const auto& output : testCase.outputs) outputSizes.push_back(std::max<size_t>(output.data.size(), 1));
      auto io = hal::makeRequest(testCase.inputs, outputSizes);
      ASSERT_TRUE(io.ok());
      for (const RequestMutation& mutation : mutateRequest(testCase.model, io->request)) {
        ++tally.requestMutations;
        auto outcome = (*prepared)->execute(mutation.request, hal::MeasureTiming::NO, std::nullopt,
                                            std::chrono::milliseconds(200));
        expectRefused(outcome.status(), testCase.fullName() + " " + mutation.name, &tally);
      }
    }
  }
  std::cout << GetParam().name << ": " << tally.models << " models, " << tally.modelMutations
            << " model mutations and " << tally.requestMutations << " request mutations, "
            << tally.wronglyAccepted << " not refused with INVALID_ARGUMENT\n";
  EXPECT_EQ(tally.wronglyAccepted, 0u) << tally.failures.str();
  EXPECT_GT(tally.modelMutations, 10 * tally.models);

  // The device (and the server behind the proxy) still serves a valid model correctly.
  auto prepared = device.prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                      hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
  ASSERT_TRUE((*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
}

INSTANTIATE_TEST_SUITE_P(AllDevices, MutationTest, ::testing::ValuesIn(testing::allDeviceFactories()),
                         [](const ::testing::TestParamInfo<testing::DeviceFactory>& info) { return info.param.name; });

}  // namespace
}  // namespace nnremote::cts
