#include "hal/file_contents.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

}  // namespace nnremote::hal
