#include "tools/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace nnremote::tools {

hal::Result<OutputFile> OutputFile::open(const std::string& flag, const std::string& path) {
  if (path.empty()) return OutputFile(flag, path, -1, false);
  // O_EXCL first, to know whether the file is ours to remove should the run fail.
  bool created = true;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0 && errno == EEXIST) {
    created = false;
    fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  }
  const int error = errno;
  OutputFile file(flag, path, fd, created);
  if (fd < 0) return file.failure(error);
  return file;
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : flag_(std::move(other.flag_)),
      path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      created_(other.created_) {}

OutputFile::~OutputFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  if (created_) ::unlink(path_.c_str());
}

hal::Error OutputFile::failure(int error) const {
  return hal::invalidArgument() << "--" << flag_ << ": cannot write " << path_ << ": " << std::strerror(error);
}

hal::Status OutputFile::write(const std::string& text) {
  if (fd_ < 0) return {};
  const int fd = std::exchange(fd_, -1);  // written (or failed) once: the destructor leaves it
  // Only a regular file is truncated: /dev/stdout or a pipe is written as it is.
  struct stat status;
  if (::fstat(fd, &status) == 0 && S_ISREG(status.st_mode) && ::ftruncate(fd, 0) != 0) {
    const int error = errno;
    ::close(fd);
    return failure(error);
  }
  for (size_t done = 0; done < text.size();) {
    const ssize_t wrote = ::write(fd, text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) {
      const int error = errno;
      ::close(fd);
      return failure(error);
    }
    done += static_cast<size_t>(wrote);
  }
  // close reports a deferred write error (NFS, a quota), which would otherwise lose the report.
  if (::close(fd) != 0) return failure(errno);
  return {};
}

}  // namespace nnremote::tools
