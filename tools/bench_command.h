// nnremote bench: latency and throughput of a model on a device, as a report.
#ifndef NNREMOTE_TOOLS_BENCH_COMMAND_H_
#define NNREMOTE_TOOLS_BENCH_COMMAND_H_

namespace nnremote::tools {

int runBench();

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_BENCH_COMMAND_H_
