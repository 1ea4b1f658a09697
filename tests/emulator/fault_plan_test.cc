// --fault=KIND:AFTER_N[:DEVICE] parsing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "emulator/fault_injection.h"

namespace nnremote::emulator {
namespace {

TEST(FaultPlanTest, ParsesEveryKindWithAndWithoutADevice) {
  auto crash = parseFaultPlan("crash:100");
  ASSERT_TRUE(crash.ok());
  EXPECT_EQ(crash->kind, FaultKind::CRASH);
  EXPECT_EQ(crash->afterN, 100u);
  EXPECT_EQ(crash->device, "");
  auto hang = parseFaultPlan("hang:0:nnremote-edge16");
  ASSERT_TRUE(hang.ok());
  EXPECT_EQ(hang->kind, FaultKind::HANG);
  EXPECT_EQ(hang->afterN, 0u);
  EXPECT_EQ(hang->device, "nnremote-edge16");
  EXPECT_EQ(parseFaultPlan("slow:3")->kind, FaultKind::SLOW);
  EXPECT_EQ(parseFaultPlan("error:7")->kind, FaultKind::ERROR);
}

TEST(FaultPlanTest, RefusesMalformedPlans) {
  for (const char* bad : {"", "crash", "crash:", "explode:1", "hang:-1", "hang:1x", "error:1:", "slow:99999999999999999999"}) {
    auto plan = parseFaultPlan(bad);
    ASSERT_FALSE(plan.ok()) << bad;
    EXPECT_THAT(plan.error().message, ::testing::HasSubstr("expected crash|hang|slow|error:AFTER_N[:DEVICE]"));
  }
}

}  // namespace
}  // namespace nnremote::emulator
