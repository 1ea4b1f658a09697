#include "emulator/unix_listener.h"

#include <fcntl.h>
#include <grp.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/server_posix.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "emulator/accept_guard.h"
#include "wire/unix_socket_path.h"

namespace nnremote::emulator {
namespace {

hal::Error systemError(const std::string& what) {
  return hal::makeError(hal::ErrorStatus::DEVICE_UNAVAILABLE) << what << ": " << std::strerror(errno);
}

// Makes way for binding `path`: removes a socket file that a server which could not clean up
// (killed) left there, which would make bind fail. Refuses, as a TCP port would, when a server
// listens on it: taking its path would leave that server running unreachable to new clients. And
// leaves alone anything that is not a socket: a mistyped --listen must not delete a file.
hal::Status removeStaleSocket(const std::string& address, const std::string& path) {
  const wire::UnixSocketPath found = wire::probeUnixSocketPath(path);
  switch (found.state) {
    case wire::UnixSocketPathState::kMissing:
      return {};
    case wire::UnixSocketPathState::kNotASocket:
      return hal::makeError(hal::ErrorStatus::DEVICE_UNAVAILABLE)
             << "cannot listen on " << address << ": " << path << " exists and is not a socket";
    case wire::UnixSocketPathState::kListening:
      return hal::makeError(hal::ErrorStatus::DEVICE_UNAVAILABLE)
             << "cannot listen on " << address << ": address in use (a server listens on " << path << ")";
    case wire::UnixSocketPathState::kUnknown:  // e.g. another user's socket: not ours to judge
      errno = found.error;
      return systemError("cannot listen on " + address + ": cannot tell whether a server listens on " + path);
    case wire::UnixSocketPathState::kStale:
      break;
  }
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return systemError("cannot remove the stale socket " + path);
  return {};
}

// Two servers starting on one path at once would each take the other's socket file for one a
// killed server left: between its bind and its listen a starting server's socket answers no one,
// so the second would remove it and bind its own, and the first would serve on, unreachable. So
// starting on a path, and serving there, holds a lock on PATH.lock: the descriptor it returns.
hal::Result<int> lockSocketPath(const std::string& address, const std::string& path) {
  const std::string lockPath = path + ".lock";
  // The holder before us removes the file as it stops; a lock taken on the file it removed
  // guards nothing, so the lock is taken again on the file the path names now.
  for (int attempt = 0; attempt < 16; ++attempt) {
    const int lock = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lock < 0) return systemError("cannot listen on " + address + ": cannot open " + lockPath);
    if (::flock(lock, LOCK_EX | LOCK_NB) != 0) {
      const int cause = errno;
      ::close(lock);
      if (cause == EWOULDBLOCK) {
        return hal::makeError(hal::ErrorStatus::DEVICE_UNAVAILABLE)
               << "cannot listen on " << address << ": address in use (a server listens on " << path
               << ", or is starting to: it holds " << lockPath << ")";
      }
      errno = cause;
      return systemError("cannot listen on " + address + ": cannot lock " + lockPath);
    }
    struct stat locked {};
    struct stat named {};
    if (::fstat(lock, &locked) == 0 && ::stat(lockPath.c_str(), &named) == 0 && locked.st_dev == named.st_dev &&
        locked.st_ino == named.st_ino) {
      return lock;
    }
    ::close(lock);
  }
  return hal::makeError(hal::ErrorStatus::DEVICE_UNAVAILABLE)
         << "cannot listen on " << address << ": " << lockPath << " kept being replaced while it was locked";
}

}  // namespace

hal::Result<gid_t> groupId(const std::string& group) {
  if (group.empty()) return hal::invalidArgument() << "--socket-group is empty";
  if (group.find_first_not_of("0123456789") == std::string::npos) return static_cast<gid_t>(std::stoul(group));
  const struct group* entry = ::getgrnam(group.c_str());
  if (entry == nullptr) return hal::invalidArgument() << "--socket-group: no group named '" << group << "'";
  return entry->gr_gid;
}

