// The nnremote subcommands; each reads its flags (tools/nnremote_flags.h) and returns an exit code.
#ifndef NNREMOTE_TOOLS_COMMANDS_H_
#define NNREMOTE_TOOLS_COMMANDS_H_

namespace nnremote::tools {

int runDevices();
int runSample();
int runConform();
int runCost();
int runTrace();
int runLoad();    // load_command.cc
int runReplay();  // replay_command.cc
int runGraph();   // graph_command.cc

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_COMMANDS_H_
