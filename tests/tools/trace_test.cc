// A MobileNet v1 execution through the proxy yields a profile with one slice per operation, and
// the Chrome trace rendered from it follows the trace-event format.
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "hal/model_builder.h"
#include "tests/hal/device_factories.h"
#include "tools/models/mobilenet_v1.h"
#include "tools/trace_render.h"

namespace nnremote::tools {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

const Value& field(const Struct& object, const std::string& name) {
  static const Value* const kMissing = new Value();
  const auto it = object.fields().find(name);
  return it == object.fields().end() ? *kMissing : it->second;
}

class TraceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (const auto& factory : testing::allDeviceFactories()) {
      if (factory.name != "ThroughProxy") continue;
      const testing::DeviceUnderTest dut = factory.create();
      const BuiltModel mobilenet = buildMobileNetV1(Precision::FLOAT32);
      operationCount_ = mobilenet.model.main.operations.size();
      auto prepared = dut.device->prepareModel(mobilenet.model, hal::ExecutionPreference::SUSTAINED_SPEED,
                                               hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
      ASSERT_TRUE(prepared.ok()) << prepared.error().message;
      auto io = hal::makeRequest({mobilenet.input}, mobilenet.outputSizes);
      auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
      ASSERT_TRUE(outcome.ok()) << outcome.error().message;
      ASSERT_TRUE(outcome->profile) << "the proxy must carry the device's profile";
      profile_ = new hal::ExecutionProfile(*outcome->profile);
      timeOnDevice_ = *outcome->timing.timeOnDevice;
      // The classifier's softmax sums to one: the network really ran.
      const auto probabilities = hal::fromMemory<float>(io->outputs[0], 1001);
      double sum = 0;
      for (float p : probabilities) sum += p;
      EXPECT_NEAR(sum, 1.0, 1e-3);
    }
  }

  static inline hal::ExecutionProfile* profile_ = nullptr;
  static inline size_t operationCount_ = 0;
  static inline hal::Duration timeOnDevice_{0};
};

TEST_F(TraceTest, ProfileHasOneEntryPerOperationBackToBack) {
  ASSERT_NE(profile_, nullptr);
  ASSERT_EQ(profile_->operations.size(), operationCount_);
  EXPECT_EQ(profile_->deviceName, "nnremote-edge16");
  uint64_t cycle = 0;
  for (const auto& op : profile_->operations) {
    EXPECT_EQ(op.startCycle, cycle);
    EXPECT_EQ(op.totalCycles, op.computeCycles + op.stallCycles + op.overheadCycles);
    cycle += op.totalCycles;
    if (op.type == hal::OperationType::CONV_2D) {
      EXPECT_EQ(op.unit, hal::ProfileUnit::ARRAY);
      EXPECT_GT(op.macs, 0u);
      EXPECT_GT(op.mappingEfficiency, 0.0);
      EXPECT_LE(op.overallUtilization, op.computeUtilization + 1e-9);
    } else {
      EXPECT_EQ(op.unit, hal::ProfileUnit::VECTOR);
    }
  }
  EXPECT_EQ(cycle, profile_->totalCycles);
  EXPECT_EQ(timeOnDevice_.count(), static_cast<int64_t>(double(cycle) * 1e9 / profile_->clockHz));
  EXPECT_GT(profile_->hostWallNanoseconds, 0u);
}

