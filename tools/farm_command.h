// nnremote farm list and farm wait: the devices of an etcd pool.
#ifndef NNREMOTE_TOOLS_FARM_COMMAND_H_
#define NNREMOTE_TOOLS_FARM_COMMAND_H_

namespace nnremote::tools {

int runFarmList();
int runFarmWait();

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_FARM_COMMAND_H_