hal::Result<std::unique_ptr<UnixListener>> UnixListener::bind(const std::string& address, std::optional<gid_t> group) {
  std::unique_ptr<UnixListener> listener(new UnixListener());
  sockaddr_un name{};
  name.sun_family = AF_UNIX;
  socklen_t length = 0;
  if (address.rfind("unix-abstract:", 0) == 0) {
    const std::string abstract = address.substr(std::strlen("unix-abstract:"));
    if (abstract.empty() || abstract.size() + 1 > sizeof(name.sun_path)) {
      return hal::invalidArgument() << "'" << address << "' is not a usable abstract socket name";
    }
    std::memcpy(name.sun_path + 1, abstract.data(), abstract.size());  // sun_path[0] = 0: abstract
    length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + abstract.size());
  } else if (address.rfind("unix:", 0) == 0) {
    listener->path_ = address.substr(std::strlen("unix:"));
    if (listener->path_.empty() || listener->path_.size() + 1 > sizeof(name.sun_path)) {
      return hal::invalidArgument() << "'" << address << "' is not a usable socket path (at most "
                                    << sizeof(name.sun_path) - 1 << " characters)";
    }
    std::memcpy(name.sun_path, listener->path_.data(), listener->path_.size());
    length = static_cast<socklen_t>(sizeof(name));
    NN_ASSIGN_OR_RETURN(listener->lock_, lockSocketPath(address, listener->path_));
    NN_RETURN_IF_ERROR(removeStaleSocket(address, listener->path_));
  } else {
    return hal::invalidArgument() << "'" << address << "' is not a unix socket address";
  }
  // Non-blocking: a client gone between poll and accept must not hold the loop until the next.
  listener->socket_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listener->socket_ < 0) return systemError("socket");
  if (::bind(listener->socket_, reinterpret_cast<const sockaddr*>(&name), length) != 0) {
    return systemError("cannot listen on " + address);
  }
  // Until listen() nobody can connect, so the mode is right before the first client arrives.
  if (!listener->path_.empty()) {
    if (group.has_value() && ::chown(listener->path_.c_str(), static_cast<uid_t>(-1), *group) != 0) {
      return systemError("cannot give " + listener->path_ + " to group " + std::to_string(*group));
    }
    if (::chmod(listener->path_.c_str(), group.has_value() ? 0660 : 0600) != 0) {
      return systemError("cannot set the mode of " + listener->path_);
    }
    struct stat status {};
    if (::stat(listener->path_.c_str(), &status) == 0) listener->inode_ = status.st_ino;
  }
  if (::pipe2(listener->wakeup_, O_CLOEXEC) != 0) return systemError("pipe");
  return listener;
}

hal::Status UnixListener::accept(grpc::Server* server, UnixPeers* peers, std::chrono::milliseconds speakWithin) {
  if (::listen(socket_, SOMAXCONN) != 0) return systemError("listen");
  thread_ = std::thread([this, server, peers, speakWithin] { acceptLoop(server, peers, speakWithin); });
  return {};
}

void UnixListener::acceptLoop(grpc::Server* server, UnixPeers* peers, std::chrono::milliseconds speakWithin) {
  using Clock = std::chrono::steady_clock;
  // Accepted, and not yet heard from: gRPC would keep a connection added from outside, silent or
  // not, for as long as the client holds it open.
  struct Silent {
    int connection;
    uid_t uid;
    Clock::time_point deadline;
  };
  std::vector<Silent> silent;
  std::vector<pollfd> waits;
  // After a failed accept the listener sits out one short wait: a connection the kernel has no
  // memory for stays pending, and would have poll report it again at once.
  constexpr int kRestMs = 10;
  bool resting = false;
  for (;;) {
    waits = {{socket_, static_cast<short>(resting ? 0 : POLLIN), 0}, {wakeup_[0], POLLIN, 0}};
    int timeoutMs = resting ? kRestMs : -1;
    resting = false;
    for (const Silent& waiting : silent) {
      waits.push_back({waiting.connection, POLLIN, 0});
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(waiting.deadline - Clock::now()).count();
      timeoutMs = static_cast<int>(std::max<int64_t>(0, timeoutMs < 0 ? left : std::min<int64_t>(timeoutMs, left)));
    }
    if (::poll(waits.data(), waits.size(), timeoutMs) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (waits[1].revents != 0) break;
    const auto now = Clock::now();
    size_t kept = 0;
    for (size_t i = 0; i < silent.size(); ++i) {
      const short heard = waits[2 + i].revents;
      if ((heard & POLLIN) != 0) {
        // Recorded before gRPC sees the connection, so its first call already has an identity.
        peers->connected("fd:" + std::to_string(silent[i].connection), silent[i].uid);
        grpc::AddInsecureChannelFromFd(server, silent[i].connection);
      } else if (heard != 0 || now >= silent[i].deadline) {
        ::close(silent[i].connection);  // gone without a word, or silent for too long
      } else {
        silent[kept++] = silent[i];
      }
    }
    silent.resize(kept);
    if (waits[0].revents == 0) continue;
    const int connection = acceptGuarded(socket_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (connection < 0) {  // none left pending (out of descriptors: refused by the guard), or no memory
      resting = true;
      continue;
    }
    ucred credentials{};
    socklen_t size = sizeof(credentials);
    if (::getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) {
      ::close(connection);
      continue;
    }
    silent.push_back({connection, credentials.uid, now + speakWithin});
  }
  for (const Silent& waiting : silent) ::close(waiting.connection);
}

void UnixListener::stop() {
  if (thread_.joinable()) {
    const char wake = 1;
    (void)!::write(wakeup_[1], &wake, 1);
    thread_.join();
  }
}

UnixListener::~UnixListener() {
  stop();
  if (socket_ >= 0) ::close(socket_);
  for (int fd : wakeup_) {
    if (fd >= 0) ::close(fd);
  }
  // Only the socket this listener made: someone may have replaced it by hand meanwhile.
  struct stat status {};
  if (!path_.empty() && ::stat(path_.c_str(), &status) == 0 && status.st_ino == inode_) ::unlink(path_.c_str());
  if (lock_ >= 0) {
    ::unlink((path_ + ".lock").c_str());  // while still locked: see lockSocketPath
    ::close(lock_);
  }
}

}  // namespace nnremote::emulator
