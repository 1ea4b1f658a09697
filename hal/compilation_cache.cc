#include "hal/compilation_cache.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nnremote::hal {
namespace {

constexpr const char* kKeyFileName = "compilation-cache.key";

Error fileError(std::string_view what, const char* doing) {
  return makeError(ErrorStatus::GENERAL_FAILURE) << what << ": " << doing << " failed: " << std::strerror(errno);
}

Status writeAll(int fd, const uint8_t* data, size_t size, uint64_t offset) {
  while (size > 0) {
    const ssize_t written = ::pwrite(fd, data, size, static_cast<off_t>(offset));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return makeError(ErrorStatus::GENERAL_FAILURE) << "write failed: " << std::strerror(errno);
    data += written;
    size -= static_cast<size_t>(written);
    offset += static_cast<uint64_t>(written);
  }
  return {};
}

// Reads up to `size` bytes from `offset`; fewer only at the end of the file.
Result<size_t> readUpTo(int fd, uint8_t* data, size_t size, uint64_t offset) {
  size_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, data + done, size - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return makeError(ErrorStatus::GENERAL_FAILURE) << "read failed: " << std::strerror(errno);
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  return done;
}

}  // namespace

CacheSecret randomCacheSecret() {
  CacheSecret secret;
  if (RAND_bytes(secret.bytes.data(), static_cast<int>(secret.bytes.size())) != 1) {
    // OpenSSL's generator only fails when the system has no entropy source at all.
    std::abort();
  }
  return secret;
}

Result<CacheSecret> loadOrCreateCacheSecret(const std::string& stateDirectory) {
  if (::mkdir(stateDirectory.c_str(), 0700) != 0 && errno != EEXIST) {
    return makeError(ErrorStatus::GENERAL_FAILURE)
           << "cannot create the state directory " << stateDirectory << ": " << std::strerror(errno);
  }
  const std::string path = stateDirectory + "/" + kKeyFileName;
  CacheSecret secret;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 && errno == ENOENT) {
    secret = randomCacheSecret();
    // O_EXCL: of two servers starting on one directory, one creates the key and the other reads it.
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
      const Status written = writeAll(fd, secret.bytes.data(), secret.bytes.size(), 0);
      ::close(fd);
      if (!written.ok()) return makeError(ErrorStatus::GENERAL_FAILURE) << path << ": " << written.error().message;
      return secret;
    }
    if (errno != EEXIST) {
      return makeError(ErrorStatus::GENERAL_FAILURE) << "cannot create " << path << ": " << std::strerror(errno);
    }
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  }
  if (fd < 0) return makeError(ErrorStatus::GENERAL_FAILURE) << "cannot open " << path << ": " << std::strerror(errno);
  const FileDescriptor owner(fd);
  struct stat info {};
  if (::fstat(fd, &info) != 0) return makeError(ErrorStatus::GENERAL_FAILURE) << path << ": " << std::strerror(errno);
  if ((info.st_mode & 077) != 0) {
    return makeError(ErrorStatus::GENERAL_FAILURE)
           << path << " can be read by others (mode " << std::oct << (info.st_mode & 0777)
           << "); it must be 0600, since anyone holding it can forge compilation caches";
  }
  NN_ASSIGN_OR_RETURN(const size_t got, readUpTo(fd, secret.bytes.data(), secret.bytes.size(), 0));
  uint8_t extra = 0;
  NN_ASSIGN_OR_RETURN(const size_t more, readUpTo(fd, &extra, 1, secret.bytes.size()));
  if (got != secret.bytes.size() || more != 0) {
    return makeError(ErrorStatus::GENERAL_FAILURE)
           << path << " is not a key: it must hold exactly " << secret.bytes.size() << " bytes";
  }
  return secret;
}

Digest sha256(const uint8_t* data, size_t size) {
  Digest digest;
  SHA256(data, size, digest.data());
  return digest;
}