TEST_F(TraceTest, ChromeTraceFollowsTheTraceEventFormat) {
  ASSERT_NE(profile_, nullptr);
  Struct trace;
  const auto status = google::protobuf::util::JsonStringToMessage(toChromeTraceJson(*profile_), &trace);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const Value& events = field(trace, "traceEvents");
  ASSERT_EQ(events.kind_case(), Value::kListValue);
  std::set<std::string> threadNames;
  size_t operationSlices = 0;
  for (const Value& event : events.list_value().values()) {
    ASSERT_EQ(event.kind_case(), Value::kStructValue);
    const Struct& e = event.struct_value();
    ASSERT_EQ(field(e, "name").kind_case(), Value::kStringValue);
    ASSERT_EQ(field(e, "pid").kind_case(), Value::kNumberValue);
    ASSERT_EQ(field(e, "tid").kind_case(), Value::kNumberValue);
    const std::string phase = field(e, "ph").string_value();
    ASSERT_TRUE(phase == "X" || phase == "M") << phase;
    if (phase == "M") {
      if (field(e, "name").string_value() == "thread_name") {
        threadNames.insert(field(field(e, "args").struct_value(), "name").string_value());
      }
      continue;
    }
    ASSERT_EQ(field(e, "ts").kind_case(), Value::kNumberValue);
    ASSERT_EQ(field(e, "dur").kind_case(), Value::kNumberValue);
    EXPECT_GE(field(e, "ts").number_value(), 0.0);
    EXPECT_GE(field(e, "dur").number_value(), 0.0);
    const std::string category = field(e, "cat").string_value();
    if (category == "array" || category == "vector") {
      ++operationSlices;
      const Struct& args = field(e, "args").struct_value();
      for (const char* key : {"total_cycles", "stall_cycles", "overhead_cycles", "utilization_percent", "dram_read_bytes",
                              "sram_read_bytes", "mapping_efficiency_percent"}) {
        EXPECT_EQ(field(args, key).kind_case(), Value::kNumberValue) << key;
      }
    }
  }
  EXPECT_EQ(operationSlices, operationCount_);
  EXPECT_THAT(threadNames, ::testing::IsSupersetOf({"systolic array", "vector unit", "DMA / DRAM"}));
  EXPECT_EQ(field(field(trace, "otherData").struct_value(), "host_wall_ns").number_value(),
            double(profile_->hostWallNanoseconds));
}

TEST_F(TraceTest, HtmlTimelineIsSelfContained) {
  ASSERT_NE(profile_, nullptr);
  const std::string html = toHtmlTimeline(*profile_, "MobileNet v1");
  EXPECT_THAT(html, ::testing::StartsWith("<!DOCTYPE html>"));
  EXPECT_THAT(html, ::testing::Not(::testing::HasSubstr("http://www.w3.org/1999")));
  EXPECT_THAT(html, ::testing::Not(::testing::HasSubstr("<script src")));
  size_t slices = 0;
  for (size_t at = html.find("<g class=\"op\">"); at != std::string::npos;
       at = html.find("<g class=\"op\">", at + 1)) {
    ++slices;
  }
  EXPECT_EQ(slices, operationCount_);
}

// An operation the host's CPU ran has its own track, category and timeline row.
TEST(TraceRenderTest, HostCpuOperationsHaveTheirOwnTrackAndRow) {
  hal::ExecutionProfile profile;
  profile.deviceName = "nnremote-edgetpu";
  profile.clockHz = 480e6;
  hal::OperationProfile conv;
  conv.type = hal::OperationType::CONV_2D;
  conv.unit = hal::ProfileUnit::ARRAY;
  conv.computeCycles = conv.totalCycles = 1000;
  hal::OperationProfile postprocess;
  postprocess.operationIndex = 1;
  postprocess.type = hal::OperationType::DETECTION_POSTPROCESSING;
  postprocess.unit = hal::ProfileUnit::HOST;
  postprocess.startCycle = 1000;
  postprocess.computeCycles = 3000;
  postprocess.stallCycles = 500;
  postprocess.totalCycles = 3500;
  profile.operations = {conv, postprocess};
  profile.totalCycles = 4500;
  profile.hostCpuCycles = 3500;

  Struct trace;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(toChromeTraceJson(profile), &trace).ok());
  double hostCpuTrack = -1, postprocessTrack = -2, convTrack = -3;
  std::string postprocessCategory;
  for (const Value& event : field(trace, "traceEvents").list_value().values()) {
    const Struct& e = event.struct_value();
    const std::string name = field(e, "name").string_value();
    if (name == "thread_name" && field(field(e, "args").struct_value(), "name").string_value() == "host CPU") {
      hostCpuTrack = field(e, "tid").number_value();
    }
    if (name == "DETECTION_POSTPROCESSING #1") {
      postprocessTrack = field(e, "tid").number_value();
      postprocessCategory = field(e, "cat").string_value();
    }
    if (name == "CONV_2D #0") convTrack = field(e, "tid").number_value();
  }
  EXPECT_EQ(postprocessTrack, hostCpuTrack);
  EXPECT_NE(convTrack, hostCpuTrack);
  EXPECT_EQ(postprocessCategory, "host");

  const std::string html = toHtmlTimeline(profile, "SSD");
  EXPECT_THAT(html, ::testing::HasSubstr(">host CPU</text>"));
  EXPECT_THAT(html, ::testing::HasSubstr("fill=\"#9c755f\""));  // the host CPU row's colour
}

}  // namespace
}  // namespace nnremote::tools
