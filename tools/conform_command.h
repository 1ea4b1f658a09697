// nnremote conform: the CTS/VTS conformance models on a device, with the CTS tolerances.
#ifndef NNREMOTE_TOOLS_CONFORM_COMMAND_H_
#define NNREMOTE_TOOLS_CONFORM_COMMAND_H_

namespace nnremote::tools {

int runConform();

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_CONFORM_COMMAND_H_
