#include "hal/memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>
#include <random>

#include "hal/truncation_guard.h"

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

class PosixSharedMemory final : public Memory {
 public:
  // `descriptor` (or -1) stays open for handing the pages to another process; `name` (or "") is
  // how others on this host may open them, and is unlinked at the end by the owner.
  PosixSharedMemory(std::string name, int descriptor, uint8_t* data, size_t size, bool owner)
      : name_(std::move(name)), descriptor_(descriptor), data_(data), size_(size), owner_(owner) {
    // Whoever holds a descriptor or the name can shrink the object under the mapping, our own
    // pools included (a client may ftruncate the burst queue a server made).
    guard_.emplace(data_, size_);
  }
  ~PosixSharedMemory() override {
    guard_.reset();  // before the pages go, so the signal handler never matches a stale range
    if (data_ != nullptr) ::munmap(data_, size_ == 0 ? 1 : size_);
    if (descriptor_ >= 0) ::close(descriptor_);
    if (owner_) ::shm_unlink(name_.c_str());
  }
  uint8_t* data() const override { return data_; }
  size_t size() const override { return size_; }
  const std::string& sharedName() const override { return name_; }
  int descriptor() const override { return descriptor_; }
  bool truncated() const override { return guard_->truncated(); }

 private:
  std::string name_;
  int descriptor_;
  uint8_t* data_;
  size_t size_;
  bool owner_;
  std::optional<GuardedMapping> guard_;
};

std::string randomShmName() {
  static std::random_device device;
  char name[64];
  std::snprintf(name, sizeof(name), "/nnremote-%d-%08x%08x%08x%08x", static_cast<int>(::getpid()),
                device(), device(), device(), device());
  return name;
}

// Maps `fd` (which it closes unless `keepDescriptor`). What it maps is named `name` in errors,
// and unlinked if this process `owner`s it.
Result<SharedMemory> mapDescriptor(int fd, const std::string& name, size_t size, bool owner, bool keepDescriptor) {
  void* data = ::mmap(nullptr, size == 0 ? 1 : size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int mapError = errno;
  if (data == MAP_FAILED || !keepDescriptor) {
    ::close(fd);
    fd = -1;
  }
  if (data == MAP_FAILED) {
    if (owner) ::shm_unlink(name.c_str());
    return makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
           << "cannot map shared memory " << (name.empty() ? "handed over by descriptor" : name) << " (" << size
           << " bytes): " << std::strerror(mapError);
  }
  return SharedMemory(std::make_shared<PosixSharedMemory>(name, fd, static_cast<uint8_t*>(data), size, owner));
}

// Whether the object behind `fd` is exactly `size` bytes long (shared memory of size 0 is 1).
bool hasSize(int fd, size_t size) {
  struct stat status;
  return ::fstat(fd, &status) == 0 && static_cast<size_t>(status.st_size) == (size == 0 ? 1 : size);
}

// Sizes the object behind `fd` to `size` bytes with all its pages allocated; 0 or an errno.
int reserve(int fd, size_t size) {
  int error;
  do {
    error = ::posix_fallocate(fd, 0, static_cast<off_t>(size));
  } while (error == EINTR);  // tmpfs gives up a long reservation when a signal arrives
  return error;
}

// How much room /dev/shm has, for the error that says it had too little.
std::string shmRoom() {
  struct statvfs status;
  if (::statvfs("/dev/shm", &status) != 0) return "/dev/shm is full";
  return "/dev/shm has " + std::to_string(uint64_t(status.f_bavail) * status.f_frsize) + " of " +
         std::to_string(uint64_t(status.f_blocks) * status.f_frsize) + " bytes free";
}

}  // namespace

Result<SharedMemory> createSharedMemory(size_t size) {
  const std::string name = randomShmName();
  const int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) {
    return makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
           << "cannot create shared memory " << name << ": " << std::strerror(errno);
  }
  // Every page is taken now rather than at its first write: on a full /dev/shm (a container's is
  // 64 MiB by default) that write would raise SIGBUS in whichever process made it, a client's
  // included, where no guard mends it; here it is an error the caller can report.
  const int error = reserve(fd, size == 0 ? 1 : size);
  if (error != 0) {
    ::close(fd);
    ::shm_unlink(name.c_str());
    return makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
           << "cannot reserve " << size << " bytes of shared memory " << name << ": " << std::strerror(error)
           << (error == ENOSPC ? " (" + shmRoom() + ")" : std::string());
  }
  return mapDescriptor(fd, name, size, /*owner=*/true, /*keepDescriptor=*/false);
}

Result<SharedMemory> mapSharedMemory(const std::string& name, size_t size) {
  if (name.empty() || name[0] != '/' || name.find('/', 1) != std::string::npos) {
    return makeError(ErrorStatus::INVALID_ARGUMENT) << "'" << name << "' is not a shared-memory name";
  }
  const int fd = ::shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
    // This process's fault, not the name's: it may succeed once descriptors are closed.
    return makeError(ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT)
           << "cannot open shared memory " << name << ": " << std::strerror(errno);
  }
  if (fd < 0) {
    return makeError(ErrorStatus::INVALID_ARGUMENT)
           << "cannot open shared memory " << name << ": " << std::strerror(errno)
           << " (it must exist on the server's host)";
  }
  if (!hasSize(fd, size)) {
    ::close(fd);
    return makeError(ErrorStatus::INVALID_ARGUMENT)
           << "shared memory " << name << " is not " << size << " bytes long";
  }
  // A server keeps the descriptor of what clients register, to hand the pages on to a process
  // of its own (a backend host) even after the client unlinks the name.
  return mapDescriptor(fd, name, size, /*owner=*/false, /*keepDescriptor=*/true);
}

Result<SharedMemory> mapSharedDescriptor(int fd, size_t size) {
  if (fd < 0) return makeError(ErrorStatus::INVALID_ARGUMENT) << "no descriptor to map";
  if (!hasSize(fd, size)) {
    ::close(fd);
    return makeError(ErrorStatus::INVALID_ARGUMENT) << "the shared memory handed over is not " << size << " bytes long";
  }
  return mapDescriptor(fd, "", size, /*owner=*/false, /*keepDescriptor=*/true);
}

const std::string& Memory::sharedName() const {
  static const std::string* const kNone = new std::string();
  return *kNone;
}

int Memory::descriptor() const { return -1; }

bool Memory::truncated() const { return false; }

Status checkNotTruncated(const SharedMemory& memory, const std::string& what) {
  if (memory == nullptr || !memory->truncated()) return {};
  const std::string& name = memory->sharedName();
  // A page can also go missing when /dev/shm is full and a hole in the object is first touched.
  return makeError(ErrorStatus::INVALID_ARGUMENT)
         << what << ": the shared memory" << (name.empty() ? "" : " " + name)
         << " lost pages under the server's mapping (its owner shrank it below its " << memory->size()
         << " bytes, or /dev/shm had no room for them); what the server read from or wrote to it is void";
}

Status checkNotTruncated(const std::vector<SharedMemory>& pools, const std::string& what) {
  for (size_t i = 0; i < pools.size(); ++i) {
    // Named only when refused: this runs twice on every execution.
    if (pools[i] != nullptr && pools[i]->truncated()) {
      return checkNotTruncated(pools[i], what + " " + std::to_string(i));
    }
  }
  return {};
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
