#include "emulator/accelerator_callbacks.h"

#include "emulator/accelerator_service.h"
#include "emulator/grpc_handoff.h"
#include "proto/grpc_status.h"

namespace nnremote::emulator {
namespace {

using hal::ErrorStatus;
using hal::makeError;

template <typename Request, typename Response>
using Handler = grpc::Status (AcceleratorService::*)(grpc::ServerContextBase*, const Request*, Response*);

// UploadBulk: the first chunk opens the upload, each later one continues it, and the end of the
// client's side completes it. An error ends the call at once; what was received is dropped.
class UploadReactor final : public grpc::ServerReadReactor<wire::BulkChunk> {
 public:
  UploadReactor(grpc::CallbackServerContext* context, AcceleratorService& service, wire::BulkTransferHandle* response)
      : context_(context), service_(service), response_(response) {
    handOffToGrpc(this);
    StartRead(&chunk_);
  }

  void OnReadDone(bool ok) override {
    takeBackFromGrpc(this);
    if (!ok) {  // the client's side ended (or the call was cancelled)
      if (!started_) {
        return finish(wire_conv::toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT)
                                              << "UploadBulk received no chunk"));
      }
      return finish(service_.endUpload(&upload_, response_));
    }
    const grpc::Status status =
        started_ ? service_.continueUpload(chunk_, &upload_) : service_.beginUpload(*context_, chunk_, &upload_);
    started_ = true;
    if (!status.ok()) return finish(status);
    handOffToGrpc(this);
    StartRead(&chunk_);
  }

  void OnDone() override {
    takeBackFromGrpc(this);
    delete this;
  }

 private:
  void finish(const grpc::Status& status) {
    upload_.memory.reset();  // an upload that failed holds nothing
    handOffToGrpc(this);
    Finish(status);
  }

  grpc::CallbackServerContext* const context_;
  AcceleratorService& service_;
  wire::BulkTransferHandle* const response_;
  wire::BulkChunk chunk_;
  AcceleratorService::BulkUpload upload_;
  bool started_ = false;
};

// DownloadBulk: one chunk in flight at a time; a client that goes away ends the call.
class DownloadReactor final : public grpc::ServerWriteReactor<wire::BulkChunk> {
 public:
  DownloadReactor(grpc::CallbackServerContext* context, AcceleratorService& service,
                  const wire::BulkTransferHandle* request) {
    const grpc::Status status = service.beginDownload(*context, *request, &download_);
    if (!status.ok()) {
      handOffToGrpc(this);
      Finish(status);
      return;
    }
    writeNext();
  }

  void OnWriteDone(bool ok) override {
    takeBackFromGrpc(this);
    if (!ok) {  // the client went away
      handOffToGrpc(this);
      Finish(grpc::Status::OK);
      return;
    }
    writeNext();
  }

  void OnDone() override {
    takeBackFromGrpc(this);
    delete this;
  }

 private:
  void writeNext() {
    const bool more = AcceleratorService::nextDownloadChunk(&download_, &chunk_);
    handOffToGrpc(this);
    if (!more) {
      Finish(grpc::Status::OK);
      return;
    }
    StartWrite(&chunk_);
  }

  AcceleratorService::BulkDownload download_;
  wire::BulkChunk chunk_;
};

class AcceleratorCallbacks final : public wire::Accelerator::CallbackService {
 public:
  explicit AcceleratorCallbacks(AcceleratorService& service) : service_(service) {}

