// The built-in networks have their reference architectures' shapes: weight counts and
// multiply-accumulates within 2% of the published figures, the outputs the papers give, and
// they validate and run on the simulated NPU.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "drivers/sim/npu_config.h"
#include "emulator/simulated_npus.h"
#include "hal/model_builder.h"
#include "hal/operand_types.h"
#include "hal/validation.h"
#include "tools/models/built_in.h"

namespace nnremote::tools {
namespace {

struct Published {
  const char* model;
  double weightsMillions;  // convolution weights
  double gigaMacs;         // convolutions, at the network's input size
  std::vector<uint32_t> output;
  double macsTolerance = 0.02;  // wider where the figure is published to two digits
};

// Parameters and MACs: MobileNet v1 (Howard et al. 2017, table 8: 4.2 M, 569 M), MobileNet v2
// (Sandler et al. 2018, table 5: 3.4 M, 300 M), Inception v1 as TF-slim builds it (6.6 M,
// 1.5 G), SqueezeNet v1.0 (Iandola et al. 2016, table 2: 1.25 M weights; 0.78 G MACs at 224),
// ResNet-50 v1 (He et al. 2015: 25.5 M; 4.1 G at 224, so 7.3 G at 299), Inception v4 (42.7 M
// parameters and 12.3 G multiply-adds at 299, as model zoos give it). Weights are counted
// over convolutions, which hold nearly all of them.
const Published kPublished[] = {
    {"mobilenet-quant8", 4.2, 0.569, {1, 1001}},     {"mobilenet-v2-quant8", 3.47, 0.300, {1, 1001}},
    // MobileNet v1 0.25-224 (Howard et al. 2017, table 7: 0.5 M parameters, 41 M MACs).
    {"mobilenet-0.25-quant8", 0.47, 0.041, {1, 1001}, 0.03},
    {"inception-v1-quant8", 6.6, 1.50, {1, 1001}},   {"squeezenet-quant8", 1.245, 0.777, {1, 1000}},
    {"resnet50-quant8", 25.5, 7.26, {1, 1001}},
    {"inception-v4-quant8", 42.7, 12.3, {1, 1001}},
    // SSD MobileNet v1 300 (Howard et al. 2017, table 13: 6.8 M parameters, 1.2 G MACs).
    {"mobilenet-ssd-quant8", 6.8, 1.2, {1, 10}, 0.045},
};

class ReferenceNetworkTest : public testing::TestWithParam<Published> {};

TEST_P(ReferenceNetworkTest, HasThePublishedShape) {
  const Published& published = GetParam();
  auto built = builtInModel(published.model);
  ASSERT_TRUE(built.ok()) << built.error().message;
  const hal::Model& model = built->model;
  ASSERT_TRUE(hal::validateModel(model).ok());
  double weights = 0, macs = 0;
  for (const auto& operation : model.main.operations) {
    if (operation.type != hal::OperationType::CONV_2D && operation.type != hal::OperationType::DEPTHWISE_CONV_2D) {
      continue;
    }
    const auto& filter = model.main.operands[operation.inputs[1]].dimensions;
    const double outputs = double(hal::elementCount(model.main.operands[operation.outputs[0]].dimensions));
    weights += double(hal::elementCount(filter));
    macs += outputs * (operation.type == hal::OperationType::CONV_2D ? filter[1] * filter[2] * filter[3]
                                                                     : filter[1] * filter[2]);
  }
  EXPECT_NEAR(weights / 1e6, published.weightsMillions, 0.02 * published.weightsMillions);
  EXPECT_NEAR(macs / 1e9, published.gigaMacs, published.macsTolerance * published.gigaMacs);
  EXPECT_EQ(model.main.operands[model.main.outputIndexes[0]].dimensions, published.output);
}

// Runs built-in model `name` once on edge16, with timing; its outputs are in `io`.
hal::Result<hal::ExecutionOutcome> runOnSimulatedNpu(const std::string& name, hal::RequestWithMemories* io) {
  NN_ASSIGN_OR_RETURN(const BuiltModel built, builtInModel(name));
  const auto device = emulator::createSimulatedNpu(sim::edgeNpuConfig());
  NN_ASSIGN_OR_RETURN(auto prepared, device->prepareModel(built.model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                                          hal::Priority::MEDIUM, std::nullopt, {}, {}, {}));
  NN_ASSIGN_OR_RETURN(*io, hal::makeRequest({built.input}, built.outputSizes));
  return prepared->execute(io->request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
}

TEST_P(ReferenceNetworkTest, RunsOnTheSimulatedNpu) {
  hal::RequestWithMemories io;
  auto outcome = runOnSimulatedNpu(GetParam().model, &io);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_GT(outcome->timing.timeOnDevice.value_or(hal::Duration(0)).count(), 0);
}

INSTANTIATE_TEST_SUITE_P(Networks, ReferenceNetworkTest, testing::ValuesIn(kPublished),
                         [](const testing::TestParamInfo<Published>& info) {
                           std::string name = info.param.model;
                           for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

// Both SSDs put the same head on their backbone's 19x19 and 10x10 maps: MobileNet v1's conv11
// (512 channels) and conv13 (1024); MobileNet v2's layer_15 expansion (576) and final 1x1
// convolution (1280). 1,917 anchors reach DETECTION_POSTPROCESSING with 91 classes.
TEST(BuiltInModelTest, TheSsdsHaveTheReferenceHeadOnTheirBackbonesFeatureMaps) {
  for (const auto& [name, firstMap, secondMap] :
       {std::tuple<const char*, uint32_t, uint32_t>{"mobilenet-ssd-quant8", 512, 1024},
        {"mobilenet-v2-ssd-quant8", 576, 1280}}) {
    auto built = builtInModel(name);
    ASSERT_TRUE(built.ok()) << built.error().message;
    const hal::Model& model = built->model;
    ASSERT_TRUE(hal::validateModel(model).ok()) << name;
    std::set<std::vector<uint32_t>> predictorInputs;
    const hal::Operation* postprocess = nullptr;
    for (const auto& operation : model.main.operations) {
      if (operation.type == hal::OperationType::DETECTION_POSTPROCESSING) postprocess = &operation;
      if (operation.type != hal::OperationType::CONV_2D) continue;
      const auto& out = model.main.operands[operation.outputs[0]].dimensions;
      // A class predictor: 3 or 6 anchors per position, 91 logits each.
      if (out[3] == 3 * 91 || out[3] == 6 * 91) predictorInputs.insert(model.main.operands[operation.inputs[0]].dimensions);
    }
    EXPECT_EQ(predictorInputs, (std::set<std::vector<uint32_t>>{{1, 19, 19, firstMap},
                                                                 {1, 10, 10, secondMap},
                                                                 {1, 5, 5, 512},
                                                                 {1, 3, 3, 256},
                                                                 {1, 2, 2, 256},
                                                                 {1, 1, 1, 128}}))
        << name;
    ASSERT_NE(postprocess, nullptr) << name;
    EXPECT_EQ(model.main.operands[postprocess->inputs[0]].dimensions, (std::vector<uint32_t>{1, 1917, 91})) << name;
    EXPECT_EQ(model.main.operands[postprocess->inputs[1]].dimensions, (std::vector<uint32_t>{1, 1917, 4})) << name;
  }
}

TEST(BuiltInModelTest, MobileNetV2SsdRunsOnTheSimulatedNpu) {
  hal::RequestWithMemories io;
  auto outcome = runOnSimulatedNpu("mobilenet-v2-ssd-quant8", &io);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  const int32_t detections = hal::fromMemory<int32_t>(io.outputs[3], 1)[0];
  EXPECT_GE(detections, 0);
  EXPECT_LE(detections, 10);
}

TEST(BuiltInModelTest, AnUnknownNameListsTheKnownOnes) {
  auto built = builtInModel("alexnet");
  ASSERT_FALSE(built.ok());
  EXPECT_NE(built.error().message.find("resnet50-quant8"), std::string::npos) << built.error().message;
  EXPECT_NE(built.error().message.find("not 'alexnet'"), std::string::npos) << built.error().message;
}

}  // namespace
}  // namespace nnremote::tools
