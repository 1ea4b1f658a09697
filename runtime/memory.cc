#include "runtime/memory.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <limits>
#include <string>

#include <android/NeuralNetworks.h>

#include "hal/operand_types.h"
#include "hal/validation.h"
#include "runtime/result_codes.h"

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
  if (offset > std::numeric_limits<size_t>::max() - size) {
    return hal::invalidArgument() << "offset " << offset << " + size " << size << " does not fit in a size_t";
  }
  // A file (a memfd, POSIX shared memory, a regular file) shorter than what is mapped maps anyway,
  // and the first touch of a page past its end raises SIGBUS: in the caller, or in nnremote's copy
  // of an input. Said here instead. Devices (dma-bufs) have no such size to compare.
  struct stat status {};
  if (::fstat(fd, &status) != 0) return hal::invalidArgument() << "fd " << fd << ": " << std::strerror(errno);
  if (S_ISREG(status.st_mode) && static_cast<uint64_t>(status.st_size) < uint64_t{offset} + size) {
    return hal::invalidArgument() << "fd " << fd << " holds " << status.st_size << " bytes, so " << size
                                  << " bytes at offset " << offset << " reach past its end";
  }
  const long page = sysconf(_SC_PAGESIZE);
  const size_t aligned = offset - offset % static_cast<size_t>(page);
  const size_t mapped = size + (offset - aligned);
  void* base = mmap(nullptr, mapped, protect, MAP_SHARED, fd, static_cast<off_t>(aligned));
  if (base == MAP_FAILED) {
    return hal::makeError(hal::ErrorStatus::INVALID_ARGUMENT)
           << "cannot map " << size << " bytes of fd " << fd << " at offset " << offset << ": " << std::strerror(errno);
  }
  uint8_t* data = static_cast<uint8_t*>(base) + (offset - aligned);
  auto memory = std::make_shared<MappedMemory>(base, mapped, data, size, sharedMemoryName(fd, offset));
  return new Memory(std::move(memory), nullptr, nullptr);
}

Memory* Memory::described(hal::SharedBuffer buffer, std::shared_ptr<DescribedUse> use) {
  return new Memory(nullptr, std::move(buffer), std::move(use));
}

Memory* Memory::described(hal::SharedMemory memory, std::shared_ptr<DescribedUse> use) {
  return new Memory(std::move(memory), nullptr, std::move(use));
}

hal::Request::MemoryPool Memory::pool() const {
  if (buffer_) return buffer_;
  return memory_;
}

bool DescribedUse::initialized() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return initialized_;
}

std::vector<uint32_t> DescribedUse::dimensions() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dimensions_;
}

void DescribedUse::written(bool ok, const std::vector<uint32_t>& dimensions) {
  std::lock_guard<std::mutex> lock(mutex_);
  initialized_ = ok;
  if (ok && !dimensions.empty()) dimensions_ = dimensions;
}

int copyMemory(const Memory& from, const Memory& to) {
  const char* function = "ANeuralNetworksMemory_copy";
  if (&from == &to) return ANEURALNETWORKS_NO_ERROR;
  const DescribedUse* source = from.use();
  DescribedUse* destination = to.use();
  if (source != nullptr && !source->initialized()) {
    return refuse(function, ANEURALNETWORKS_BAD_DATA, "the source memory holds no data yet");
  }
  // What the source holds: its operand's bytes of its dimensions, or all its bytes.
  const std::vector<uint32_t> dimensions = source ? source->dimensions() : std::vector<uint32_t>{};
  const size_t logicalSize =
      source ? hal::sizeOfData(source->operand().type, dimensions).value_or(0) : from.size();
  auto fail = [&](int code, const std::string& why) {
    if (destination != nullptr) destination->written(false, {});
    return refuse(function, code, why);
  };
  if (destination != nullptr) {
    const hal::Operand& wanted = destination->operand();
    if (source != nullptr && (source->operand().type != wanted.type || source->operand().scale != wanted.scale ||
                              source->operand().zeroPoint != wanted.zeroPoint ||
                              !(source->operand().extraParams == wanted.extraParams))) {
      return fail(ANEURALNETWORKS_BAD_DATA, "the memories are for operands of different types");
    }
    auto combined = hal::combineDimensions(dimensions, destination->initialDimensions());
    if (!combined.ok()) return fail(ANEURALNETWORKS_BAD_DATA, "the memories' dimensions disagree");
    const auto size = hal::sizeOfData(wanted.type, *combined);
    if (logicalSize != 0 && size.value_or(0) != logicalSize) {
      return fail(ANEURALNETWORKS_BAD_DATA, "the source holds " + std::to_string(logicalSize) +
                                                " bytes, the destination's operand takes " +
                                                std::to_string(size.value_or(0)));
    }
  } else if (logicalSize != to.size()) {
    return fail(ANEURALNETWORKS_BAD_DATA,
                "sizes differ: " + std::to_string(logicalSize) + " and " + std::to_string(to.size()));
  }
  hal::Status copied;
  if (from.buffer() && to.buffer()) {
    // Between two devices' buffers through memory of the runtime's own.
    auto staging = hal::createSharedMemory(std::max<size_t>(logicalSize, 1));
    if (!staging.ok()) return fail(ANEURALNETWORKS_OUT_OF_MEMORY, staging.error().message);
    copied = from.buffer()->copyTo(*staging);
    if (copied.ok()) copied = to.buffer()->copyFrom(*staging, dimensions);
  } else if (to.buffer()) {
    copied = to.buffer()->copyFrom(from.memory(), dimensions);
  } else if (from.buffer()) {
    copied = from.buffer()->copyTo(to.memory());
  } else {
    if (from.size() != to.size()) {
      return fail(ANEURALNETWORKS_BAD_DATA,
                  "sizes differ: " + std::to_string(from.size()) + " and " + std::to_string(to.size()));
    }
    std::memmove(to.memory()->data(), from.memory()->data(), from.size());
  }
  if (!copied.ok()) {
    if (destination != nullptr) destination->written(false, {});
    return refuse(function, copied.error());
  }
  if (destination != nullptr) destination->written(true, dimensions);
  return ANEURALNETWORKS_NO_ERROR;
}

hal::SharedMemory pointerMemory(void* data, size_t size) { return std::make_shared<PointerMemory>(data, size); }

}  // namespace nnremote::runtime
