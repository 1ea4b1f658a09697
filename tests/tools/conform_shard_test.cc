// nnremote conform's shards: --shard=I/N and Bazel's sharding environment.
#include "tools/conform_shard.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

namespace nnremote::tools {
namespace {

TEST(ConformShardTest, ParsesIOfN) {
  auto shard = parseShard("3/8");
  ASSERT_TRUE(shard.ok()) << shard.error().message;
  EXPECT_EQ(shard->index, 3u);
  EXPECT_EQ(shard->count, 8u);
  EXPECT_TRUE(parseShard("0/1").ok());
}

TEST(ConformShardTest, RefusesShardsThatDoNotExist) {
  for (const std::string bad : {"8/8", "1/0", "-1/4", "1", "a/b", "1/2/3", "", "0/100001"}) {
    auto shard = parseShard(bad);
    ASSERT_FALSE(shard.ok()) << bad;
    EXPECT_EQ(shard.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
    EXPECT_NE(shard.error().message.find("--shard=" + bad), std::string::npos) << shard.error().message;
  }
}

TEST(ConformShardTest, TheFlagWinsOverBazelsEnvironment) {
  ::setenv("TEST_TOTAL_SHARDS", "4", 1);
  ::setenv("TEST_SHARD_INDEX", "1", 1);
  auto flagged = shardFromFlagOrEnvironment("2/3");
  ASSERT_TRUE(flagged.ok());
  EXPECT_EQ(flagged->index, 2u);
  EXPECT_EQ(flagged->count, 3u);
}

TEST(ConformShardTest, FollowsBazelsEnvironmentAndTouchesTheStatusFile) {
  const std::string status = std::string(::getenv("TEST_TMPDIR")) + "/shard-status";
  std::filesystem::remove(status);
  ::setenv("TEST_TOTAL_SHARDS", "4", 1);
  ::setenv("TEST_SHARD_INDEX", "1", 1);
  ::setenv("TEST_SHARD_STATUS_FILE", status.c_str(), 1);
  auto shard = shardFromFlagOrEnvironment("");
  ASSERT_TRUE(shard.ok()) << shard.error().message;
  EXPECT_EQ(shard->index, 1u);
  EXPECT_EQ(shard->count, 4u);
  EXPECT_TRUE(std::filesystem::exists(status));
  ::setenv("TEST_SHARD_INDEX", "4", 1);
  auto outside = shardFromFlagOrEnvironment("");
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.error().message.find("TEST_SHARD_INDEX=4"), std::string::npos);
  ::unsetenv("TEST_TOTAL_SHARDS");
  ::unsetenv("TEST_SHARD_INDEX");
  auto whole = shardFromFlagOrEnvironment("");
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->count, 1u);
}

}  // namespace
}  // namespace nnremote::tools
