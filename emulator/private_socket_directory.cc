#include "emulator/private_socket_directory.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>

namespace nnremote::emulator {
namespace {

constexpr char kParent[] = "/tmp";
constexpr char kPrefix[] = "nnremote-backend-";
constexpr char kLock[] = "/owner.lock";

void removeContents(const std::string& path) {
  ::unlink((path + "/backend.sock").c_str());
  ::unlink((path + "/backend.sock.lock").c_str());  // the backend host's listener's (unix_listener.h)
  ::unlink((path + kLock).c_str());
  ::rmdir(path.c_str());
}

}  // namespace

int PrivateSocketDirectory::removeAbandoned() {
  int removed = 0;
  std::error_code error;
  // Stepped with error codes: /tmp changes under us, and a throw would end the server.
  for (std::filesystem::directory_iterator entry(kParent, error), end; !error && entry != end; entry.increment(error)) {
    const std::string name = entry->path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    const std::string path = entry->path().string();
    struct stat info;
    if (::lstat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != ::geteuid()) continue;
    // No lock file: one being made (create names it only once locked), or not one of ours.
    const int lock = ::open((path + kLock).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (lock < 0) continue;
    if (::flock(lock, LOCK_EX | LOCK_NB) == 0) {
      removeContents(path);
      ++removed;
    }
    ::close(lock);
  }
  return removed;
}

hal::Result<std::unique_ptr<PrivateSocketDirectory>> PrivateSocketDirectory::create() {
  static std::once_flag swept;
  std::call_once(swept, [] { removeAbandoned(); });
  std::string pattern = std::string(kParent) + "/" + kPrefix + "XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
           << "cannot make a directory for the backend host's socket: " << std::strerror(errno);
  }
  // Locked before it is given its name: another server looking for abandoned directories in
  // between finds no lock file and leaves this one alone.
  const std::string unnamed = pattern + kLock + ".new";
  const int lock = ::open(unnamed.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (lock < 0 || ::flock(lock, LOCK_EX) != 0 || ::rename(unnamed.c_str(), (pattern + kLock).c_str()) != 0) {
    const int cause = errno;
    if (lock >= 0) ::close(lock);
    ::unlink(unnamed.c_str());
    ::rmdir(pattern.c_str());
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
           << "cannot lock " << pattern << kLock << ": " << std::strerror(cause);
  }
  return std::unique_ptr<PrivateSocketDirectory>(new PrivateSocketDirectory(pattern, lock));
}

PrivateSocketDirectory::~PrivateSocketDirectory() {
  removeContents(path_);
  ::close(lock_);  // only now: until the directory is gone, no one takes it for abandoned
}

}  // namespace nnremote::emulator
