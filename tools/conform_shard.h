// Which slice of the conformance models `nnremote conform` runs: --shard=I/N, or Bazel's test
// sharding environment (TEST_SHARD_INDEX, TEST_TOTAL_SHARDS, TEST_SHARD_STATUS_FILE).
#ifndef NNREMOTE_TOOLS_CONFORM_SHARD_H_
#define NNREMOTE_TOOLS_CONFORM_SHARD_H_

#include <cstddef>
#include <string>

#include "hal/result.h"

namespace nnremote::tools {

struct Shard {
  size_t index = 0;  // from 0
  size_t count = 1;
};

// "I/N" with 0 <= I < N.
hal::Result<Shard> parseShard(const std::string& text);

// --shard if given, else Bazel's TEST_SHARD_INDEX / TEST_TOTAL_SHARDS, else the whole set. Under
// Bazel, touches TEST_SHARD_STATUS_FILE to tell it this test shards.
hal::Result<Shard> shardFromFlagOrEnvironment(const std::string& flag);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_CONFORM_SHARD_H_
