#include "hal/file_contents.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace nnremote::hal {

Result<std::string> readFileContents(const std::string& path) {
  // POSIX calls rather than a stream, for errno: "cannot read PATH" alone leaves a user guessing
  // between a typo, permissions and a directory.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return invalidArgument() << "cannot read " << path << ": " << std::strerror(errno);
  std::string contents;
  char chunk[64 * 1024];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error = errno;
      ::close(fd);
      return invalidArgument() << "cannot read " << path << ": " << std::strerror(error);
    }
    if (got == 0) break;
    contents.append(chunk, static_cast<size_t>(got));
  }
  ::close(fd);
  return contents;
}

Status makeWritableDirectory(const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) return invalidArgument() << path << ": " << error.message();
  if (!std::filesystem::is_directory(path, error)) return invalidArgument() << path << ": not a folder";
  // A file made and removed at once: permissions alone do not tell (a read-only mount, ACLs).
  std::string probe = path + "/.nnremote-write-check-XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return invalidArgument() << path << ": cannot create a file there: " << std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}

}  // namespace nnremote::hal
