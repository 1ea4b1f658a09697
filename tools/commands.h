// The nnremote subcommands; each takes the arguments after its name and returns an exit code.
#ifndef NNREMOTE_TOOLS_COMMANDS_H_
#define NNREMOTE_TOOLS_COMMANDS_H_

#include <string>
#include <vector>

namespace nnremote::tools {

int runDevices(const std::vector<std::string>& args);
int runSample(const std::vector<std::string>& args);
int runConform(const std::vector<std::string>& args);
int runCost(const std::vector<std::string>& args);
int runTrace(const std::vector<std::string>& args);
int runLoad(const std::vector<std::string>& args);    // load_command.cc
int runReplay(const std::vector<std::string>& args);  // replay_command.cc
int runGraph(const std::vector<std::string>& args);   // graph_command.cc

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_COMMANDS_H_
