// tools/output_file.h: a report's path is checked before the work that fills it, a failure says
// why, and a run that fails before writing leaves the file system as it found it.
#include "tools/output_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace nnremote::tools {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "output_file_test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    directory_ = pattern;
  }
  void TearDown() override { fs::remove_all(directory_); }

  static std::string contents(const fs::path& path) {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
  }

  fs::path directory_;
};

TEST_F(OutputFileTest, WritesTheTextReplacingWhatWasThere) {
  const fs::path path = directory_ / "report.html";
  std::ofstream(path) << "an older, longer report";
  auto file = OutputFile::open("html", path.string());
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_TRUE(file->wanted());
  EXPECT_EQ(contents(path), "an older, longer report");  // opened, not yet truncated
  ASSERT_TRUE(file->write("new").ok());
  EXPECT_EQ(contents(path), "new");
}

TEST_F(OutputFileTest, APathThatCannotBeWrittenFailsAtOpenNamingFlagPathAndReason) {
  const std::string missing = (directory_ / "no-such-folder" / "x.json").string();
  auto file = OutputFile::open("json", missing);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_EQ(file.error().message, "--json: cannot write " + missing + ": No such file or directory");

  auto folder = OutputFile::open("html", directory_.string());
  ASSERT_FALSE(folder.ok());
  EXPECT_THAT(folder.error().message, HasSubstr("--html: cannot write " + directory_.string() + ": Is a directory"));
}

TEST_F(OutputFileTest, ARunThatNeverWritesLeavesNoNewFileAndKeepsAnOldOne) {
  const fs::path fresh = directory_ / "fresh.xml", old = directory_ / "old.xml";
  std::ofstream(old) << "last run's results";
  {
    auto freshFile = OutputFile::open("junit", fresh.string());
    auto oldFile = OutputFile::open("junit", old.string());
    ASSERT_TRUE(freshFile.ok() && oldFile.ok());
    EXPECT_TRUE(fs::exists(fresh));
    OutputFile moved(std::move(*freshFile));  // the moved-from one must not remove it
  }
  EXPECT_FALSE(fs::exists(fresh));
  EXPECT_EQ(contents(old), "last run's results");
}

TEST_F(OutputFileTest, AWrittenNewFileStays) {
  const fs::path path = directory_ / "trace.json";
  {
    auto file = OutputFile::open("json", path.string());
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE(file->write("{}").ok());
  }
  EXPECT_EQ(contents(path), "{}");
}

TEST_F(OutputFileTest, AFullDeviceIsAnErrorAtWrite) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  auto file = OutputFile::open("output", "/dev/full");  // a device: written as it is, not truncated
  ASSERT_TRUE(file.ok()) << file.error().message;
  auto written = file->write("some text");
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().message, "--output: cannot write /dev/full: No space left on device");
}

TEST_F(OutputFileTest, AnEmptyPathIsAnOutputNotAskedFor) {
  auto file = OutputFile::open("json", "");
  ASSERT_TRUE(file.ok());
  EXPECT_FALSE(file->wanted());
  EXPECT_TRUE(file->write("ignored").ok());
}

}  // namespace
}  // namespace nnremote::tools
