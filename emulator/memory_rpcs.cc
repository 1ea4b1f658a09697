#include "emulator/memory_rpcs.h"

#include <chrono>

#include "emulator/session_quotas.h"

namespace nnremote::emulator {

using hal::ErrorStatus;
using hal::makeError;

namespace {

// How long RegisterMemory waits for a passed descriptor that has not arrived on its side channel
// yet: the parent sends it just before the call, so only a stalled channel takes this long.
constexpr std::chrono::milliseconds kDescriptorWait{5000};

}  // namespace

void MemoryRpcs::addTo(RpcTable& table) {
  // Answered at once: mapping shared memory is quick, and a passed descriptor is already here.
  table.add("RegisterMemory", Runs::kNow, this, &MemoryRpcs::registerMemory);
  table.add("UnregisterMemory", Runs::kNow, this, &MemoryRpcs::unregisterMemory);
}

hal::Result<hal::SharedMemory> MemoryRpcs::mapRegisteredMemory(const wire::RegisterMemoryRequest& request) const {
  if (request.passed_descriptor() == 0) {
    auto memory = hal::mapSharedMemory(request.shm_name(), request.size());
    if (!memory.ok()) return hal::withContext(memory.error(), "shm_name");
    return memory;
  }
  if (!request.shm_name().empty()) {
    return makeError(ErrorStatus::INVALID_ARGUMENT) << "RegisterMemory names shm_name and passed_descriptor; one is enough";
  }
  if (descriptors_ == nullptr) {
    return makeError(ErrorStatus::INVALID_ARGUMENT)
           << "passed_descriptor: this server takes no descriptors (only a backend host does); register by shm_name";
  }
  NN_ASSIGN_OR_RETURN(const int descriptor, descriptors_->take(request.passed_descriptor(), kDescriptorWait));
  auto memory = hal::mapSharedDescriptor(descriptor, request.size());
  if (!memory.ok()) return hal::withContext(memory.error(), "passed_descriptor");
  return memory;
}

hal::Result<wire::RegisterMemoryResponse> MemoryRpcs::registerMemory(Session& session,
                                                                     const wire::RegisterMemoryRequest& request) {
  // Counted until unmapped: after UnregisterMemory, a request or burst cache still using it
  // keeps it mapped.
  NN_ASSIGN_OR_RETURN(hal::SharedMemory memory,
                      session.holdMemory(request.size(), Session::PoolOrigin::kClientShared, "a registration",
                                         [&] { return mapRegisteredMemory(request); }));
  wire::RegisterMemoryResponse response;
  response.set_memory_id(session.registeredMemories.add(std::move(memory)));
  return response;
}

hal::Result<wire::Empty> MemoryRpcs::unregisterMemory(Session& session, const wire::UnregisterMemoryRequest& request) {
  NN_RETURN_IF_ERROR(session.registeredMemories.erase(request.memory_id()));
  return wire::Empty();
}

}  // namespace nnremote::emulator
