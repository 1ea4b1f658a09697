#include "hal/memory.h"

#include <cstring>
#include <new>

namespace nnremote::hal {
namespace {

class HeapMemory final : public Memory {
 public:
  explicit HeapMemory(std::unique_ptr<uint8_t[]> bytes, size_t size)
      : bytes_(std::move(bytes)), size_(size) {}
  uint8_t* data() const override { return bytes_.get(); }
  size_t size() const override { return size_; }

 private:
  std::unique_ptr<uint8_t[]> bytes_;
  size_t size_;
};

}  // namespace

const std::string& Memory::sharedName() const {
  static const std::string* const kNone = new std::string();
  return *kNone;
}

Result<SharedMemory> createHeapMemory(size_t size) {
  std::unique_ptr<uint8_t[]> bytes(new (std::nothrow) uint8_t[size == 0 ? 1 : size]());
  if (bytes == nullptr) {
    return makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
           << "cannot allocate " << size << " bytes of memory";
  }
  return SharedMemory(std::make_shared<HeapMemory>(std::move(bytes), size));
}

Result<SharedMemory> createHeapMemory(const std::vector<uint8_t>& bytes) {
  NN_ASSIGN_OR_RETURN(SharedMemory memory, createHeapMemory(bytes.size()));
  if (!bytes.empty()) std::memcpy(memory->data(), bytes.data(), bytes.size());
  return memory;
}

}  // namespace nnremote::hal
