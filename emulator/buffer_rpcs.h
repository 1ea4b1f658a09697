// The Accelerator RPCs of device buffers (memory domains): AllocateBuffer, CopyToBuffer,
// CopyFromBuffer and ReleaseBuffer. A buffer's roles name prepared models of the caller's
// session, and are validated with hal::validateBufferRoles before the device allocates.
#ifndef NNREMOTE_EMULATOR_BUFFER_RPCS_H_
#define NNREMOTE_EMULATOR_BUFFER_RPCS_H_

#include "emulator/rpc_scaffold.h"
#include "emulator/served_devices.h"
#include "wire/nnremote.pb.h"

namespace nnremote::emulator {

class BufferRpcs {
 public:
  explicit BufferRpcs(const ServedDevices& devices) : devices_(devices) {}

  void addTo(RpcTable& table);

  hal::Result<wire::AllocateBufferResponse> allocateBuffer(Session& session, const wire::AllocateBufferRequest& request);
  hal::Result<wire::Empty> copyToBuffer(Session& session, const wire::CopyToBufferRequest& request);
  hal::Result<wire::CopyFromBufferResponse> copyFromBuffer(Session& session, const wire::CopyFromBufferRequest& request);
  hal::Result<wire::Empty> releaseBuffer(Session& session, const wire::ReleaseBufferRequest& request);

 private:
  const ServedDevices& devices_;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_BUFFER_RPCS_H_
