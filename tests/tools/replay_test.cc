// npu_emulator --record and nnremote replay, in process: a recording replays as matched on the
// device it was made on; a changed output, a changed status, a file cut short and a file that is
// no recording are found and reported; and the HTML report plots every timed model.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "middleware/fault_injection.h"
#include "middleware/recording_device.h"
#include "emulator/simulated_npus.h"
#include "hal/model_builder.h"
#include "testing/add_model.h"
#include "tools/recording_reader.h"
#include "tools/replay.h"
#include "tools/replay_report.h"

namespace nnremote::tools {
namespace {

using ::testing::HasSubstr;

std::string freshDirectory(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
  std::filesystem::remove_all(path);
  return path;
}

// Records three ADD executions on edge16 (the second fails if `faultAtSecond`) and returns the folder.
std::string recordAdds(const std::string& name, bool faultAtSecond = false) {
  const std::string directory = freshDirectory(name);
  auto recorder = middleware::Recorder::open(directory);
  EXPECT_TRUE(recorder.ok());
  std::vector<hal::SharedDevice> devices = {emulator::createSimulatedNpu(sim::edgeNpuConfig())};
  std::unique_ptr<middleware::FaultInjector> faults;
  if (faultAtSecond) {
    faults = std::make_unique<middleware::FaultInjector>(middleware::FaultPlan{middleware::FaultKind::ERROR, 1, ""});
    devices = faults->wrap(std::move(devices));
  }
  const auto device = middleware::recordDevices(devices, *recorder).front();
  auto prepared = device->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                       hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  EXPECT_TRUE(prepared.ok());
  for (float scale : {1.0f, 2.0f, 3.0f}) {
    auto io = hal::makeRequest({hal::toBytes<float>({scale, 2}), hal::toBytes<float>({10, 20 * scale})}, {8});
    EXPECT_TRUE(io.ok());
    // The client does not ask for timing; the recording has it anyway.
    (void)(*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  }
  return directory;
}

std::vector<hal::SharedDevice> freshEdge16() { return {emulator::createSimulatedNpu(sim::edgeNpuConfig())}; }

TEST(ReplayTest, ARecordingMatchesOnTheDeviceItWasMadeOn) {
  const std::string recording = recordAdds("matching");
  for (bool exact : {false, true}) {
    auto summary = replayRecording(recording, freshEdge16(), {"", exact});
    ASSERT_TRUE(summary.ok()) << summary.error().message;
    EXPECT_EQ(summaryLine(*summary), "3 replayed, 3 matched, 0 differed");
    ASSERT_EQ(summary->models.size(), 1u);
    EXPECT_THAT(summary->models[0].label, HasSubstr("#1: ADD"));
    EXPECT_EQ(summary->models[0].timedExecutions, 3u) << "recorded timing although the client did not ask";
    EXPECT_GT(summary->models[0].recordedDeviceUs, 0);
  }
  // The recorded device name must exist on the target, unless --device says where to go.
  auto elsewhere = replayRecording(recording, {emulator::createSimulatedNpu(sim::largeNpuConfig())}, {});
  ASSERT_FALSE(elsewhere.ok());
  EXPECT_THAT(elsewhere.error().message, HasSubstr("no device named nnremote-edge16 to replay on (the recorded device; "
                                                  "pick one with --device); the target has: nnremote-large128"));
  auto onLarge = replayRecording(recording, {emulator::createSimulatedNpu(sim::largeNpuConfig())},
                                 {"nnremote-large128", false});
  ASSERT_TRUE(onLarge.ok()) << onLarge.error().message;
  EXPECT_EQ(onLarge->matched, 3u);
  EXPECT_EQ(onLarge->models[0].replayDevice, "nnremote-large128");
}

TEST(ReplayTest, AChangedStatusOrOutputIsADifference) {
  auto failed = replayRecording(recordAdds("faulty", /*faultAtSecond=*/true), freshEdge16(), {});
  ASSERT_TRUE(failed.ok()) << failed.error().message;
  EXPECT_EQ(summaryLine(*failed), "3 replayed, 2 matched, 1 differed");
  ASSERT_EQ(failed->differences.size(), 1u);
  EXPECT_THAT(failed->differences[0], HasSubstr("status NO_ERROR, recorded GENERAL_FAILURE"));

  // Rewrite a recording with the first execution's first output changed.
  const std::string original = recordAdds("original");
  const std::string changed = freshDirectory("changed");
  {
    auto reader = RecordingReader::open(original);
    ASSERT_TRUE(reader.ok());
    auto writer = middleware::Recorder::open(changed);
    ASSERT_TRUE(writer.ok());
    wire::RecordEntry entry;
    bool first = true;
    while ((*reader)->next(&entry)) {
      if (entry.has_execution() && first) {
        const float wrong[2] = {99, 22};
        entry.mutable_execution()->mutable_outcome()->set_output_data(0, std::string(reinterpret_cast<const char*>(wrong), sizeof wrong));
        first = false;
      }
      (*writer)->write(entry);
    }
  }
  auto summary = replayRecording(changed, freshEdge16(), {});
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->differed, 1u);
  EXPECT_THAT(summary->differences[0], HasSubstr("output 0 element 0: got 11, want 99"));
}

TEST(ReplayTest, AFileCutShortReplaysWhatItHoldsAndSaysSo) {
  const std::string recording = recordAdds("cut");
  const auto file = std::filesystem::directory_iterator(recording)->path();
  std::filesystem::resize_file(file, std::filesystem::file_size(file) - 3);  // inside the last entry
  auto summary = replayRecording(recording, freshEdge16(), {});
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->replayed, 3u) << "only the last entry (the model's release) was cut";
  ASSERT_EQ(summary->warnings.size(), 1u);
  EXPECT_THAT(summary->warnings[0], HasSubstr("cut short after"));
  EXPECT_FALSE(replayRecording(freshDirectory("empty"), freshEdge16(), {}).ok());
}

TEST(ReplayTest, OneFileOfARecordingReplaysAndAFileThatIsNoRecordingIsSkippedOrRefused) {
  const std::string recording = recordAdds("one_file");
  const std::string file = std::filesystem::directory_iterator(recording)->path().string();
  auto single = replayRecording(file, freshEdge16(), {});
  ASSERT_TRUE(single.ok()) << single.error().message;
  EXPECT_EQ(summaryLine(*single), "3 replayed, 3 matched, 0 differed");

  std::ofstream(recording + "/zz-junk.nnrec") << "this is not a recording, though it is named like one\n";
  auto withJunk = replayRecording(recording, freshEdge16(), {});
  ASSERT_TRUE(withJunk.ok()) << withJunk.error().message;
  EXPECT_EQ(withJunk->matched, 3u);
  ASSERT_EQ(withJunk->warnings.size(), 1u);
  EXPECT_THAT(withJunk->warnings[0], HasSubstr("zz-junk.nnrec: holds no readable entry (not an nnremote recording"));

  std::filesystem::remove(file);
  auto onlyJunk = replayRecording(recording, freshEdge16(), {});
  ASSERT_FALSE(onlyJunk.ok());
  EXPECT_THAT(onlyJunk.error().message, HasSubstr("nothing in it can be read: "));
  auto missing = replayRecording(file, freshEdge16(), {});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message, HasSubstr("--recording=" + file + ": No such file or directory"));
}

TEST(ReplayTest, TheReportPlotsEveryTimedModel) {
  auto summary = replayRecording(recordAdds("report"), freshEdge16(), {});
  ASSERT_TRUE(summary.ok());
  const std::string html = renderReplayHtml(*summary, "rec", "target");
  EXPECT_THAT(html, HasSubstr("3 replayed, 3 matched, 0 differed"));
  EXPECT_THAT(html, HasSubstr("<svg id=\"timing-plot\""));
  size_t circles = 0;
  for (size_t at = html.find("<circle class=\"model\""); at != std::string::npos;
       at = html.find("<circle class=\"model\"", at + 1)) {
    ++circles;
  }
  EXPECT_EQ(circles, 1u);
}

}  // namespace
}  // namespace nnremote::tools
