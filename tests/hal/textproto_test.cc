// hal/textproto.h: a configuration's first parse error, with where it is, in the error itself;
// and nothing on stderr (libprotobuf would log it there otherwise).
#include "hal/textproto.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include <google/protobuf/duration.pb.h>

namespace nnremote::hal {
namespace {

using ::testing::HasSubstr;

TEST(TextProtoTest, ParsesAndSaysWhereItCannot) {
  google::protobuf::Duration settings;  // any message will do
  ASSERT_TRUE(parseTextProto("seconds: 3 nanos: 5", "ok.textproto", &settings).ok());
  EXPECT_EQ(settings.seconds(), 3);
  EXPECT_EQ(settings.nanos(), 5);

  const std::pair<std::string, std::string> cases[] = {
      {"seconds: 3\ncolour: 3\n",
       "a.textproto: line 2, column 7: Message type \"google.protobuf.Duration\" has no "
       "field named \"colour\"."},
      {"seconds: many", "a.textproto: line 1, column 10: Expected integer, got: many"},
      {"nanos: 99999999999", "a.textproto: line 1, column 8: Integer out of range (99999999999)"},
      {"seconds 3 {", "a.textproto: line 1, column "},
  };
  for (const auto& [text, expected] : cases) {
    ::testing::internal::CaptureStderr();
    const Status parsed = parseTextProto(text, "a.textproto", &settings);
    const std::string logged = ::testing::internal::GetCapturedStderr();
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.error().code, ErrorStatus::INVALID_ARGUMENT);
    EXPECT_THAT(parsed.error().message, HasSubstr(expected));
    EXPECT_EQ(logged, "") << "the error is ours to report";
  }
}

}  // namespace
}  // namespace nnremote::hal
