// nnremote replay: a recording (npu_emulator --record) run again on another device, compared.
#ifndef NNREMOTE_TOOLS_REPLAY_COMMAND_H_
#define NNREMOTE_TOOLS_REPLAY_COMMAND_H_

namespace nnremote::tools {

int runReplay();

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_REPLAY_COMMAND_H_
