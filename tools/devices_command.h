// nnremote devices: what the target serves.
#ifndef NNREMOTE_TOOLS_DEVICES_COMMAND_H_
#define NNREMOTE_TOOLS_DEVICES_COMMAND_H_

#include "tools/target.h"

namespace nnremote::tools {

int runDevices();

// Each device's name, type, version, feature level, backend host, extensions and cache files.
void printDevices(const Target& target);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_DEVICES_COMMAND_H_
