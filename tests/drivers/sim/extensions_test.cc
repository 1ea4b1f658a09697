// Vendor extensions in the simulator: AOSP's com.example.fibonacci as its header and example
// driver define it, nnremote's com.nnremote.transformer with its cost in the timing model, and
// what the device checks itself (which extensions it offers, operand types, sizes).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "drivers/sim/extensions/fibonacci.h"
#include "drivers/sim/extensions/transformer.h"
#include "drivers/sim/sim_device.h"
#include "hal/model_builder.h"
#include "hal/operand_types.h"

namespace nnremote::sim {
namespace {

using hal::ErrorStatus;
using hal::OperandType;
using ::testing::HasSubstr;

constexpr uint16_t kPrefix = 3;

OperandType extensionType(uint16_t prefix, uint16_t within) {
  return static_cast<OperandType>(static_cast<int32_t>((uint32_t{prefix} << 16) | within));
}
hal::OperationType extensionOperation(uint16_t prefix, uint16_t within) {
  return static_cast<hal::OperationType>(static_cast<int32_t>((uint32_t{prefix} << 16) | within));
}

std::vector<uint8_t> quantParams(double scale, int64_t zeroPoint) {
  const fibonacci::ExampleQuant64AsymmParams params{scale, zeroPoint};
  std::vector<uint8_t> bytes(sizeof(params));
  std::memcpy(bytes.data(), &params, sizeof(params));
  return bytes;
}

// n (EXAMPLE_INT64) -> EXAMPLE_TENSOR_QUANT64_ASYMM [N] with the given quantization.
hal::Model fibonacciModel(uint16_t prefix, uint32_t n, std::vector<uint8_t> params) {
  hal::ModelBuilder b;
  const uint32_t input = b.addInput(extensionType(prefix, fibonacci::EXAMPLE_INT64), {});
  const uint32_t output = b.addOutput(extensionType(prefix, fibonacci::EXAMPLE_TENSOR_QUANT64_ASYMM), {n});
  b.model().main.operands[output].extraParams = std::move(params);
  b.addOperation(extensionOperation(prefix, fibonacci::EXAMPLE_FIBONACCI), {input}, {output});
  hal::Model model = b.build();
  model.extensionNameToPrefix = {{fibonacci::kExtensionName, prefix}};
  return model;
}

hal::Result<hal::SharedPreparedModel> prepare(const hal::IDevice& device, const hal::Model& model) {
  return device.prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                             std::nullopt, {}, {}, {});
}

TEST(ExtensionsTest, TheDeviceReportsBothExtensionsWithTheirOperandTypes) {
  const auto device = SimDevice::create(edgeNpuConfig());
  const auto& extensions = device->getSupportedExtensions();
  ASSERT_EQ(extensions.size(), 2u);
  EXPECT_EQ(extensions[0].name, "com.example.fibonacci");
  const std::vector<hal::Extension::OperandTypeInformation> expected = {{0, false, 8}, {1, true, 8}};
  EXPECT_EQ(extensions[0].operandTypes, expected);
  EXPECT_EQ(extensions[1].name, "com.nnremote.transformer");
  EXPECT_TRUE(extensions[1].operandTypes.empty());
}

// FibonacciExtensionTest.ModelWithExtensionOperandTypes, with the same scale and zero point.
TEST(ExtensionsTest, FibonacciQuantizesAsTheExampleDriverDoes) {
  const auto device = SimDevice::create(edgeNpuConfig());
  constexpr uint32_t kN = 10;
  const hal::Model model = fibonacciModel(kPrefix, kN, quantParams(0.5, 10));
  auto supported = device->getSupportedOperations(model);
  ASSERT_TRUE(supported.ok()) << supported.error().message;
  EXPECT_EQ(*supported, std::vector<bool>{true});
  auto prepared = prepare(*device, model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<int64_t>({kN})}, {kN * 8});
  ASSERT_TRUE(io.ok());
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  const std::vector<uint64_t> fib = {1, 1, 2, 3, 5, 8, 13, 21, 34, 55};
  const std::vector<uint64_t> out = hal::fromMemory<uint64_t>(io->outputs[0], kN);
  for (uint32_t i = 0; i < kN; ++i) EXPECT_EQ(out[i], fib[i] / 0.5 + 10) << "element " << i;
  EXPECT_EQ(outcome->outputShapes[0].dimensions, std::vector<uint32_t>{kN});
  EXPECT_GT(outcome->timing.timeOnDevice.value_or(hal::Duration(0)).count(), 0);
}

