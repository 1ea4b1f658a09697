// The NDK's memory functions. Memory domains (MemoryDesc_*, Memory_createFromDesc) are not
// implemented yet: they answer OP_FAILED saying so (docs/runtime.md).
#include <android/NeuralNetworks.h>

#include <cstring>

#include "runtime/handles.h"
#include "runtime/result_codes.h"

using nnremote::runtime::fromHandle;
using nnremote::runtime::Memory;
using nnremote::runtime::refuse;
using nnremote::runtime::toHandle;

namespace {

int notYet(const char* function) {
  return refuse(function, ANEURALNETWORKS_OP_FAILED,
                "memory domains (ANeuralNetworksMemoryDesc) are not implemented yet by this runtime");
}

}  // namespace

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
  const Memory& from = *fromHandle(src);
  const Memory& to = *fromHandle(dst);
  if (from.size() != to.size()) {
    return refuse(__func__, ANEURALNETWORKS_BAD_DATA,
                  "sizes differ: " + std::to_string(from.size()) + " and " + std::to_string(to.size()));
  }
  std::memmove(to.memory()->data(), from.memory()->data(), from.size());
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksMemoryDesc_create(ANeuralNetworksMemoryDesc** desc) {
  if (desc != nullptr) *desc = nullptr;
  if (desc == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "desc is NULL");
  return notYet(__func__);
}

void ANeuralNetworksMemoryDesc_free(ANeuralNetworksMemoryDesc*) {}

int ANeuralNetworksMemoryDesc_addInputRole(ANeuralNetworksMemoryDesc* desc, const ANeuralNetworksCompilation*,
                                           uint32_t, float) {
  if (desc == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "desc is NULL");
  return notYet(__func__);
}

int ANeuralNetworksMemoryDesc_addOutputRole(ANeuralNetworksMemoryDesc* desc, const ANeuralNetworksCompilation*,
                                            uint32_t, float) {
  if (desc == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "desc is NULL");
  return notYet(__func__);
}

int ANeuralNetworksMemoryDesc_setDimensions(ANeuralNetworksMemoryDesc* desc, uint32_t, const uint32_t*) {
  if (desc == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "desc is NULL");
  return notYet(__func__);
}

int ANeuralNetworksMemoryDesc_finish(ANeuralNetworksMemoryDesc* desc) {
  if (desc == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "desc is NULL");
  return notYet(__func__);
}

int ANeuralNetworksMemory_createFromDesc(const ANeuralNetworksMemoryDesc* desc, ANeuralNetworksMemory** memory) {
  if (memory != nullptr) *memory = nullptr;
  if (desc == nullptr || memory == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  return notYet(__func__);
}

}  // extern "C"
