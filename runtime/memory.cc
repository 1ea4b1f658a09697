#include "runtime/memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <climits>
#include <string>

namespace nnremote::runtime {
namespace {

// A mapping of the program's descriptor, unmapped with the last reference.
class MappedMemory final : public hal::Memory {
 public:
  MappedMemory(void* base, size_t mapped, uint8_t* data, size_t size, std::string sharedName)
      : base_(base), mapped_(mapped), data_(data), size_(size), sharedName_(std::move(sharedName)) {}
  ~MappedMemory() override { munmap(base_, mapped_); }
  uint8_t* data() const override { return data_; }
  size_t size() const override { return size_; }
  const std::string& sharedName() const override { return sharedName_; }

 private:
  void* const base_;
  const size_t mapped_;
  uint8_t* const data_;
  const size_t size_;
  const std::string sharedName_;
};

class PointerMemory final : public hal::Memory {
 public:
  PointerMemory(void* data, size_t size) : data_(static_cast<uint8_t*>(data)), size_(size) {}
  uint8_t* data() const override { return data_; }
  size_t size() const override { return size_; }

 private:
  uint8_t* const data_;
  const size_t size_;
};

// The POSIX shared-memory name of a descriptor opened from /dev/shm ("/NAME"), which a
// same-host server can map itself; empty for anything else. Only a mapping of the whole object
// from offset 0 is shared by name, since the server maps a name from its start.
std::string sharedMemoryName(int fd, size_t offset) {
  if (offset != 0) return {};
  char target[PATH_MAX];
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t length = readlink(link.c_str(), target, sizeof target - 1);
  if (length <= 0) return {};
  const std::string path(target, static_cast<size_t>(length));
  const std::string prefix = "/dev/shm/";
  if (path.rfind(prefix, 0) != 0 || path.find('/', prefix.size()) != std::string::npos) return {};
  return "/" + path.substr(prefix.size());
}

}  // namespace

hal::Result<Memory*> Memory::fromFd(size_t size, int protect, int fd, size_t offset) {
  if (size == 0) return hal::invalidArgument() << "size is 0";
  if ((protect & ~(PROT_READ | PROT_WRITE)) != 0) {
    return hal::invalidArgument() << "protect " << protect << " is not a combination of PROT_READ and PROT_WRITE";
  }
  const long page = sysconf(_SC_PAGESIZE);
  const size_t aligned = offset - offset % static_cast<size_t>(page);
  const size_t mapped = size + (offset - aligned);
  void* base = mmap(nullptr, mapped, protect, MAP_SHARED, fd, static_cast<off_t>(aligned));
  if (base == MAP_FAILED) {
    return hal::makeError(hal::ErrorStatus::INVALID_ARGUMENT)
           << "cannot map " << size << " bytes of fd " << fd << " at offset " << offset;
  }
  uint8_t* data = static_cast<uint8_t*>(base) + (offset - aligned);
  auto memory = std::make_shared<MappedMemory>(base, mapped, data, size, sharedMemoryName(fd, offset));
  return new Memory(std::move(memory));
}

hal::SharedMemory pointerMemory(void* data, size_t size) { return std::make_shared<PointerMemory>(data, size); }

}  // namespace nnremote::runtime
