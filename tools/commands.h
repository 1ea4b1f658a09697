// The nnremote subcommands; each reads its flags (tools/nnremote_flags.h) and returns an exit code.
#ifndef NNREMOTE_TOOLS_COMMANDS_H_
#define NNREMOTE_TOOLS_COMMANDS_H_

#include <string>

#include "hal/result.h"

namespace nnremote::tools {

// Prints "nnremote COMMAND: STATUS: message" to stderr and returns the exit code of a failed run.
int fail(const std::string& command, const hal::Error& error);

int runDevices();
int runSample();
int runConform();
int runCost();
int runTrace();
int runLoad();    // load_command.cc
int runReplay();  // replay_command.cc
int runGraph();   // graph_command.cc
int runBench();     // bench_command.cc
int runFarmList();  // farm_command.cc
int runFarmWait();

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_COMMANDS_H_
