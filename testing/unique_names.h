// Names that no other test process uses at the same time: for unix socket paths and abstract
// socket names.
#ifndef NNREMOTE_TESTING_UNIQUE_NAMES_H_
#define NNREMOTE_TESTING_UNIQUE_NAMES_H_

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <string>

namespace nnremote::testing {

// A new token on each call. Not the pid alone: Bazel's sandbox gives each test its own pid
// namespace, so two runs of one test at once (--runs_per_test) can both be pid 2 while sharing
// /tmp and the abstract socket namespace, and take each other's addresses.
inline std::string uniqueToken() {
  static const uint64_t processToken = (static_cast<uint64_t>(std::random_device()()) << 32) | std::random_device()();
  static std::atomic<int> counter{0};
  return std::to_string(::getpid()) + "-" + std::to_string(processToken % 1000000007ULL) + "-" +
         std::to_string(++counter);
}

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTING_UNIQUE_NAMES_H_
