// The calibration report prices every published network on its preset, and its page plots one
// point per network, with a marker per preset.
#include <gtest/gtest.h>

#include <algorithm>

#include "benchmarks/calibration.h"

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

}  // namespace
}  // namespace nnremote::benchmarks
