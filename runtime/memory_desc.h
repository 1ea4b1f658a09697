// ANeuralNetworksMemoryDesc: what a memory from Memory_createFromDesc will be used for (inputs and
// outputs of finished compilations) and its shape. allocate() asks the one device that runs every
// role for a buffer of its own (hal::IDevice::allocate, a memory domain); where the roles span
// devices or the device refuses, it falls back to shared memory as the NDK allows (not for
// compilations made for chosen devices, nor for a shape not fully known).
#ifndef NNREMOTE_RUNTIME_MEMORY_DESC_H_
#define NNREMOTE_RUNTIME_MEMORY_DESC_H_

#include <optional>
#include <set>
#include <vector>

#include "hal/types.h"
#include "runtime/compilation.h"
#include "runtime/memory.h"

namespace nnremote::runtime {

class MemoryDesc {
 public:
  // Result codes as the NDK's: BAD_STATE once finished, BAD_DATA for a role or shape that does
  // not fit the others.
  int addRole(const Compilation& compilation, bool isInput, uint32_t index, float frequency);
  int setDimensions(const std::vector<uint32_t>& dimensions);
  int finish();
  // Memory_createFromDesc: the memory, or the result code of why not (BAD_STATE unfinished).
  int allocate(Memory** memory) const;

 private:
  bool finished_ = false;
  std::set<MemoryRole> roles_;
  std::optional<hal::Operand> operand_;
  std::vector<uint32_t> dimensions_;
  // The prepared models the roles run on, and the roles by index into them.
  std::vector<hal::SharedPreparedModel> preparedModels_;
  std::vector<const RuntimeDevice*> devices_;  // per prepared model
  std::vector<hal::BufferRole> inputRoles_, outputRoles_;
  bool anyExplicitDevices_ = false;
};

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_MEMORY_DESC_H_
