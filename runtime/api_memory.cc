// The NDK's memory functions: memories from the program's descriptors, and memory domains
// (MemoryDesc_*, Memory_createFromDesc; memory_desc.h).
#include <android/NeuralNetworks.h>

#include <cstring>

#include "runtime/handles.h"
#include "runtime/result_codes.h"

using nnremote::runtime::fromHandle;
using nnremote::runtime::Memory;
using nnremote::runtime::MemoryDesc;
using nnremote::runtime::refuse;
using nnremote::runtime::toHandle;

extern "C" {

int ANeuralNetworksMemory_createFromFd(size_t size, int protect, int fd, size_t offset,
                                       ANeuralNetworksMemory** memory) {
  if (memory != nullptr) *memory = nullptr;
  if (memory == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "memory is NULL");
  auto created = Memory::fromFd(size, protect, fd, offset);
  if (!created.ok()) return refuse(__func__, ANEURALNETWORKS_BAD_DATA, created.error().message);
  *memory = toHandle(*created);
  return ANEURALNETWORKS_NO_ERROR;
}

void ANeuralNetworksMemory_free(ANeuralNetworksMemory* memory) { delete fromHandle(memory); }

int ANeuralNetworksMemory_copy(const ANeuralNetworksMemory* src, const ANeuralNetworksMemory* dst) {
  if (src == nullptr || dst == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  return nnremote::runtime::copyMemory(*fromHandle(src), *fromHandle(dst));
}

int ANeuralNetworksMemoryDesc_create(ANeuralNetworksMemoryDesc** desc) {
  if (desc == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "desc is NULL");
  *desc = toHandle(new MemoryDesc());
  return ANEURALNETWORKS_NO_ERROR;
}

void ANeuralNetworksMemoryDesc_free(ANeuralNetworksMemoryDesc* desc) { delete fromHandle(desc); }

int ANeuralNetworksMemoryDesc_addInputRole(ANeuralNetworksMemoryDesc* desc, const ANeuralNetworksCompilation* compilation,
                                           uint32_t index, float frequency) {
  if (desc == nullptr || compilation == nullptr) {
    return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "desc or compilation is NULL");
  }
  return fromHandle(desc)->addRole(*fromHandle(compilation)->compilation, true, index, frequency);
}

int ANeuralNetworksMemoryDesc_addOutputRole(ANeuralNetworksMemoryDesc* desc,
                                            const ANeuralNetworksCompilation* compilation, uint32_t index,
                                            float frequency) {
  if (desc == nullptr || compilation == nullptr) {
    return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "desc or compilation is NULL");
  }
  return fromHandle(desc)->addRole(*fromHandle(compilation)->compilation, false, index, frequency);
}

int ANeuralNetworksMemoryDesc_setDimensions(ANeuralNetworksMemoryDesc* desc, uint32_t rank,
                                            const uint32_t* dimensions) {
  if (desc == nullptr || (rank > 0 && dimensions == nullptr)) {
    return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "desc is NULL, or dimensions with a rank above 0");
  }
  return fromHandle(desc)->setDimensions(std::vector<uint32_t>(dimensions, dimensions + rank));
}

int ANeuralNetworksMemoryDesc_finish(ANeuralNetworksMemoryDesc* desc) {
  if (desc == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "desc is NULL");
  return fromHandle(desc)->finish();
}

int ANeuralNetworksMemory_createFromDesc(const ANeuralNetworksMemoryDesc* desc, ANeuralNetworksMemory** memory) {
  if (memory != nullptr) *memory = nullptr;
  if (desc == nullptr || memory == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  Memory* created = nullptr;
  const int code = fromHandle(desc)->allocate(&created);
  if (code == ANEURALNETWORKS_NO_ERROR) *memory = toHandle(created);
  return code;
}

}  // extern "C"
