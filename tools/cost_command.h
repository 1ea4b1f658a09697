// nnremote cost: SCALE-Sim's report for a topology, from the simulator's timing model.
#ifndef NNREMOTE_TOOLS_COST_COMMAND_H_
#define NNREMOTE_TOOLS_COST_COMMAND_H_

namespace nnremote::tools {

int runCost();

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_COST_COMMAND_H_
