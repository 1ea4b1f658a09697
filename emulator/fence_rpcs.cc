#include "emulator/accelerator_service.h"

#include "emulator/session_quotas.h"
#include "proto/grpc_status.h"
#include "hal/vlog.h"

namespace nnremote::emulator {

using hal::ErrorStatus;
using hal::makeError;
using wire_conv::toGrpcStatus;

grpc::Status AcceleratorService::CreateFence(grpc::ServerContextBase* context, const wire::CreateFenceRequest* request,
                                             wire::CreateFenceResponse* response) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  if (auto quota = checkHolding(session->fences.size(), session->limits().fences, "fences",
                                "session_quotas.fences");
      !quota.ok()) {
    return toGrpcStatus(quota.error());
  }
  response->set_fence_id(session->fences.add(hal::SyncFence::create()));
  NN_VLOG(FENCE) << "session " << session->id() << " created fence " << response->fence_id();
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::SignalFence(grpc::ServerContextBase* context, const wire::SignalFenceRequest* request,
                                             wire::Empty*) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  auto fence = session->fences.find(request->fence_id());
  if (!fence.ok()) return toGrpcStatus(fence.error());
  NN_VLOG(FENCE) << "session " << session->id() << " signals fence " << request->fence_id()
                 << (request->error() ? " with an error" : "");
  fence->signal(request->error());
  if (request->release()) (void)session->fences.erase(request->fence_id());
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::ReleaseFences(grpc::ServerContextBase* context,
                                               const wire::ReleaseFencesRequest* request, wire::Empty*) {
  std::shared_ptr<Session> session;
  if (auto refused = callerSession(*context, request->session_id(), &session); !refused.ok()) return refused;
  NN_VLOG(FENCE) << "session " << session->id() << " releases " << request->fence_ids_size() << " fences";
  for (uint64_t id : request->fence_ids()) (void)session->fences.erase(id);
  return grpc::Status::OK;
}
}  // namespace nnremote::emulator
