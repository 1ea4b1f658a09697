// Many clients at one emulator, each with a session of its own that prepares a model and
// executes it in a loop for a while: what `nnremote load` and `nnremote bench` run.
#ifndef NNREMOTE_TOOLS_LOAD_CLIENTS_H_
#define NNREMOTE_TOOLS_LOAD_CLIENTS_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hal/execution_profile.h"
#include "drivers/proxy/connection.h"
#include "tools/models/built_in.h"

namespace nnremote::tools {

struct LoadOptions {
  std::string address;                  // where clients connect
  proxy::ConnectionOptions connection;  // and how
  std::string deviceName;
  BuiltModel model;
  hal::Priority priority = hal::Priority::MEDIUM;
  bool burst = false;
  hal::OptionalDuration deadline;
  std::chrono::steady_clock::duration runFor{};
  // Ask for timing on every execution (device time per sample, and a profile); costs a little.
  bool measureTiming = false;
};

// One successful execution.
struct ExecutionSample {
  double startSeconds = 0;  // since the run started
  int64_t latencyUs = 0;    // client wall clock
  int64_t deviceUs = -1;    // timeOnDevice, when measured
};

// What one client (or, merged, all of them) saw.
struct ClientTally {
  std::vector<ExecutionSample> samples;    // successful executions
  std::map<std::string, uint64_t> errors;  // by status name
  uint64_t executions = 0;
  uint64_t reconnects = 0;  // sessions the client's connection replaced after losing the server
  std::optional<hal::ExecutionProfile> profile;  // of one timed execution, when measured
};

// Runs `clients` clients for options.runFor from `start`, and merges what they saw. Every result
// is compared with the client's first (the simulator is deterministic); a difference counts as
// WRONG_RESULT.
ClientTally runLoadClients(const LoadOptions& options, int64_t clients, std::chrono::steady_clock::time_point start);

// The p-th quantile (0..1) of sorted values.
int64_t percentile(const std::vector<int64_t>& sorted, double p);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_LOAD_CLIENTS_H_
