// nnremote load: many clients at once on one device, and what each saw.
#ifndef NNREMOTE_TOOLS_LOAD_COMMAND_H_
#define NNREMOTE_TOOLS_LOAD_COMMAND_H_

namespace nnremote::tools {

int runLoad();

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_LOAD_COMMAND_H_