Digest hmacSha256(const CacheSecret& secret, const std::vector<std::string_view>& parts) {
  std::string message;
  for (std::string_view part : parts) {
    const uint64_t length = part.size();
    message.append(reinterpret_cast<const char*>(&length), sizeof(length));
    message.append(part);
  }
  Digest digest;
  unsigned int digestLength = 0;
  HMAC(EVP_sha256(), secret.bytes.data(), static_cast<int>(secret.bytes.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest.data(), &digestLength);
  return digest;
}

bool digestsEqual(const Digest& a, const Digest& b) { return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0; }

Status checkCacheFiles(const std::vector<CacheFile>& files, uint32_t expected, std::string_view what,
                       CacheAccess access) {
  if (files.size() != expected) {
    return makeError(ErrorStatus::GENERAL_FAILURE)
           << what << " has " << files.size() << " handles; this device needs " << expected;
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].fds.size() != 1 || files[i].fds[0] == nullptr) {
      return makeError(ErrorStatus::GENERAL_FAILURE)
             << what << "[" << i << "] holds " << files[i].fds.size() << " file descriptors; it must hold 1";
    }
    const int flags = ::fcntl(files[i].fds[0]->get(), F_GETFL);
    if (flags < 0) {
      return makeError(ErrorStatus::GENERAL_FAILURE) << what << "[" << i << "] is not an open file descriptor";
    }
    const int mode = flags & O_ACCMODE;
    const bool usable = access == CacheAccess::READ ? (mode == O_RDONLY || mode == O_RDWR)
                                                    : (mode == O_WRONLY || mode == O_RDWR);
    if (!usable) {
      return makeError(ErrorStatus::GENERAL_FAILURE)
             << what << "[" << i << "] is not open for " << (access == CacheAccess::READ ? "reading" : "writing");
    }
  }
  return {};
}

Result<std::vector<uint8_t>> readCacheFile(const CacheFile& file, std::string_view what, uint64_t maxBytes) {
  const int fd = file.fds.at(0)->get();
  struct stat info {};
  if (::fstat(fd, &info) != 0) return fileError(what, "fstat");
  const uint64_t size = static_cast<uint64_t>(info.st_size);
  if (size > maxBytes) {
    return makeError(ErrorStatus::GENERAL_FAILURE) << what << " has " << size << " bytes, more than " << maxBytes;
  }
  // One pass into memory: everything later is checked and parsed from this copy, so a writer
  // racing with us (VTS's TOCTOU tests) can only make the check fail, never change what loads.
  std::vector<uint8_t> bytes(size);
  auto got = readUpTo(fd, bytes.data(), bytes.size(), 0);
  if (!got.ok()) return makeError(ErrorStatus::GENERAL_FAILURE) << what << ": " << got.error().message;
  bytes.resize(*got);
  return bytes;
}

Result<std::vector<uint8_t>> readCacheFileHead(const CacheFile& file, std::string_view what, size_t bytes,
                                               uint64_t* fileSize) {
  const int fd = file.fds.at(0)->get();
  struct stat info {};
  if (::fstat(fd, &info) != 0) return fileError(what, "fstat");
  *fileSize = static_cast<uint64_t>(info.st_size);
  std::vector<uint8_t> head(bytes);
  auto got = readUpTo(fd, head.data(), head.size(), 0);
  if (!got.ok()) return makeError(ErrorStatus::GENERAL_FAILURE) << what << ": " << got.error().message;
  head.resize(*got);
  return head;
}

Status writeCacheFile(const CacheFile& file, std::string_view what, const uint8_t* data, size_t size) {
  const int fd = file.fds.at(0)->get();
  if (::ftruncate(fd, 0) != 0) return fileError(what, "truncate");
  if (Status written = writeAll(fd, data, size, 0); !written.ok()) {
    return makeError(ErrorStatus::GENERAL_FAILURE) << what << ": " << written.error().message;
  }
  return {};
}

Result<CacheFile> openCacheFile(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0600);
  if (fd < 0) return makeError(ErrorStatus::GENERAL_FAILURE) << "cannot open " << path << ": " << std::strerror(errno);
  return CacheFile{{std::make_shared<const FileDescriptor>(fd)}};
}

Result<std::vector<CacheFile>> openCacheFiles(const std::string& directory, const std::string& stem, uint32_t count,
                                              bool* created) {
  if (created != nullptr) *created = false;
  std::vector<CacheFile> files;
  for (uint32_t i = 0; i < count; ++i) {
    const std::string path = directory + "/" + stem + "-" + std::to_string(i);
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
      if (created != nullptr) *created = true;
    } else if (errno == EEXIST) {
      fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    }
    if (fd < 0)
      return makeError(ErrorStatus::GENERAL_FAILURE) << "cannot open " << path << ": " << std::strerror(errno);
    files.push_back(CacheFile{{std::make_shared<const FileDescriptor>(fd)}});
  }
  return files;
}

}  // namespace nnremote::hal
