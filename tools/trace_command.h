// nnremote trace: one execution's per-operation profile, as a table, Chrome trace JSON or HTML.
#ifndef NNREMOTE_TOOLS_TRACE_COMMAND_H_
#define NNREMOTE_TOOLS_TRACE_COMMAND_H_

namespace nnremote::tools {

int runTrace();

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_TRACE_COMMAND_H_
