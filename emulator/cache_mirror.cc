#include "emulator/cache_mirror.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "hal/compilation_cache.h"
#include "hal/i_device.h"

namespace nnremote::emulator {
namespace {

using hal::ErrorStatus;
using hal::makeError;

// A device asks for at most this many files of each kind.
constexpr int kMaxHandles = static_cast<int>(hal::kMaxNumberOfCacheFiles);
constexpr uint32_t kMaxFdsPerHandle = 4;
constexpr uint64_t kMaxFileBytes = uint64_t{4} << 30;

hal::Result<hal::SharedFd> memoryFile(const std::string& contents, uint64_t size) {
  const int fd = ::memfd_create("nnremote-cache", MFD_CLOEXEC);
  if (fd < 0) return makeError(ErrorStatus::GENERAL_FAILURE) << "memfd_create failed: " << std::strerror(errno);
  auto owned = std::make_shared<const hal::FileDescriptor>(fd);
  hal::CacheFile file{{owned}};
  NN_RETURN_IF_ERROR(hal::writeCacheFile(file, "cache mirror", reinterpret_cast<const uint8_t*>(contents.data()),
                                         contents.size()));
  // A withheld body becomes a hole: the file has its full size and costs no memory.
  if (size > contents.size() && ::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    return makeError(ErrorStatus::GENERAL_FAILURE) << "ftruncate failed: " << std::strerror(errno);
  }
  return owned;
}

// Another descriptor for the same file with the client's access mode.
hal::Result<hal::SharedFd> reopen(const hal::SharedFd& file, wire::CacheFileAccess access) {
  int flags = O_PATH;
  if (access == wire::CACHE_FILE_READ_ONLY) flags = O_RDONLY;
  if (access == wire::CACHE_FILE_WRITE_ONLY) flags = O_WRONLY;
  if (access == wire::CACHE_FILE_READ_WRITE) flags = O_RDWR;
  const std::string path = "/proc/self/fd/" + std::to_string(file->get());
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return makeError(ErrorStatus::GENERAL_FAILURE) << "reopening a cache mirror failed: " << std::strerror(errno);
  return std::make_shared<const hal::FileDescriptor>(fd);
}

hal::Status appendContents(const std::vector<hal::SharedFd>& backing,
                           google::protobuf::RepeatedPtrField<std::string>* out) {
  for (const hal::SharedFd& fd : backing) {
    std::string* contents = out->Add();
    if (fd == nullptr) continue;
    NN_ASSIGN_OR_RETURN(const std::vector<uint8_t> bytes, hal::readCacheFile(hal::CacheFile{{fd}}, "cache mirror"));
    contents->assign(bytes.begin(), bytes.end());
  }
  return {};
}

}  // namespace

hal::Result<CacheMirror::Files> CacheMirror::mirror(const WireFiles& files, const char* field) {
  if (files.size() > kMaxHandles) {
    return makeError(ErrorStatus::INVALID_ARGUMENT) << field << " has " << files.size() << " handles; at most "
                                                    << kMaxHandles << " are accepted";
  }
  Files out;
  for (int i = 0; i < files.size(); ++i) {
    const wire::CacheFile& file = files[i];
    if (file.fd_count() > kMaxFdsPerHandle) {
      return makeError(ErrorStatus::INVALID_ARGUMENT) << field << "[" << i << "].fd_count = " << file.fd_count()
                                                      << " is more than " << kMaxFdsPerHandle;
    }
    if (!wire::CacheFileAccess_IsValid(file.access())) {
      return makeError(ErrorStatus::INVALID_ARGUMENT) << field << "[" << i << "].access = " << file.access()
                                                      << " is not a CacheFileAccess";
    }
    if (file.withheld_size() != 0 && (file.withheld_size() < file.contents().size() || file.withheld_size() > kMaxFileBytes)) {
      return makeError(ErrorStatus::INVALID_ARGUMENT)
             << field << "[" << i << "].withheld_size = " << file.withheld_size() << " is not between the "
             << file.contents().size() << " bytes sent and " << kMaxFileBytes;
    }
    hal::CacheFile handle;
    hal::SharedFd backing;
    for (uint32_t d = 0; d < file.fd_count(); ++d) {
      // Every descriptor of a malformed handle gets its own file; the device refuses the handle.
      NN_ASSIGN_OR_RETURN(hal::SharedFd memory, memoryFile(d == 0 ? file.contents() : std::string(),
                                                           d == 0 ? file.withheld_size() : 0));
      NN_ASSIGN_OR_RETURN(hal::SharedFd shaped, reopen(memory, file.access()));
      if (d == 0) backing = memory;
      handle.fds.push_back(std::move(shaped));
    }
    out.handles.push_back(std::move(handle));
    out.backing.push_back(std::move(backing));
  }
  return out;
}

hal::Result<CacheMirror> CacheMirror::create(const WireFiles& modelCache, const WireFiles& dataCache) {
  CacheMirror mirrored;
  NN_ASSIGN_OR_RETURN(mirrored.modelCache_, mirror(modelCache, "model_cache"));
  NN_ASSIGN_OR_RETURN(mirrored.dataCache_, mirror(dataCache, "data_cache"));
  return mirrored;
}

hal::Status CacheMirror::collectWritten(wire::PrepareModelResponse* response) const {
  // The mirrors of a PrepareModel start empty, so a file with bytes is one the device wrote.
  bool written = false;
  for (const Files* files : {&modelCache_, &dataCache_}) {
    for (const hal::SharedFd& fd : files->backing) {
      struct stat info {};
      if (fd != nullptr && ::fstat(fd->get(), &info) == 0 && info.st_size > 0) written = true;
    }
  }
  if (!written) return {};
  response->set_cache_written(true);
  NN_RETURN_IF_ERROR(appendContents(modelCache_.backing, response->mutable_model_cache_contents()));
  NN_RETURN_IF_ERROR(appendContents(dataCache_.backing, response->mutable_data_cache_contents()));
  return {};
}

}  // namespace nnremote::emulator
