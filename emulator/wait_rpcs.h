// The AcceleratorWaits RPCs that answer when something ends: AwaitExecution (a started
// execution), GetExecuteFencedInfo (a fenced one) and WaitFence (a client's fence, or its
// timeout). Each handler finds what to wait for; the scaffold waits without holding a thread
// (rpc_scaffold.h, RpcTable::addAwaiting) and then asks the handler's answer.
#ifndef NNREMOTE_EMULATOR_WAIT_RPCS_H_
#define NNREMOTE_EMULATOR_WAIT_RPCS_H_

#include "emulator/rpc_scaffold.h"
#include "wire/nnremote.pb.h"

namespace nnremote::emulator {

void addWaitRpcs(RpcTable& table);

// The started execution's outcome, once it has ended; the execution is the call's to collect.
hal::Result<AwaitedAnswer<wire::ExecuteResponse>> awaitExecution(Session& session,
                                                                 const wire::AwaitExecutionRequest& request);
// The fenced execution's outcome, once its fence is signaled; the execution is then forgotten.
hal::Result<AwaitedAnswer<wire::GetExecuteFencedInfoResponse>> getExecuteFencedInfo(
    Session& session, const wire::GetExecuteFencedInfoRequest& request);
// The fence's state once it leaves ACTIVE or `timeout` passes (at most 10 s: a waiting client
// asks again).
hal::Result<AwaitedAnswer<wire::WaitFenceResponse>> waitFence(Session& session, const wire::WaitFenceRequest& request);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_WAIT_RPCS_H_