  // Answered at once: they touch only the server's own tables.
  grpc::ServerUnaryReactor* OpenSession(grpc::CallbackServerContext* context, const wire::OpenSessionRequest* request,
                                        wire::OpenSessionResponse* response) override {
    return answerNow(context, &AcceleratorService::OpenSession, request, response);
  }
  grpc::ServerUnaryReactor* ListDevices(grpc::CallbackServerContext* context, const wire::ListDevicesRequest* request,
                                        wire::ListDevicesResponse* response) override {
    return answerNow(context, &AcceleratorService::ListDevices, request, response);
  }
  grpc::ServerUnaryReactor* GetDeviceInfo(grpc::CallbackServerContext* context,
                                          const wire::GetDeviceInfoRequest* request,
                                          wire::DeviceInfo* response) override {
    return answerNow(context, &AcceleratorService::GetDeviceInfo, request, response);
  }
  grpc::ServerUnaryReactor* StartExecution(grpc::CallbackServerContext* context, const wire::ExecuteRequest* request,
                                           wire::StartExecutionResponse* response) override {
    return answerNow(context, &AcceleratorService::StartExecution, request, response);
  }
  grpc::ServerUnaryReactor* ExecuteFenced(grpc::CallbackServerContext* context,
                                          const wire::ExecuteFencedRequest* request,
                                          wire::ExecuteFencedResponse* response) override {
    return answerNow(context, &AcceleratorService::ExecuteFenced, request, response);
  }
  grpc::ServerUnaryReactor* RegisterMemory(grpc::CallbackServerContext* context,
                                           const wire::RegisterMemoryRequest* request,
                                           wire::RegisterMemoryResponse* response) override {
    return answerNow(context, &AcceleratorService::RegisterMemory, request, response);
  }
  grpc::ServerUnaryReactor* UnregisterMemory(grpc::CallbackServerContext* context,
                                             const wire::UnregisterMemoryRequest* request,
                                             wire::Empty* response) override {
    return answerNow(context, &AcceleratorService::UnregisterMemory, request, response);
  }
  grpc::ServerUnaryReactor* CreateFence(grpc::CallbackServerContext* context, const wire::CreateFenceRequest* request,
                                        wire::CreateFenceResponse* response) override {
    return answerNow(context, &AcceleratorService::CreateFence, request, response);
  }
  grpc::ServerUnaryReactor* SignalFence(grpc::CallbackServerContext* context, const wire::SignalFenceRequest* request,
                                        wire::Empty* response) override {
    return answerNow(context, &AcceleratorService::SignalFence, request, response);
  }
  grpc::ServerUnaryReactor* ReleaseFences(grpc::CallbackServerContext* context,
                                          const wire::ReleaseFencesRequest* request, wire::Empty* response) override {
    return answerNow(context, &AcceleratorService::ReleaseFences, request, response);
  }

  // On the pool: they reach a device, which may take its time.
  grpc::ServerUnaryReactor* CloseSession(grpc::CallbackServerContext* context, const wire::CloseSessionRequest* request,
                                         wire::Empty* response) override {
    return answerOnPool(context, &AcceleratorService::CloseSession, request, response);
  }
  grpc::ServerUnaryReactor* GetSupportedOperations(grpc::CallbackServerContext* context,
                                                   const wire::GetSupportedOperationsRequest* request,
                                                   wire::GetSupportedOperationsResponse* response) override {
    return answerOnPool(context, &AcceleratorService::GetSupportedOperations, request, response);
  }
  grpc::ServerUnaryReactor* PrepareModel(grpc::CallbackServerContext* context, const wire::PrepareModelRequest* request,
                                         wire::PrepareModelResponse* response) override {
    return answerOnPool(context, &AcceleratorService::PrepareModel, request, response);
  }
  grpc::ServerUnaryReactor* PrepareModelFromCache(grpc::CallbackServerContext* context,
                                                  const wire::PrepareModelFromCacheRequest* request,
                                                  wire::PrepareModelResponse* response) override {
    return answerOnPool(context, &AcceleratorService::PrepareModelFromCache, request, response);
  }
  grpc::ServerUnaryReactor* ReleasePreparedModel(grpc::CallbackServerContext* context,
                                                 const wire::ReleasePreparedModelRequest* request,
                                                 wire::Empty* response) override {
    return answerOnPool(context, &AcceleratorService::ReleasePreparedModel, request, response);
  }
  grpc::ServerUnaryReactor* Execute(grpc::CallbackServerContext* context, const wire::ExecuteRequest* request,
                                    wire::ExecuteResponse* response) override {
    return answerExecution(context, &AcceleratorService::Execute, request, response,
                           {request->session_id(), request->prepared_model_id()});
  }
  grpc::ServerUnaryReactor* CreateReusableExecution(grpc::CallbackServerContext* context,
                                                    const wire::CreateReusableExecutionRequest* request,
                                                    wire::CreateReusableExecutionResponse* response) override {
    return answerOnPool(context, &AcceleratorService::CreateReusableExecution, request, response);
  }
  grpc::ServerUnaryReactor* ComputeReusableExecution(grpc::CallbackServerContext* context,
                                                     const wire::ComputeReusableExecutionRequest* request,
                                                     wire::ExecuteResponse* response) override {
    return answerExecution(context, &AcceleratorService::ComputeReusableExecution, request, response,
                           {request->session_id(), request->reusable_execution_id()});
  }
  grpc::ServerUnaryReactor* ReleaseReusableExecution(grpc::CallbackServerContext* context,
                                                     const wire::ReleaseReusableExecutionRequest* request,
                                                     wire::Empty* response) override {
    return answerOnPool(context, &AcceleratorService::ReleaseReusableExecution, request, response);
  }
  grpc::ServerUnaryReactor* AllocateBuffer(grpc::CallbackServerContext* context,
                                           const wire::AllocateBufferRequest* request,
                                           wire::AllocateBufferResponse* response) override {
    return answerOnPool(context, &AcceleratorService::AllocateBuffer, request, response);
  }
  grpc::ServerUnaryReactor* CopyToBuffer(grpc::CallbackServerContext* context, const wire::CopyToBufferRequest* request,
                                         wire::Empty* response) override {
    return answerOnPool(context, &AcceleratorService::CopyToBuffer, request, response);
  }
  grpc::ServerUnaryReactor* CopyFromBuffer(grpc::CallbackServerContext* context,
                                           const wire::CopyFromBufferRequest* request,
                                           wire::CopyFromBufferResponse* response) override {
    return answerOnPool(context, &AcceleratorService::CopyFromBuffer, request, response);
  }
  grpc::ServerUnaryReactor* ReleaseBuffer(grpc::CallbackServerContext* context, const wire::ReleaseBufferRequest* request,
                                          wire::Empty* response) override {
    return answerOnPool(context, &AcceleratorService::ReleaseBuffer, request, response);
  }

