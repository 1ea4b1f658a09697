#include "wire/tcp_peer.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

namespace nnremote::wire {
namespace {

using Clock = std::chrono::steady_clock;

int millisecondsLeft(Clock::time_point until) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// Waits for `events` on `fd` until `until`; false on timeout.
bool waitFor(int fd, short events, Clock::time_point until) {
  for (;;) {
    pollfd entry{fd, events, 0};
    const int ready = ::poll(&entry, 1, millisecondsLeft(until));
    if (ready > 0) return true;
    if (ready == 0 || errno != EINTR) return false;
  }
}

class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }

 private:
  int fd_;
};

// What the peer did after the preface: HTTP/2 frames begin with a 3-byte length and a type, and
// a server's first frame is SETTINGS (type 4); TLS records begin with 0x15 (alert) or 0x16.
TcpPeer readAnswer(int fd, Clock::time_point until) {
  unsigned char answer[9];
  size_t got = 0;
  while (got < sizeof answer) {
    if (!waitFor(fd, POLLIN, until)) break;
    const ssize_t n = ::recv(fd, answer + got, sizeof answer - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return {TcpPeerState::kClosedOnUs, std::strerror(errno)};
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  if (got == 0) return {waitFor(fd, POLLIN, Clock::now()) ? TcpPeerState::kClosedOnUs : TcpPeerState::kSilent, ""};
  if (answer[0] == 0x15 || answer[0] == 0x16) return {TcpPeerState::kClosedOnUs, ""};
  if (got >= 4 && answer[3] == 0x04) return {TcpPeerState::kPlaintextGrpc, ""};
  return {TcpPeerState::kOther, ""};
}

// A name lookup that may outlive its caller: getaddrinfo has no timeout of its own (a resolver
// that does not answer holds it for its retries, tens of seconds), so it runs on a thread of its
// own, which frees this when it ends, whether or not anyone still waits.
struct Lookup {
  std::mutex mutex;
  std::condition_variable done;
  bool finished = false;
  int error = 0;
  addrinfo* found = nullptr;
  ~Lookup() {
    if (found != nullptr) ::freeaddrinfo(found);
  }
};

// Resolves `host`:`port` by `until`: the lookup, or null when it did not finish in time.
std::shared_ptr<Lookup> resolve(const std::string& host, uint16_t port, Clock::time_point until) {
  auto lookup = std::make_shared<Lookup>();
  auto run = [lookup, host, service = std::to_string(port)] {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int error = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
    std::lock_guard<std::mutex> lock(lookup->mutex);
    lookup->error = error;
    lookup->found = found;
    lookup->finished = true;
    lookup->done.notify_all();
  };
  try {
    std::thread(run).detach();
  } catch (const std::system_error&) {
    run();  // no thread to be had: here, unbounded, as before
  }
  std::unique_lock<std::mutex> lock(lookup->mutex);
  if (!lookup->done.wait_until(lock, until, [&] { return lookup->finished; })) return nullptr;
  return lookup;
}

}  // namespace

TcpPeer probeTcpPeer(const Address& address, std::chrono::milliseconds timeout) {
  const auto until = Clock::now() + timeout;
  const std::shared_ptr<Lookup> lookup = resolve(address.resolverHost(), address.port, until);
  if (lookup == nullptr) {
    return {TcpPeerState::kDoesNotResolve,
            "the resolver did not answer within " + std::to_string(timeout.count()) + " ms"};
  }
  if (lookup->error != 0) return {TcpPeerState::kDoesNotResolve, ::gai_strerror(lookup->error), lookup->error};
  const addrinfo* found = lookup->found;
  TcpPeer result{TcpPeerState::kNoAnswer, ""};
  for (const addrinfo* candidate = found; candidate != nullptr && millisecondsLeft(until) > 0;
       candidate = candidate->ai_next) {
    Socket socket(::socket(candidate->ai_family, candidate->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (socket.fd() < 0) continue;
    int error = ::connect(socket.fd(), candidate->ai_addr, candidate->ai_addrlen) == 0 ? 0 : errno;
    if (error == EINPROGRESS) {
      if (!waitFor(socket.fd(), POLLOUT, until)) continue;  // kNoAnswer, unless another address answers
      socklen_t length = sizeof error;
      ::getsockopt(socket.fd(), SOL_SOCKET, SO_ERROR, &error, &length);
    }
    if (error == ECONNREFUSED) {
      result = {TcpPeerState::kRefused, std::strerror(error)};
      continue;
    }
    if (error != 0) {
      result = {TcpPeerState::kNoAnswer, std::strerror(error)};
      continue;
    }
    static constexpr char kPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    static constexpr unsigned char kEmptySettings[9] = {0, 0, 0, 4, 0, 0, 0, 0, 0};
    std::string hello(kPreface, sizeof kPreface - 1);
    hello.append(reinterpret_cast<const char*>(kEmptySettings), sizeof kEmptySettings);
    if (::send(socket.fd(), hello.data(), hello.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(hello.size())) {
      result = {TcpPeerState::kClosedOnUs, std::strerror(errno)};
      break;
    }
    result = readAnswer(socket.fd(), until);
    break;
  }
  return result;
}

}  // namespace nnremote::wire
