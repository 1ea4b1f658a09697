// SCALE-Sim's own files in, its report layout out.
#include "tools/scalesim_compat.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nnremote::tools {
namespace {

using ::testing::HasSubstr;

constexpr const char* kScaleCfg = R"([general]
run_name = scale_example_run_32x32_ws

[architecture_presets]
ArrayHeight:    32
ArrayWidth:     32
IfmapSramSzkB:   64
FilterSramSzkB:  64
OfmapSramSzkB:   64
IfmapOffset:    0
FilterOffset:   10000000
OfmapOffset:    20000000
Bandwidth : 10
Dataflow : ws
MemoryBanks:   1
ReadRequestBuffer: 512
WriteRequestBuffer: 512

[run_presets]
InterfaceBandwidth: CALC
UseRamulatorTrace: False
)";

TEST(ScaleSimCompatTest, ReadsItsConfigUnchanged) {
  auto npu = parseScaleSimConfig(kScaleCfg, "scale.cfg");
  ASSERT_TRUE(npu.ok()) << npu.error().message;
  EXPECT_EQ(npu->systolic_array().rows(), 32u);
  EXPECT_EQ(npu->systolic_array().dataflow(), sim::WEIGHT_STATIONARY);
  EXPECT_EQ(npu->sram().filter_kib(), 64u);
  EXPECT_EQ(npu->dram().bytes_per_cycle(), 0.0) << "CALC means stall-free";
  EXPECT_TRUE(npu->scalesim_off_by_one());

  std::string user = kScaleCfg;
  user.replace(user.find("CALC"), 4, "USER");
  EXPECT_EQ(parseScaleSimConfig(user, "u.cfg")->dram().bytes_per_cycle(), 10.0);

  std::string broken = kScaleCfg;
  broken.replace(broken.find("Dataflow : ws"), 13, "Dataflow : xy");
  auto bad = parseScaleSimConfig(broken, "b.cfg");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("Dataflow 'xy'"));
  EXPECT_THAT(parseScaleSimConfig("[general]\n", "e.cfg").error().message, HasSubstr("ArrayHeight is missing"));
}

TEST(ScaleSimCompatTest, ReproducesAlexNetConv1Golden) {
  auto npu = parseScaleSimConfig(kScaleCfg, "scale.cfg");
  auto layers = parseScaleSimTopology(
      "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
      "Conv1, 224, 224, 11, 11, 3, 96, 4,\n",
      /*gemm=*/false, "alexnet.csv");
  ASSERT_TRUE(layers.ok()) << layers.error().message;
  ASSERT_EQ(layers->size(), 1u);
  EXPECT_EQ((*layers)[0].gemm.m, 55u * 55);  // ceil((224 - 11 + 4) / 4) = 55 per side
  const std::string report = computeReport(*layers, *npu);
  EXPECT_THAT(report, HasSubstr("LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,\n"));
  EXPECT_THAT(report, HasSubstr("\n0, 112283, 0, "));
}

TEST(ScaleSimCompatTest, ReadsGemmTopologies) {
  auto npu = parseScaleSimConfig(kScaleCfg, "scale.cfg");
  auto layers = parseScaleSimTopology("Layer, M, N, K,\ngemm1, 256, 128, 256,\n", /*gemm=*/true, "g.csv");
  ASSERT_TRUE(layers.ok());
  EXPECT_THAT(computeReport(*layers, *npu), HasSubstr("\n0, 11199, 0, "));
  auto bad = parseScaleSimTopology("gemm1, 256, x, 256,\n", true, "g.csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("g.csv:1"));
}

// Sizes no real layer has would overflow the timing model's counts (a 4e9-square ifmap gave a
// "Mapping Efficiency" of 9509459063%); they are refused, naming the line.
TEST(ScaleSimCompatTest, ALayerTooLargeToPriceIsRefused) {
  const char* header =
      "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n";
  for (const char* layer : {"big, 4000000000, 4000000000, 3, 3, 4000000000, 4000000000, 1,\n",
                            "big, 100000, 100000, 3, 3, 10000, 10000, 1,\n",
                            "big, 9000000000000000000, 9000000000000000000, 1, 1, 1, 1, 1,\n"}) {
    auto layers = parseScaleSimTopology(std::string(header) + layer, /*gemm=*/false, "t.csv");
    ASSERT_FALSE(layers.ok()) << layer;
    EXPECT_THAT(layers.error().message, HasSubstr("t.csv:2: the layer is too large to price")) << layer;
  }
  auto gemm = parseScaleSimTopology("g, 1048576, 1048576, 1048576,\n", /*gemm=*/true, "g.csv");
  ASSERT_FALSE(gemm.ok());
  EXPECT_THAT(gemm.error().message,
              HasSubstr("M x N x K = 1048576 x 1048576 x 1048576 multiply-accumulates, past 2^50"));
  // The largest a real network has (ResNet-50's largest layers are some 2^28) still prices.
  EXPECT_TRUE(parseScaleSimTopology("g, 1048576, 1024, 1024,\n", true, "g.csv").ok());
}

}  // namespace
}  // namespace nnremote::tools