  grpc::ServerReadReactor<wire::BulkChunk>* UploadBulk(grpc::CallbackServerContext* context,
                                                       wire::BulkTransferHandle* response) override {
    return new UploadReactor(context, service_, response);
  }
  grpc::ServerWriteReactor<wire::BulkChunk>* DownloadBulk(grpc::CallbackServerContext* context,
                                                          const wire::BulkTransferHandle* request) override {
    return new DownloadReactor(context, service_, request);
  }

 private:
  // Runs the handler and finishes the call with its status. The request, response and context
  // live until Finish, and the reactor may be finished from any thread.
  template <typename Request, typename Response>
  void handleAndFinish(grpc::CallbackServerContext* context, Handler<Request, Response> handler,
                       const Request* request, Response* response, grpc::ServerUnaryReactor* reactor) {
    const grpc::Status status = (service_.*handler)(context, request, response);
    handOffToGrpc(response);
    reactor->Finish(status);
  }

  template <typename Request, typename Response>
  grpc::ServerUnaryReactor* answerNow(grpc::CallbackServerContext* context, Handler<Request, Response> handler,
                                      const Request* request, Response* response) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    handleAndFinish(context, handler, request, response, reactor);
    return reactor;
  }

  template <typename Request, typename Response>
  grpc::ServerUnaryReactor* answerOnPool(grpc::CallbackServerContext* context, Handler<Request, Response> handler,
                                         const Request* request, Response* response) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    service_.workPool().submit(
        [this, context, handler, request, response, reactor] { handleAndFinish(context, handler, request, response, reactor); });
    return reactor;
  }

  // Inline when it was quick last time and no other execution runs inline; else on the pool.
  template <typename Request, typename Response>
  grpc::ServerUnaryReactor* answerExecution(grpc::CallbackServerContext* context, Handler<Request, Response> handler,
                                            const Request* request, Response* response, QuickExecutions::Key key) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    service_.quickExecutions().run(
        key, [this, context, handler, request, response, reactor] { handleAndFinish(context, handler, request, response, reactor); });
    return reactor;
  }

  AcceleratorService& service_;
};

}  // namespace

std::unique_ptr<grpc::Service> makeAcceleratorCallbacks(AcceleratorService& service) {
  return std::make_unique<AcceleratorCallbacks>(service);
}

}  // namespace nnremote::emulator
