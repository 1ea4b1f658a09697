// ANeuralNetworksMemory: memory the program shares with devices. From a file descriptor
// (Memory_createFromFd: a regular file, a memfd or a /dev/shm object) it is mapped here, so what
// the program writes through its own mapping is what executions read and what they write shows
// through it; a /dev/shm object also reaches a same-host server by name, without copies. From a
// descriptor (Memory_createFromDesc, memory_desc.h) it is a device's buffer (a memory domain), or
// shared memory where the device cannot allocate one and the NDK allows falling back; either way
// it may serve only the roles the descriptor named, and it knows whether it holds data yet.
#ifndef NNREMOTE_RUNTIME_MEMORY_H_
#define NNREMOTE_RUNTIME_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>
#include <vector>

#include "hal/i_buffer.h"
#include "hal/memory.h"
#include "hal/result.h"

namespace nnremote::runtime {

class Compilation;

// One use a descriptor names: input or output `index` of executions of `compilation`.
struct MemoryRole {
  const Compilation* compilation;
  bool isInput;
  uint32_t index;
  bool operator<(const MemoryRole& o) const {
    return std::tie(compilation, isInput, index) < std::tie(o.compilation, o.isInput, o.index);
  }
};

// What a memory from a descriptor is for, and what it holds now (the NDK's rules: an input must
// have been written, by an execution or Memory_copy, and keeps the dimensions written).
class DescribedUse {
 public:
  DescribedUse(std::set<MemoryRole> roles, hal::Operand operand, std::vector<uint32_t> dimensions)
      : roles_(std::move(roles)), operand_(std::move(operand)), initialDimensions_(dimensions),
        dimensions_(std::move(dimensions)) {}

  bool allows(const MemoryRole& role) const { return roles_.count(role) > 0; }
  // The operand's type, scale, zero point and extra parameters; dimensions as the descriptor set.
  const hal::Operand& operand() const { return operand_; }
  const std::vector<uint32_t>& initialDimensions() const { return initialDimensions_; }

  bool initialized() const;
  std::vector<uint32_t> dimensions() const;
  // Records what an execution or a copy wrote (or that it failed, which leaves nothing valid).
  void written(bool ok, const std::vector<uint32_t>& dimensions);

 private:
  const std::set<MemoryRole> roles_;
  const hal::Operand operand_;
  const std::vector<uint32_t> initialDimensions_;
  mutable std::mutex mutex_;
  std::vector<uint32_t> dimensions_;
  bool initialized_ = false;
};

class Memory {
 public:
  // Maps `size` bytes of `fd` from `offset` with `protect` (PROT_READ | PROT_WRITE).
  static hal::Result<Memory*> fromFd(size_t size, int protect, int fd, size_t offset);
  // A memory for a descriptor's roles: a device's buffer, or shared memory standing in for one.
  static Memory* described(hal::SharedBuffer buffer, std::shared_ptr<DescribedUse> use);
  static Memory* described(hal::SharedMemory memory, std::shared_ptr<DescribedUse> use);

  // Null for a device's buffer, which the program cannot map.
  const hal::SharedMemory& memory() const { return memory_; }
  const hal::SharedBuffer& buffer() const { return buffer_; }
  // What a request names this memory by.
  hal::Request::MemoryPool pool() const;
  // Bytes; 0 for a device's buffer.
  size_t size() const { return memory_ ? memory_->size() : 0; }
  // Null for a memory from a descriptor of the program's own (createFromFd).
  DescribedUse* use() const { return use_.get(); }

 private:
  Memory(hal::SharedMemory memory, hal::SharedBuffer buffer, std::shared_ptr<DescribedUse> use)
      : memory_(std::move(memory)), buffer_(std::move(buffer)), use_(std::move(use)) {}
  const hal::SharedMemory memory_;
  const hal::SharedBuffer buffer_;
  const std::shared_ptr<DescribedUse> use_;
};

// Memory_copy with the NDK's rules: a source from a descriptor must hold data; the two must agree
// on size (or, for memories from descriptors, on type and dimensions). A result code.
int copyMemory(const Memory& from, const Memory& to);

// The program's own bytes as a hal::Memory, not copied: an execution's pointer arguments.
hal::SharedMemory pointerMemory(void* data, size_t size);

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_MEMORY_H_
