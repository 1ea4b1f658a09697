// VLOG tags: parsed strictly, off by default, and a line (when on) carries its tag, place and
// message in one write.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "hal/vlog.h"

namespace nnremote::hal {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

// What `body` writes to stderr.
template <typename Body>
std::string capturedStderr(Body body) {
  char path[] = "/tmp/vlog-test-XXXXXX";
  const int file = ::mkstemp(path);
  const int saved = ::dup(STDERR_FILENO);
  ::dup2(file, STDERR_FILENO);
  body();
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  ::close(file);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  ::unlink(path);
  return text.str();
}

TEST(VlogTest, TagsAreParsedStrictly) {
  EXPECT_TRUE(setVlogTags("compilation,wire").ok());
  EXPECT_TRUE(vlogOn(VlogTag::COMPILATION));
  EXPECT_TRUE(vlogOn(VlogTag::WIRE));
  EXPECT_FALSE(vlogOn(VlogTag::EXECUTION));
  auto bad = setVlogTags("execution,frobnicate");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(bad.error().message, HasSubstr("unknown VLOG tag 'frobnicate'"));
  EXPECT_TRUE(vlogOn(VlogTag::WIRE)) << "a bad list changes nothing";
  EXPECT_TRUE(setVlogTags("all").ok());
  for (auto tag : {VlogTag::COMPILATION, VlogTag::EXECUTION, VlogTag::BURST, VlogTag::FENCE, VlogTag::WIRE}) {
    EXPECT_TRUE(vlogOn(tag));
  }
  EXPECT_TRUE(setVlogTags("").ok());
  EXPECT_FALSE(vlogOn(VlogTag::WIRE));
}

TEST(VlogTest, OffWritesNothingAndNeverFormats) {
  ASSERT_TRUE(setVlogTags("wire").ok());
  int formatted = 0;
  auto expensive = [&] { return ++formatted; };
  const std::string out = capturedStderr([&] { NN_VLOG(EXECUTION) << "never " << expensive(); });
  EXPECT_EQ(out, "");
  EXPECT_EQ(formatted, 0);
}

TEST(VlogTest, OnWritesOneLineWithTagPlaceAndMessage) {
  ASSERT_TRUE(setVlogTags("execution").ok());
  const std::string out = capturedStderr([] { NN_VLOG(EXECUTION) << "execute took " << 42 << " us"; });
  EXPECT_THAT(out, MatchesRegex("nnremote V execution [0-9:.]+ [0-9]+:[0-9]+ vlog_test\\.cc:[0-9]+\\] execute took 42 us\n"));
  ASSERT_TRUE(setVlogTags("").ok());
}

}  // namespace
}  // namespace nnremote::hal
