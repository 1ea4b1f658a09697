// nnremote graph: a model drawn as DOT or HTML.
#ifndef NNREMOTE_TOOLS_GRAPH_COMMAND_H_
#define NNREMOTE_TOOLS_GRAPH_COMMAND_H_

namespace nnremote::tools {

int runGraph();

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_GRAPH_COMMAND_H_
