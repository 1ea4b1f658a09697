// Runs CTS test cases on any hal::IDevice and checks the outputs with the CTS tolerances.
#ifndef NNREMOTE_CONFORMANCE_CTS_RUNNER_H_
#define NNREMOTE_CONFORMANCE_CTS_RUNNER_H_

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "hal/i_device.h"
#include "conformance/cts_test_case.h"

namespace nnremote::conformance {

enum class Outcome { PASSED, FAILED, UNSUPPORTED };

struct CaseResult {
  Outcome outcome = Outcome::PASSED;
  std::string message;  // why it failed or is unsupported
  bool deviceLost = false;  // it failed because the device was lost (DEAD_OBJECT)
};

// How each case is executed.
enum class Executor { SYNC, ASYNC, REUSABLE, BURST, FENCED };
// Where request pools live: process memory (sent as bytes), POSIX shared memory, or device
// buffers (memory domains: inputs copied in with copyFrom, outputs read back with copyTo).
enum class PoolMemory { BYTES, SHARED, DEVICE };

struct RunOptions {
  Executor executor = Executor::SYNC;
  PoolMemory memory = PoolMemory::BYTES;
  // Non-empty: every model is prepared saving a compilation cache in this directory (its
  // token is the SHA-256 of the case's name), then prepared again from that cache; both
  // preparations are executed and checked.
  std::string cacheDirectory;
  // runDirectory runs only every shardCount-th case, from the shardIndex-th (0-based), counted
  // over the sorted files: deterministic slices that together cover every case once.
  size_t shardIndex = 0;
  size_t shardCount = 1;
  // runDirectory: when a case finds the device lost, a new device to run it (and the rest) on,
  // e.g. another device of a farm's pool; at most maxReplacements times in a run.
  std::function<hal::Result<hal::SharedDevice>()> replaceLostDevice;
  size_t maxReplacements = 4;
  // runDirectory: when a case found the device lost and nothing replaced it, whether it is gone
  // for good (its server did not come back). Then the run stops with an error rather than spend
  // a reconnection's wait on each model left. A device that was only lost for a moment (a
  // backend host restarted) is not gone, and the run goes on.
  std::function<bool()> deviceGone;
};

// Runs `request` on `prepared` the way `executor` says (a reusable execution computes twice, a
// burst caches the request's memories, a fenced execution starts on a signaled fence). Loops
// time out after 200 ms.
hal::Result<hal::ExecutionOutcome> executeWith(const hal::SharedPreparedModel& prepared, const hal::Request& request,
                                               Executor executor);

// Parses "sync", "async", "reusable", "burst", "fenced" / "bytes", "shm", "device".
hal::Result<Executor> executorFromName(const std::string& name);
hal::Result<PoolMemory> poolMemoryFromName(const std::string& name);

// Compares one output with its golden value. Returns an empty string when it matches, else
// a description of the first mismatching element.
std::string compareOutput(const CtsTestCase& testCase, size_t outputIndex,
                          const std::vector<uint8_t>& actual,
                          const std::vector<uint32_t>& actualDimensions);

// Prepares and executes one case on `device`:
// - a model with an operation the device reports unsupported is UNSUPPORTED, except an
//   expect_failure model, which is prepared regardless;
// - an expect_failure model passes only if preparation or execution returns an error;
// - otherwise outputs must match within the CTS tolerances.
CaseResult runCase(const hal::IDevice& device, const CtsTestCase& testCase,
                   const RunOptions& options = {});

// Executes one case on a model already prepared on `device`, the way `options` says (executor
// and memory), and checks its outputs as runCase does; runCase prepares, then calls this.
CaseResult executeAndCheck(const hal::IDevice& device, const CtsTestCase& testCase,
                           const hal::SharedPreparedModel& prepared, const RunOptions& options);

struct Totals {
  size_t passed = 0, failed = 0, unsupported = 0;
};

// Runs every case under `directory`, or in that one file, (or options' shard of them) and reports
// a line per failure to `log`; per-version totals (keyed by the first path component below
// `directory`, or the file's folder) go into `perVersion` when given.
hal::Result<Totals> runDirectory(const hal::IDevice& device, const std::string& directory,
                                 std::ostream& log,
                                 std::map<std::string, Totals>* perVersion = nullptr,
                                 const std::function<void(const CtsTestCase&, const CaseResult&)>&
                                     onCase = nullptr,
                                 const RunOptions& options = {});

}  // namespace nnremote::conformance

#endif  // NNREMOTE_CONFORMANCE_CTS_RUNNER_H_
