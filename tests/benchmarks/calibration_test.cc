// The calibration report prices every published network on its preset, and its page plots one
// point per network, with a marker per preset. Each preset's operation overhead is the one its
// published latencies give, and the Edge TPU's host CPU costs what Coral's table gives.
#include <gtest/gtest.h>

#include <algorithm>

#include "benchmarks/calibration.h"
#include "benchmarks/host_cpu_share.h"
#include "benchmarks/overhead_fit.h"

namespace nnremote::benchmarks {
namespace {

TEST(CalibrationTest, EveryPublishedNetworkIsPricedOnItsPreset) {
  auto rows = calibrate();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), publishedLatencies().size());
  for (const CalibrationRow& row : *rows) {
    EXPECT_GT(row.simulatedMilliseconds, 0) << row.published.network;
    EXPECT_DOUBLE_EQ(row.ratio(), row.simulatedMilliseconds / row.published.milliseconds);
  }
  // ResNet-50's parameters do not fit the Edge TPU's 8 MiB cache and stream over PCIe in every
  // inference; MobileNet v1's fit. That is what makes it an order of magnitude slower.
  auto row = [&](const std::string& model) {
    for (const CalibrationRow& candidate : *rows) {
      if (candidate.published.model == model) return candidate;
    }
    ADD_FAILURE() << "no row for " << model;
    return CalibrationRow{};
  };
  const CalibrationRow mobilenet = row("mobilenet-quant8");
  const CalibrationRow resnet = row("resnet50-quant8");
  EXPECT_GT(resnet.simulatedMilliseconds, 10 * mobilenet.simulatedMilliseconds);

  const std::string table = calibrationTable(*rows);
  EXPECT_NE(table.find("ResNet-50 V1 299"), std::string::npos) << table;
  const std::string html = calibrationHtml(*rows);
  // One marker per network, a shape per preset, and a legend naming the presets.
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = html.find(what); at != std::string::npos; at = html.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("class=\"model\""), rows->size());
  auto networksOn = [&](const std::string& preset) {
    return size_t(std::count_if(rows->begin(), rows->end(),
                                [&](const CalibrationRow& r) { return r.published.preset == preset; }));
  };
  EXPECT_EQ(count("<circle class=\"model\""), networksOn("edgetpu"));  // the first preset's marker
  EXPECT_EQ(count("<rect class=\"model\""), networksOn("vs680"));      // the second's
  EXPECT_EQ(count("class=\"legend\""), 2u);
  EXPECT_NE(html.find(">vs680</text>"), std::string::npos);
  EXPECT_NE(html.find("0.75×"), std::string::npos);
  EXPECT_NE(html.find("1.25×"), std::string::npos);
}

TEST(OverheadFitTest, RecoversTheOverheadThatMadeThePublishedTimes) {
  // Published times made with 5,000 cycles per operation: the fit finds exactly that.
  std::vector<NetworkCost> exact = {{"a", 100000, 30, 100000 + 30 * 5000.0},
                                    {"b", 2000000, 70, 2000000 + 70 * 5000.0},
                                    {"c", 50000, 10, 50000 + 10 * 5000.0}};
  EXPECT_EQ(fitOverheadCycles(exact), 5000u);
  // Networks that want different overheads get one between them; one already slower than
  // published wants none.
  std::vector<NetworkCost> split = {{"a", 100000, 10, 100000 + 10 * 1000.0}, {"b", 100000, 10, 100000 + 10 * 3000.0}};
  const uint64_t between = fitOverheadCycles(split);
  EXPECT_GT(between, 1000u);
  EXPECT_LT(between, 3000u);
  EXPECT_EQ(fitOverheadCycles({{"slow", 200000, 10, 100000}}), 0u);
}

TEST(OverheadFitTest, EveryPresetSetsTheOverheadItsPublishedLatenciesGive) {
  auto fits = fitOperationOverheads();
  ASSERT_TRUE(fits.ok()) << fits.error().message;
  auto rows = calibrate();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(fits->size(), 2u);
  for (const OverheadFit& fit : *fits) {
    // If the timing model changes, the presets are fitted again: `calibration_report --fit`.
    EXPECT_EQ(fit.presetCycles, fit.cycles) << fit.preset << ": run calibration_report --fit and update its preset";
    EXPECT_GT(fit.cycles, 0u) << fit.preset;
    EXPECT_EQ(fit.leaveOneOut.size(), fit.fitted.size()) << fit.preset;
  }
  EXPECT_EQ((*fits)[0].preset, "edgetpu");
  EXPECT_EQ((*fits)[0].fitted.size(), 7u) << "every network of the Edge TPU's table, the SSDs included";
  // With it, every network is within ±25%.
  for (const CalibrationRow& row : *rows) {
    EXPECT_GE(row.ratio(), 0.75) << row.published.preset << " " << row.published.network;
    EXPECT_LE(row.ratio(), 1.25) << row.published.preset << " " << row.published.network;
  }
  const std::string report = overheadFitReport(*fits);
  EXPECT_NE(report.find("edgetpu: operation_overhead_cycles " + std::to_string((*fits)[0].cycles)), std::string::npos)
      << report;
}

TEST(HostCpuShareTest, TheTableGivesTheCpuShareItsColumnsImply) {
  // A network the CPU does not touch runs as fast on either host; the difference is what the
  // slower CPU adds. Here the board's CPU is 4x slower, so a 3 ms difference is a 4 ms share.
  const HostShareEvidence evidence{"edgetpu", "n", "m", 10, 7, 400, 100};
  EXPECT_DOUBLE_EQ(evidence.hostCpuMs(), 4.0);
}

TEST(HostCpuShareTest, TheEdgeTpuPresetsHostCpuCostsWhatMobileNetV1SsdsRowGives) {
  auto costs = deriveHostCpuCosts();
  ASSERT_TRUE(costs.ok()) << costs.error().message;
  ASSERT_EQ(costs->size(), 2u);
  const HostCpuCost& v1 = (*costs)[0];
  const HostCpuCost& v2 = (*costs)[1];
  EXPECT_EQ(v1.evidence.network, "MobileNet v1 SSD");
  EXPECT_NEAR(v1.evidence.hostCpuMs(), 6.51, 0.005);
  // The two SSDs end alike: the same host work.
  EXPECT_GT(v1.workElements, 1e6);
  EXPECT_DOUBLE_EQ(v1.workElements, v2.workElements);
  // The preset writes it to two decimals; if the host work changes, derive it again
  // (`calibration_report --fit`) and update the preset.
  EXPECT_NEAR(v1.presetCyclesPerElement, v1.cyclesPerElement, 0.005)
      << "run calibration_report --fit and update edgetpu's host_cpu.cycles_per_element";
  // MobileNet v2 SSD's row implies a larger share for the same work: the method's spread, which
  // docs/timing.md reports.
  EXPECT_GT(v2.cyclesPerElement, v1.cyclesPerElement);
  const std::string report = hostCpuCostReport(*costs);
  EXPECT_NE(report.find("MobileNet v1 SSD's host CPU share is (11 - 6.5) / (1 - 109 / 353) = 6.51 ms"),
            std::string::npos)
      << report;
}

}  // namespace
}  // namespace nnremote::benchmarks
