// The HTML report of `nnremote replay --html=FILE`: the summary, a log-log plot of each model's
// device time as recorded against as replayed (a line at 1x), a table per model with the two
// times side by side, and the differences. Self-contained: inline SVG and CSS, no scripts.
#ifndef NNREMOTE_TOOLS_REPLAY_REPORT_H_
#define NNREMOTE_TOOLS_REPLAY_REPORT_H_

#include <string>

#include "tools/replay.h"

namespace nnremote::tools {

std::string renderReplayHtml(const ReplaySummary& summary, const std::string& recording, const std::string& target);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_REPLAY_REPORT_H_
