// A device buffer on the server (a memory domain), as a hal::IBuffer. Released on the server
// when the last reference goes. Its contents live in one server session: once the connection
// has replaced that session (docs/security.md#recovery), every use fails with DEAD_OBJECT.
#ifndef NNREMOTE_DRIVERS_PROXY_PROXY_BUFFER_H_
#define NNREMOTE_DRIVERS_PROXY_PROXY_BUFFER_H_

#include <memory>

#include "hal/i_buffer.h"
#include "drivers/proxy/connection.h"

namespace nnremote::proxy {

class ProxyBuffer final : public hal::IBuffer {
 public:
  ProxyBuffer(std::shared_ptr<Connection> connection, SessionRef session, uint32_t token);
  ~ProxyBuffer() override;

  hal::Request::MemoryDomainToken getToken() const override {
    return static_cast<hal::Request::MemoryDomainToken>(token_);
  }
  hal::Status copyTo(const hal::SharedMemory& dst) const override;
  hal::Status copyFrom(const hal::SharedMemory& src, const std::vector<uint32_t>& dimensions) const override;

 private:
  // The session the buffer lives in, if it is still the connection's.
  hal::Result<SessionRef> session() const;

  std::shared_ptr<Connection> connection_;
  const SessionRef session_;
  uint32_t token_;
};

}  // namespace nnremote::proxy

#endif  // NNREMOTE_DRIVERS_PROXY_PROXY_BUFFER_H_
