// The Accelerator RPCs of sync fences the client creates and signals: CreateFence, SignalFence
// and ReleaseFences. Waiting for one is WaitFence (wait_rpcs.h).
#ifndef NNREMOTE_EMULATOR_FENCE_RPCS_H_
#define NNREMOTE_EMULATOR_FENCE_RPCS_H_

#include "emulator/rpc_scaffold.h"
#include "wire/nnremote.pb.h"

namespace nnremote::emulator {

void addFenceRpcs(RpcTable& table);

// Within the fences quota, which the scaffold checks (kHoldsFence).
hal::Result<wire::CreateFenceResponse> createFence(Session& session, const wire::CreateFenceRequest& request);
// Signals the fence (in error, if asked), and releases it if asked.
hal::Result<wire::Empty> signalFence(Session& session, const wire::SignalFenceRequest& request);
// Fences the client no longer names (Session::releaseFence); unknown ids are ignored.
hal::Result<wire::Empty> releaseFences(Session& session, const wire::ReleaseFencesRequest& request);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_FENCE_RPCS_H_
