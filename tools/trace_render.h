// Renders an execution profile as a trace: Chrome trace-event JSON (opens in Perfetto UI or
// chrome://tracing) and a self-contained HTML/SVG timeline that needs no network.
//
// Both show simulated device time on one track per NPU unit (systolic array, vector unit,
// DMA/DRAM), one slice per operation with cycles, bytes and utilization; the host's wall time
// for the same execution is a separate process track, so the two are never confused.
#ifndef NNREMOTE_TOOLS_TRACE_RENDER_H_
#define NNREMOTE_TOOLS_TRACE_RENDER_H_

#include <string>

#include "hal/execution_profile.h"

namespace nnremote::tools {

std::string toChromeTraceJson(const hal::ExecutionProfile& profile);
std::string toHtmlTimeline(const hal::ExecutionProfile& profile, const std::string& title);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_TRACE_RENDER_H_