TEST(ExtensionsTest, ARequestOfTheWrongSizeForAnExtensionTypeIsRefusedByTheDevice) {
  const auto device = SimDevice::create(edgeNpuConfig());
  auto prepared = prepare(*device, fibonacciModel(kPrefix, 4, quantParams(1, 0)));
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<int32_t>({4})}, {4 * 8});  // 4 bytes, not 8
  ASSERT_TRUE(io.ok());
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(outcome.error().message, HasSubstr("com.example.fibonacci:EXAMPLE_INT64 of dimensions [] needs 8 bytes"));
}

TEST(ExtensionsTest, AConstantOfAnExtensionTypeMustHaveItsSize) {
  const auto device = SimDevice::create(edgeNpuConfig());
  hal::ModelBuilder b;
  const int32_t four = 4;  // an EXAMPLE_INT64 needs 8 bytes
  const uint32_t input = b.addConstant(extensionType(kPrefix, fibonacci::EXAMPLE_INT64), {}, &four, sizeof(four));
  const uint32_t output = b.addOutput(OperandType::TENSOR_FLOAT32, {4});
  b.addOperation(extensionOperation(kPrefix, fibonacci::EXAMPLE_FIBONACCI), {input}, {output});
  hal::Model model = b.build();
  model.extensionNameToPrefix = {{fibonacci::kExtensionName, kPrefix}};
  auto prepared = prepare(*device, model);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.error().code, ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(prepared.error().message, HasSubstr("main.operands[0].location.length = 4"));
}

TEST(ExtensionsTest, ADeviceWithoutAnExtensionRefusesItAndReportsItsOperationsUnsupported) {
  NpuConfig npu = edgeNpuConfig();
  npu.clear_extensions();
  npu.add_extensions("com.nnremote.transformer");
  const auto device = SimDevice::create(npu);
  ASSERT_EQ(device->getSupportedExtensions().size(), 1u);
  const hal::Model model = fibonacciModel(kPrefix, 4, quantParams(1, 0));
  auto supported = device->getSupportedOperations(model);
  ASSERT_TRUE(supported.ok()) << supported.error().message;
  EXPECT_EQ(*supported, std::vector<bool>{false});
  auto prepared = prepare(*device, model);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.error().code, ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(prepared.error().message,
              HasSubstr("extensionNameToPrefix[0] names extension 'com.example.fibonacci', which nnremote-edge16 "
                        "does not support"));
}

TEST(ExtensionsTest, AConfigNamingAnUnknownExtensionIsRefused) {
  auto npu = parseNpuConfig(
      R"(vendor: "v" device_name: "d" clock_mhz: 100 systolic_array { rows: 4 columns: 4 }
         sram { ifmap_kib: 1 filter_kib: 1 ofmap_kib: 1 } vector_unit { lanes: 4 }
         extensions: "com.example.nope")",
      "test config");
  ASSERT_FALSE(npu.ok());
  EXPECT_THAT(npu.error().message, HasSubstr("extensions: 'com.example.nope' is not an extension the simulator"));
}

// x [batches, inputSize] through NNREMOTE_FULLY_CONNECTED_GELU, or FULLY_CONNECTED then TANH
// (a built-in activation of the same vector cost class), for comparing their cost.
hal::Model transformerLayer(bool fused, uint32_t batches, uint32_t inputSize, uint32_t units) {
  hal::ModelBuilder b;
  std::vector<float> weights(size_t(units) * inputSize);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = 0.01f * float(i % 13) - 0.05f;
  const uint32_t x = b.addInput(OperandType::TENSOR_FLOAT32, {batches, inputSize});
  const uint32_t w = b.addConstant(OperandType::TENSOR_FLOAT32, {units, inputSize}, weights);
  const uint32_t bias = b.addConstant(OperandType::TENSOR_FLOAT32, {units}, std::vector<float>(units, 0.1f));
  const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {batches, units});
  hal::Model model;
  if (fused) {
    b.addOperation(extensionOperation(1, transformer::NNREMOTE_FULLY_CONNECTED_GELU), {x, w, bias}, {out});
    model = b.build();
    model.extensionNameToPrefix = {{transformer::kExtensionName, 1}};
  } else {
    const uint32_t hidden = b.addTemporary(OperandType::TENSOR_FLOAT32, {batches, units});
    b.addOperation(hal::OperationType::FULLY_CONNECTED, {x, w, bias, b.addInt32(0)}, {hidden});
    b.addOperation(hal::OperationType::TANH, {hidden}, {out});
    model = b.build();
  }
  return model;
}

