#include "drivers/proxy/proxy_buffer.h"
#include "drivers/proxy/stubs.h"
#include "drivers/proxy/pool_transport.h"

#include <cstring>

#include "wire/grpc_status.h"

namespace nnremote::proxy {

ProxyBuffer::ProxyBuffer(std::shared_ptr<Connection> connection, SessionRef session, uint32_t token)
    : connection_(std::move(connection)), session_(session), token_(token) {}

hal::Result<SessionRef> ProxyBuffer::session() const {
  NN_ASSIGN_OR_RETURN(const SessionRef current, connection_->session());
  if (current.generation != session_.generation) {
    return hal::makeError(hal::ErrorStatus::DEAD_OBJECT)
           << "device buffer " << token_ << " was lost with the server session it lived in (the connection "
           << "reconnected since); its contents are gone: allocate a new buffer";
  }
  return current;
}

ProxyBuffer::~ProxyBuffer() {
  if (connection_->generation() != session_.generation) return;  // gone with its session
  wire::ReleaseBufferRequest request;
  request.set_session_id(session_.id);
  request.set_token(token_);
  wire::Empty empty;
  auto context = connection_->controlContext();
  (void)connection_->stub()->ReleaseBuffer(context.get(), request, &empty);  // best effort
}

hal::Status ProxyBuffer::copyTo(const hal::SharedMemory& dst) const {
  if (dst == nullptr) return hal::invalidArgument() << "copyTo destination is null";
  NN_ASSIGN_OR_RETURN(const SessionRef session, this->session());
  wire::CopyFromBufferRequest request;
  request.set_session_id(session.id);
  request.set_token(token_);
  NN_ASSIGN_OR_RETURN(*request.mutable_destination(), connection_->pools().encode(dst, /*withContents=*/false));
  wire::CopyFromBufferResponse response;
  auto context = connection_->controlContext();
  const grpc::Status status = connection_->stub()->CopyFromBuffer(context.get(), request, &response);
  if (!status.ok()) return connection_->callFailed(status, session.generation);
  if (response.bulk_transfer_id() != 0) {
    return connection_->pools().download(response.bulk_transfer_id(), dst->data(), dst->size());
  }
  if (!response.data().empty()) {
    if (response.data().size() != dst->size()) {
      return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
             << "the server returned " << response.data().size() << " bytes for " << dst->size();
    }
    std::memcpy(dst->data(), response.data().data(), dst->size());
  }
  return {};
}

hal::Status ProxyBuffer::copyFrom(const hal::SharedMemory& src, const std::vector<uint32_t>& dimensions) const {
  if (src == nullptr) return hal::invalidArgument() << "copyFrom source is null";
  NN_ASSIGN_OR_RETURN(const SessionRef session, this->session());
  wire::CopyToBufferRequest request;
  request.set_session_id(session.id);
  request.set_token(token_);
  NN_ASSIGN_OR_RETURN(*request.mutable_source(), connection_->pools().encode(src, /*withContents=*/true));
  for (uint32_t d : dimensions) request.add_dimensions(d);
  wire::Empty empty;
  auto context = connection_->controlContext();
  const grpc::Status status = connection_->stub()->CopyToBuffer(context.get(), request, &empty);
  if (!status.ok()) return connection_->callFailed(status, session.generation);
  return {};
}

}  // namespace nnremote::proxy
