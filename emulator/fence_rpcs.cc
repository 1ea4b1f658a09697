#include "emulator/fence_rpcs.h"

#include "hal/vlog.h"

namespace nnremote::emulator {

void addFenceRpcs(RpcTable& table) {
  // Answered at once: they touch only the session's table.
  table.add("CreateFence", Runs::kNow, &createFence, &kHoldsFence);
  table.add("SignalFence", Runs::kNow, &signalFence);
  table.add("ReleaseFences", Runs::kNow, &releaseFences);
}

hal::Result<wire::CreateFenceResponse> createFence(Session& session, const wire::CreateFenceRequest&) {
  wire::CreateFenceResponse response;
  response.set_fence_id(session.fences.add({hal::SyncFence::create(), /*clientSignals=*/true}));
  NN_VLOG(FENCE) << "session " << session.id() << " created fence " << response.fence_id();
  return response;
}

hal::Result<wire::Empty> signalFence(Session& session, const wire::SignalFenceRequest& request) {
  NN_ASSIGN_OR_RETURN(SessionFence entry, session.fences.find(request.fence_id()));
  NN_VLOG(FENCE) << "session " << session.id() << " signals fence " << request.fence_id()
                 << (request.error() ? " with an error" : "");
  entry.fence.signal(request.error());
  if (request.release()) session.releaseFence(request.fence_id());
  return wire::Empty();
}

hal::Result<wire::Empty> releaseFences(Session& session, const wire::ReleaseFencesRequest& request) {
  NN_VLOG(FENCE) << "session " << session.id() << " releases " << request.fence_ids_size() << " fences";
  for (uint64_t id : request.fence_ids()) session.releaseFence(id);
  return wire::Empty();
}

}  // namespace nnremote::emulator
