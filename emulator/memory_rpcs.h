// The Accelerator RPCs of registered memory: RegisterMemory (a client's shared memory, mapped
// here by name, or by a descriptor passed on a backend host's side channel) and
// UnregisterMemory. Bulk transfers, which stream, are bulk_transfers.h.
#ifndef NNREMOTE_EMULATOR_MEMORY_RPCS_H_
#define NNREMOTE_EMULATOR_MEMORY_RPCS_H_

#include <memory>

#include "emulator/descriptor_inbox.h"
#include "emulator/rpc_scaffold.h"
#include "wire/nnremote.pb.h"

namespace nnremote::emulator {

class MemoryRpcs {
 public:
  void addTo(RpcTable& table);

  // Where RegisterMemory finds descriptors named by passed_descriptor. Without an inbox, that
  // field is refused. Set before serving.
  void acceptDescriptorsFrom(std::shared_ptr<DescriptorInbox> inbox) { descriptors_ = std::move(inbox); }

  hal::Result<wire::RegisterMemoryResponse> registerMemory(Session& session, const wire::RegisterMemoryRequest& request);
  hal::Result<wire::Empty> unregisterMemory(Session& session, const wire::UnregisterMemoryRequest& request);

 private:
  // The pool RegisterMemory names: by shm_name, or by passed_descriptor from descriptors_.
  hal::Result<hal::SharedMemory> mapRegisteredMemory(const wire::RegisterMemoryRequest& request) const;

  std::shared_ptr<DescriptorInbox> descriptors_;  // null but in a backend host
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_MEMORY_RPCS_H_
