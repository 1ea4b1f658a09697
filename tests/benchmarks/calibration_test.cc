// The calibration report prices every published network on its preset, and its page plots one
// point per network.
#include <gtest/gtest.h>

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
  size_t circles = 0;
  for (size_t at = html.find("<circle"); at != std::string::npos; at = html.find("<circle", at + 1)) ++circles;
  EXPECT_EQ(circles, rows->size());
  EXPECT_NE(html.find("0.75×"), std::string::npos);
  EXPECT_NE(html.find("1.25×"), std::string::npos);
}

}  // namespace
}  // namespace nnremote::benchmarks
