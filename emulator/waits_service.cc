#include "emulator/waits_service.h"

#include "emulator/burst_reactor.h"
#include "emulator/wait_rpcs.h"
#include "google/protobuf/descriptor.h"

namespace nnremote::emulator {

AcceleratorWaitsService::AcceleratorWaitsService(const RpcServices& services) : services_(services) {
  addWaitRpcs(rpcs_);
  const google::protobuf::ServiceDescriptor* descriptor =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(wire::AcceleratorWaits::service_full_name());
  serveRpcTable(rpcs_, services_, *descriptor,
                [this](int index, grpc::internal::MethodHandler* handler) { MarkMethodCallback(index, handler); });
}

grpc::ServerBidiReactor<wire::BurstRequest, wire::BurstResponse>* AcceleratorWaitsService::Burst(
    grpc::CallbackServerContext* context) {
  return startBurst(context, services_.sessions, services_.authenticator, services_.pool, services_.quick);
}

}  // namespace nnremote::emulator
