#include "drivers/proxy/cache_transfer.h"

#include <fcntl.h>

#include <algorithm>

#include "hal/compilation_cache.h"

namespace nnremote::proxy {
namespace {

// Files above this size are held back on a first attempt; their first bytes still travel, which
// is where a device keeps what identifies the data (the simulator's header is 64 bytes).
constexpr size_t kWithholdAbove = size_t{64} << 10;
constexpr size_t kWithheldHead = 4096;

wire::CacheFileAccess accessOf(const hal::CacheFile& file) {
  if (file.fds.empty() || file.fds[0] == nullptr) return wire::CACHE_FILE_ACCESS_UNSPECIFIED;
  const int flags = ::fcntl(file.fds[0]->get(), F_GETFL);
  if (flags < 0 || (flags & O_PATH) != 0) return wire::CACHE_FILE_ACCESS_UNSPECIFIED;
  switch (flags & O_ACCMODE) {
    case O_RDONLY: return wire::CACHE_FILE_READ_ONLY;
    case O_WRONLY: return wire::CACHE_FILE_WRITE_ONLY;
    case O_RDWR: return wire::CACHE_FILE_READ_WRITE;
    default: return wire::CACHE_FILE_ACCESS_UNSPECIFIED;
  }
}

bool readable(wire::CacheFileAccess access) {
  return access == wire::CACHE_FILE_READ_ONLY || access == wire::CACHE_FILE_READ_WRITE;
}

bool writable(wire::CacheFileAccess access) {
  return access == wire::CACHE_FILE_WRITE_ONLY || access == wire::CACHE_FILE_READ_WRITE;
}

}  // namespace

hal::Status describeCacheFiles(const std::vector<hal::CacheFile>& files, CacheContents contents,
                               WireCacheFiles* wire, bool* withheld) {
  for (size_t i = 0; i < files.size(); ++i) {
    wire::CacheFile* out = wire->Add();
    out->set_fd_count(static_cast<uint32_t>(files[i].fds.size()));
    out->set_access(accessOf(files[i]));
    if (contents == CacheContents::NONE || files[i].fds.size() != 1 || !readable(out->access())) continue;
    if (contents == CacheContents::HEAD_OF_LARGE) {
      uint64_t size = 0;
      NN_ASSIGN_OR_RETURN(const std::vector<uint8_t> head,
                          hal::readCacheFileHead(files[i], "cache file", kWithheldHead, &size));
      if (size > kWithholdAbove) {
        out->set_contents(head.data(), head.size());
        out->set_withheld_size(std::max<uint64_t>(size, head.size()));
        if (withheld != nullptr) *withheld = true;
        continue;
      }
    }
    NN_ASSIGN_OR_RETURN(const std::vector<uint8_t> bytes, hal::readCacheFile(files[i], "cache file"));
    out->set_contents(bytes.data(), bytes.size());
  }
  return {};
}

hal::Status writeBackCacheFiles(const std::vector<hal::CacheFile>& files,
                                const google::protobuf::RepeatedPtrField<std::string>& contents) {
  if (static_cast<size_t>(contents.size()) != files.size()) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
           << "the server returned " << contents.size() << " cache files for " << files.size() << " handles";
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].fds.size() != 1 || !writable(accessOf(files[i]))) continue;
    const std::string& bytes = contents[static_cast<int>(i)];
    NN_RETURN_IF_ERROR(hal::writeCacheFile(files[i], "cache file", reinterpret_cast<const uint8_t*>(bytes.data()),
                                           bytes.size()));
  }
  return {};
}

}  // namespace nnremote::proxy
