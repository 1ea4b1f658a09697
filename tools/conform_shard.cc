#include "tools/conform_shard.h"

#include <cstdlib>
#include <fstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace nnremote::tools {

hal::Result<Shard> parseShard(const std::string& text) {
  const std::pair<std::string, std::string> parts = absl::StrSplit(text, absl::MaxSplits('/', 1));
  uint64_t index = 0, count = 0;
  if (!absl::SimpleAtoi(parts.first, &index) || !absl::SimpleAtoi(parts.second, &count) || count == 0 ||
      index >= count || count > 100000) {
    return hal::invalidArgument() << "--shard=" << text << ": expected I/N with N from 1 to 100000 and I from 0 to N-1";
  }
  return Shard{static_cast<size_t>(index), static_cast<size_t>(count)};
}

hal::Result<Shard> shardFromFlagOrEnvironment(const std::string& flag) {
  if (!flag.empty()) return parseShard(flag);
  const char* total = std::getenv("TEST_TOTAL_SHARDS");
  const char* index = std::getenv("TEST_SHARD_INDEX");
  if (total == nullptr || index == nullptr) return Shard{};
  if (const char* status = std::getenv("TEST_SHARD_STATUS_FILE"); status != nullptr && *status != '\0') {
    std::ofstream touch(status, std::ios::app);
  }
  auto shard = parseShard(std::string(index) + "/" + total);
  if (!shard.ok()) {
    return hal::invalidArgument() << "TEST_SHARD_INDEX=" << index << " and TEST_TOTAL_SHARDS=" << total
                                  << " do not name a shard";
  }
  return shard;
}

}  // namespace nnremote::tools
