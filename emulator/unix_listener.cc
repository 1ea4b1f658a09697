#include "emulator/unix_listener.h"

#include <fcntl.h>
#include <grp.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/server_posix.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <deque>
#include <unordered_map>

#include "emulator/accept_guard.h"
#include "wire/address.h"
#include "wire/unix_socket_path.h"

namespace nnremote::emulator {
namespace {

// Adds `fd` to (or changes it in) epoll set `events`, reporting `watched`; the event names it.
bool watch(int events, int op, int fd, uint32_t watched) {
  epoll_event interest{};
  interest.events = watched;
  interest.data.fd = fd;
  return ::epoll_ctl(events, op, fd, &interest) == 0;
}

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
  NN_ASSIGN_OR_RETURN(const wire::Address where, wire::parseAddress(address, wire::AddressUse::kListen));
  std::unique_ptr<UnixListener> listener(new UnixListener());
  sockaddr_un name{};
  name.sun_family = AF_UNIX;
  socklen_t length = 0;
  // The parse checked that the name fits.
  if (where.kind == wire::Address::Kind::kUnixAbstract) {
    std::memcpy(name.sun_path + 1, where.name.data(), where.name.size());  // sun_path[0] = 0: abstract
    length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + where.name.size());
  } else if (where.kind == wire::Address::Kind::kUnixPath) {
    listener->path_ = where.name;
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
  events_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (events_ < 0) return systemError("epoll_create1");
  for (const int fd : {socket_, wakeup_[0]}) {
    if (!watch(events_, EPOLL_CTL_ADD, fd, EPOLLIN)) return systemError("epoll_ctl");
  }
  thread_ = std::thread([this, server, peers, speakWithin] { acceptLoop(server, peers, speakWithin); });
  return {};
}

void UnixListener::acceptLoop(grpc::Server* server, UnixPeers* peers, std::chrono::milliseconds speakWithin) {
  using Clock = std::chrono::steady_clock;
  // Accepted, and not yet heard from: gRPC would keep a connection added from outside, silent or
  // not, for as long as the client holds it open. Each is in the epoll set until it speaks,
  // hangs up or runs out of time. Every wait is `speakWithin`, so accepting order is deadline
  // order and the deadlines are a queue; a connection that left it early stays queued, known by
  // its serial (its descriptor may be another connection's by then), until its deadline passes.
  // So a flood of silent connections costs the listener the same per connection, however many
  // are held: a client arriving behind thousands is served as soon as its turn in the backlog
  // comes (docs/security.md: 0.08 s behind 5,100; a poll() over them all at each accept made a
  // client wait 4.9 s behind 4,900).
  struct Silent {
    uid_t uid;
    uint64_t serial;
  };
  struct Deadline {
    Clock::time_point at;
    int connection;
    uint64_t serial;
  };
  std::unordered_map<int, Silent> silent;
  std::deque<Deadline> deadlines;
  uint64_t serials = 0;
  auto forget = [&](int connection) {
    (void)::epoll_ctl(events_, EPOLL_CTL_DEL, connection, nullptr);
    silent.erase(connection);
  };
  // After an accept that found nothing where epoll said a connection waits, the listener sits out
  // one short wait: a connection the kernel has no memory for stays pending, and epoll would
  // report it again at once. Accepting is bounded per wake-up, so silent connections' events
  // and the wake-up pipe are heard during a flood too.
  constexpr int kRestMs = 10;
  constexpr int kAcceptsPerWakeUp = 64;
  bool resting = false;
  std::array<epoll_event, 64> ready;
  for (;;) {
    int timeoutMs = resting ? kRestMs : -1;
    if (!deadlines.empty()) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadlines.front().at - Clock::now()).count();
      const int64_t untilFirst = std::max<int64_t>(0, left);
      timeoutMs = static_cast<int>(timeoutMs < 0 ? untilFirst : std::min<int64_t>(timeoutMs, untilFirst));
    }
    const int count = ::epoll_wait(events_, ready.data(), static_cast<int>(ready.size()), timeoutMs);
    if (count < 0 && errno != EINTR) break;
    if (resting) {  // listen again
      (void)watch(events_, EPOLL_CTL_MOD, socket_, EPOLLIN);
      resting = false;
    }
    bool pending = false, stopping = false;
    for (int i = 0; i < std::max(count, 0); ++i) {
      const int fd = ready[i].data.fd;
      if (fd == wakeup_[0]) {
        stopping = true;
        continue;
      }
      if (fd == socket_) {
        pending = true;
        continue;
      }
      const auto found = silent.find(fd);
      if (found == silent.end()) continue;
      const uid_t uid = found->second.uid;
      forget(fd);
      if ((ready[i].events & EPOLLIN) != 0) {
        // Recorded before gRPC sees the connection, so its first call already has an identity.
        peers->connected("fd:" + std::to_string(fd), uid);
        grpc::AddInsecureChannelFromFd(server, fd);
      } else {
        ::close(fd);  // gone without a word
      }
    }
    if (stopping) break;
    const auto now = Clock::now();
    while (!deadlines.empty() && deadlines.front().at <= now) {
      const Deadline due = deadlines.front();
      deadlines.pop_front();
      const auto found = silent.find(due.connection);
      if (found == silent.end() || found->second.serial != due.serial) continue;  // it left earlier
      forget(due.connection);
      ::close(due.connection);  // silent for too long
    }
    for (int accepted = 0; pending && accepted < kAcceptsPerWakeUp; ++accepted) {
      const int connection = acceptGuarded(socket_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (connection < 0) {
        // None left pending, or out of descriptors (refused by the guard), or no memory: rest
        // when not even the first could be taken.
        if (accepted == 0) resting = watch(events_, EPOLL_CTL_MOD, socket_, 0);
        break;
      }
      ucred credentials{};
      socklen_t size = sizeof(credentials);
      if (::getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0 ||
          !watch(events_, EPOLL_CTL_ADD, connection, EPOLLIN | EPOLLRDHUP)) {
        ::close(connection);
        continue;
      }
      silent[connection] = {credentials.uid, ++serials};
      deadlines.push_back({now + speakWithin, connection, serials});
    }
  }
  for (const auto& [connection, unused] : silent) ::close(connection);
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
  if (events_ >= 0) ::close(events_);
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
