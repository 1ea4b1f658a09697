// ANeuralNetworksMemory: memory the program shares with devices. From a file descriptor
// (Memory_createFromFd: a regular file, a memfd or a /dev/shm object) it is mapped here, so what
// the program writes through its own mapping is what executions read and what they write shows
// through it; a /dev/shm object also reaches a same-host server by name, without copies.
#ifndef NNREMOTE_RUNTIME_MEMORY_H_
#define NNREMOTE_RUNTIME_MEMORY_H_

#include <cstddef>
#include <cstdint>

#include "hal/memory.h"
#include "hal/result.h"

namespace nnremote::runtime {

class Memory {
 public:
  // Maps `size` bytes of `fd` from `offset` with `protect` (PROT_READ | PROT_WRITE).
  static hal::Result<Memory*> fromFd(size_t size, int protect, int fd, size_t offset);

  const hal::SharedMemory& memory() const { return memory_; }
  size_t size() const { return memory_->size(); }

 private:
  explicit Memory(hal::SharedMemory memory) : memory_(std::move(memory)) {}
  hal::SharedMemory memory_;
};

// The program's own bytes as a hal::Memory, not copied: an execution's pointer arguments.
hal::SharedMemory pointerMemory(void* data, size_t size);

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_MEMORY_H_
