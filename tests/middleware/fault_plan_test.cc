// --fault=KIND:AFTER_N[:DEVICE] and --fault=KIND:op=OPERATION[:DEVICE] parsing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "middleware/fault_injection.h"

namespace nnremote::middleware {
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
  EXPECT_EQ(parseFaultPlan("kernel_hang:0")->kind, FaultKind::KERNEL_HANG);
  EXPECT_EQ(parseFaultPlan("slow:3")->kind, FaultKind::SLOW);
  EXPECT_EQ(parseFaultPlan("error:7")->kind, FaultKind::ERROR);
  EXPECT_EQ(parseFaultPlan("abort:1")->kind, FaultKind::ABORT);
  EXPECT_EQ(parseFaultPlan("segfault:1")->kind, FaultKind::SEGFAULT);
  EXPECT_EQ(parseFaultPlan("spin:1")->kind, FaultKind::SPIN);
  EXPECT_EQ(parseFaultPlan("overflow:0")->kind, FaultKind::OVERFLOW);
  EXPECT_EQ(parseFaultPlan("thread_overflow:0")->kind, FaultKind::THREAD_OVERFLOW);
  EXPECT_EQ(parseFaultPlan("allocate:1")->kind, FaultKind::ALLOCATE);
  EXPECT_EQ(parseFaultPlan("no_shapes:0")->kind, FaultKind::NO_SHAPES);
}

TEST(FaultPlanTest, AnOperationTriggerNamesARealOperation) {
  auto onConv = parseFaultPlan("segfault:op=CONV_2D:armnn-cpuref");
  ASSERT_TRUE(onConv.ok()) << onConv.error().message;
  EXPECT_EQ(onConv->kind, FaultKind::SEGFAULT);
  EXPECT_EQ(onConv->operation, "CONV_2D");
  EXPECT_EQ(onConv->device, "armnn-cpuref");
  auto unknown = parseFaultPlan("abort:op=CONV_5D");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.error().message, ::testing::HasSubstr("no operation is named 'CONV_5D'"));
}

TEST(FaultPlanTest, RefusesMalformedPlans) {
  for (const char* bad : {"", "crash", "crash:", "explode:1", "hang:-1", "hang:1x", "error:1:", "slow:99999999999999999999", "abort:op=:x"}) {
    auto plan = parseFaultPlan(bad);
    ASSERT_FALSE(plan.ok()) << bad;
    EXPECT_THAT(plan.error().message, ::testing::AnyOf(::testing::HasSubstr("expected KIND:AFTER_N[:DEVICE] or KIND:op=OPERATION[:DEVICE]"),
                                                        ::testing::HasSubstr("no operation is named")));
  }
}

}  // namespace
}  // namespace nnremote::middleware
