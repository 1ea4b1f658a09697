// What every nnremote command uses to report.
#ifndef NNREMOTE_TOOLS_COMMAND_SUPPORT_H_
#define NNREMOTE_TOOLS_COMMAND_SUPPORT_H_

#include <string>

#include "hal/result.h"
#include "hal/types.h"

namespace nnremote::tools {

// Prints "nnremote COMMAND: STATUS: message" to stderr and returns the exit code of a failed run.
int fail(const std::string& command, const hal::Error& error);

// "12.345 us", or "not available".
std::string formatDuration(const hal::OptionalDuration& duration);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_COMMAND_SUPPORT_H_