TEST(ExtensionsTest, FullyConnectedGeluComputesGeluOfTheProduct) {
  const auto device = SimDevice::create(edgeNpuConfig());
  hal::ModelBuilder b;
  const uint32_t x = b.addInput(OperandType::TENSOR_FLOAT32, {1, 2});
  const uint32_t w = b.addConstant(OperandType::TENSOR_FLOAT32, {2, 2}, std::vector<float>{1, 0, 0.5f, -1});
  const uint32_t bias = b.addConstant(OperandType::TENSOR_FLOAT32, {2}, std::vector<float>{0, 0.25f});
  const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {1, 2});
  b.addOperation(extensionOperation(7, transformer::NNREMOTE_FULLY_CONNECTED_GELU), {x, w, bias}, {out});
  hal::Model model = b.build();
  model.extensionNameToPrefix = {{transformer::kExtensionName, 7}};
  auto prepared = prepare(*device, model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({2, 3})}, {8});
  ASSERT_TRUE((*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  auto gelu = [](double v) { return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))); };
  const std::vector<float> got = hal::fromMemory<float>(io->outputs[0], 2);
  EXPECT_NEAR(got[0], gelu(2.0), 1e-5);
  EXPECT_NEAR(got[1], gelu(1.0 - 3.0 + 0.25), 1e-5);
}

TEST(ExtensionsTest, TheFusedOperationIsPricedAsOnePassOfTheArray) {
  const auto device = SimDevice::create(edgeNpuConfig());
  constexpr uint32_t kBatches = 16, kInput = 256, kUnits = 256;
  auto run = [&](bool fused) {
    auto prepared = prepare(*device, transformerLayer(fused, kBatches, kInput, kUnits));
    EXPECT_TRUE(prepared.ok()) << prepared.error().message;
    auto io = hal::makeRequest({std::vector<uint8_t>(size_t(kBatches) * kInput * 4, 0)}, {size_t(kBatches) * kUnits * 4});
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
    EXPECT_TRUE(outcome.ok()) << outcome.error().message;
    return *outcome;
  };
  const hal::ExecutionOutcome fused = run(true), separate = run(false);
  ASSERT_TRUE(fused.profile != nullptr && separate.profile != nullptr);
  ASSERT_EQ(fused.profile->operations.size(), 1u);
  const hal::OperationProfile& op = fused.profile->operations[0];
  EXPECT_EQ(op.unit, hal::ProfileUnit::ARRAY);
  EXPECT_EQ(op.macs, uint64_t{kBatches} * kInput * kUnits);
  // The same GEMM, but the pre-activation never goes to DRAM and back.
  EXPECT_EQ(op.macs, separate.profile->operations[0].macs);
  EXPECT_LT(op.dramReadBytes + op.dramWriteBytes,
            separate.profile->operations[0].dramReadBytes + separate.profile->operations[0].dramWriteBytes +
                separate.profile->operations[1].dramReadBytes + separate.profile->operations[1].dramWriteBytes);
  EXPECT_LT(*fused.timing.timeOnDevice, *separate.timing.timeOnDevice);
}

// OEM_OPERATION and its operand types are valid NN HAL 1.3, so the model is valid; the device
// reports the operation unsupported and refuses to prepare it, saying why.
TEST(ExtensionsTest, TheOemOperationIsValidButRefusedTruthfully) {
  const auto device = SimDevice::create(edgeNpuConfig());
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(OperandType::TENSOR_OEM_BYTE, {4});
  const uint8_t opaque[3] = {1, 2, 3};
  const uint32_t blob = b.addConstant(OperandType::OEM, {}, opaque, sizeof(opaque));
  const uint32_t out = b.addOutput(OperandType::TENSOR_OEM_BYTE, {4});
  b.addOperation(hal::OperationType::OEM_OPERATION, {in, blob}, {out});
  const hal::Model model = b.build();
  auto supported = device->getSupportedOperations(model);
  ASSERT_TRUE(supported.ok()) << supported.error().message;
  EXPECT_EQ(*supported, std::vector<bool>{false});
  auto prepared = prepare(*device, model);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.error().code, ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(prepared.error().message, HasSubstr("OEM_OPERATION is not supported: it is deprecated"));
}

}  // namespace
}  // namespace nnremote::sim
