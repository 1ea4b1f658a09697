// What `nnremote bench` writes: a self-contained HTML page with its plots drawn inline (no
// network at view time), in the spirit of AOSP's MLTS benchmark report, and the same numbers as
// JSON for scripts.
#ifndef NNREMOTE_TOOLS_BENCH_REPORT_H_
#define NNREMOTE_TOOLS_BENCH_REPORT_H_

#include <cstdint>
#include <string>

#include "tools/load_clients.h"

namespace nnremote::tools {

struct BenchRun {
  std::string model, device, target, executor, priority;
  int64_t clients = 0;
  double seconds = 0;  // wall time of the run
  ClientTally tally;
};

// Latency percentiles (client wall clock and simulated device time), a latency histogram,
// throughput over time, device time next to wall time over time, and where the device time of
// one execution goes by operation type.
std::string benchReportHtml(const BenchRun& run);
std::string benchReportJson(const BenchRun& run);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_BENCH_REPORT_H_
