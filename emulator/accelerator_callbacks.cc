#include "emulator/accelerator_callbacks.h"

#include "emulator/accelerator_service.h"
#include "emulator/bulk_transfers.h"
#include "emulator/rpc_scaffold.h"
#include "google/protobuf/descriptor.h"

namespace nnremote::emulator {
namespace {

// The generated callback service with every unary method served from the service's RPC table;
// the two streaming ones are its reactors'.
class AcceleratorCallbacks final : public wire::Accelerator::CallbackService {
 public:
  explicit AcceleratorCallbacks(AcceleratorService& service) : services_(service.rpcServices()) {
    const google::protobuf::ServiceDescriptor* descriptor =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(wire::Accelerator::service_full_name());
    serveRpcTable(service.rpcs(), services_, *descriptor,
                  [this](int index, grpc::internal::MethodHandler* handler) { MarkMethodCallback(index, handler); });
  }

  grpc::ServerReadReactor<wire::BulkChunk>* UploadBulk(grpc::CallbackServerContext* context,
                                                       wire::BulkTransferHandle* response) override {
    return serveUpload(context, services_, response);
  }
  grpc::ServerWriteReactor<wire::BulkChunk>* DownloadBulk(grpc::CallbackServerContext* context,
                                                          const wire::BulkTransferHandle* request) override {
    return serveDownload(context, services_, request);
  }

 private:
  const RpcServices& services_;
};

}  // namespace

std::unique_ptr<grpc::Service> makeAcceleratorCallbacks(AcceleratorService& service) {
  return std::make_unique<AcceleratorCallbacks>(service);
}

}  // namespace nnremote::emulator
