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
};

using SharedMemory = std::shared_ptr<const Memory>;

// Process-private memory, zero-filled.
Result<SharedMemory> createHeapMemory(size_t size);

// Process-private memory holding a copy of `bytes`.
Result<SharedMemory> createHeapMemory(const std::vector<uint8_t>& bytes);

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_MEMORY_H_
