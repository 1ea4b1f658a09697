// Memory pools that hold constants, request arguments and device-buffer contents.
#ifndef NNREMOTE_HAL_MEMORY_H_
#define NNREMOTE_HAL_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hal/result.h"

namespace nnremote::hal {

// A mapped, writable region of bytes. Outputs are written through a const pointer to a Memory
// (the pool is shared, its contents are not), as with AOSP's SharedMemory.
class Memory {
 public:
  virtual ~Memory() = default;
  virtual uint8_t* data() const = 0;
  virtual size_t size() const = 0;
  // The POSIX shared-memory name for pools another process on this host can map; empty for
  // process-private memory.
  virtual const std::string& sharedName() const;
  // A descriptor of the pool's pages, for handing them to another process (SCM_RIGHTS), which
  // works after the name is unlinked too; -1 if there is none. The Memory keeps it.
  virtual int descriptor() const;
  // Whether an access found pages of the shared object gone while it was mapped here (its owner
  // shrank it, or /dev/shm had no room for a page; hal/truncation_guard.h): the pool now holds
  // zeros that no one else sees, so whatever read or wrote it is void. Always false for
  // process-private memory.
  virtual bool truncated() const;
};

using SharedMemory = std::shared_ptr<const Memory>;

// Process-private memory, zero-filled.
Result<SharedMemory> createHeapMemory(size_t size);

// Process-private memory holding a copy of `bytes`.
Result<SharedMemory> createHeapMemory(const std::vector<uint8_t>& bytes);

// POSIX shared memory, zero-filled, that another process on this host (with the same user) can
// map by sharedName(). The name is random (128 bits), so other clients cannot guess it; the
// object is created 0600 and unlinked when this Memory is destroyed (mappings others hold stay
// valid until they unmap). Its pages are allocated at once, so a /dev/shm without room for them
// is RESOURCE_EXHAUSTED_PERSISTENT here, not a SIGBUS at some later write.
Result<SharedMemory> createSharedMemory(size_t size);

// Maps shared memory another process created, checking that it is exactly `size` bytes. The
// result keeps the descriptor (descriptor()).
Result<SharedMemory> mapSharedMemory(const std::string& name, size_t size);

// Maps the shared memory behind `fd`, handed over by another process, checking that it is
// exactly `size` bytes. Takes `fd` over (closed on failure). The result has no name.
Result<SharedMemory> mapSharedDescriptor(int fd, size_t size);

// INVALID_ARGUMENT naming `what` if `memory` is truncated(); OK otherwise.
Status checkNotTruncated(const SharedMemory& memory, const std::string& what);
// The same for each of `pools`, named "`what` K".
Status checkNotTruncated(const std::vector<SharedMemory>& pools, const std::string& what);

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_MEMORY_H_
