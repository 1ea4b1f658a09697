#include "wire/unix_socket_path.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nnremote::wire {

UnixSocketPath probeUnixSocketPath(const std::string& path) {
  struct stat status {};
  if (::lstat(path.c_str(), &status) != 0) {
    if (errno == ENOENT) return {UnixSocketPathState::kMissing, 0};
    return {UnixSocketPathState::kUnknown, errno};
  }
  if (!S_ISSOCK(status.st_mode)) return {UnixSocketPathState::kNotASocket, 0};
  sockaddr_un name{};
  name.sun_family = AF_UNIX;
  if (path.size() >= sizeof(name.sun_path)) return {UnixSocketPathState::kUnknown, ENAMETOOLONG};
  std::memcpy(name.sun_path, path.data(), path.size());
  const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (probe < 0) return {UnixSocketPathState::kUnknown, errno};
  const bool answered = ::connect(probe, reinterpret_cast<const sockaddr*>(&name), sizeof(name)) == 0;
  const int cause = errno;
  ::close(probe);
  if (answered || cause == EAGAIN) return {UnixSocketPathState::kListening, 0};  // EAGAIN: backlog full
  if (cause == ECONNREFUSED) return {UnixSocketPathState::kStale, 0};
  return {UnixSocketPathState::kUnknown, cause};
}

}  // namespace nnremote::wire
