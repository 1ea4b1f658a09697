// nnremote run-sample: a six-operation model on each device, with its timing.
#ifndef NNREMOTE_TOOLS_SAMPLE_COMMAND_H_
#define NNREMOTE_TOOLS_SAMPLE_COMMAND_H_

namespace nnremote::tools {

int runSample();

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_SAMPLE_COMMAND_H_
