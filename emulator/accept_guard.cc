#include "emulator/accept_guard.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <iostream>
#include <mutex>

namespace nnremote::emulator {
namespace {

// Enough to drain a burst of connections in one call, few enough that a flood cannot keep the
// caller's thread here: what is left waits for the next call.
constexpr int kRefusalsPerCall = 256;
constexpr auto kReportInterval = std::chrono::seconds(10);

std::mutex reserveMutex;
int reserve = -1;  // guarded by reserveMutex
std::atomic<uint64_t> refused{0};
std::atomic<int64_t> lastReport{0};  // steady-clock seconds; 0: never

// The system call itself: in npu_emulator, accept4 is the interposer that calls us.
int acceptRaw(int listener, sockaddr* address, socklen_t* length, int flags) {
  return static_cast<int>(::syscall(SYS_accept4, listener, address, length, flags));
}

void armLocked() {
  if (reserve < 0) reserve = ::eventfd(0, EFD_CLOEXEC);
}

// Once per interval: a flood would otherwise write a line per connection.
void report() {
  const int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now().time_since_epoch()).count() + 1;
  int64_t last = lastReport.load();
  if (last != 0 && now - last < kReportInterval.count()) return;
  if (!lastReport.compare_exchange_strong(last, now)) return;
  rlimit descriptors{};
  ::getrlimit(RLIMIT_NOFILE, &descriptors);
  std::cerr << "npu_emulator: out of file descriptors (RLIMIT_NOFILE " << descriptors.rlim_cur
            << "): new connections are refused until some close (" << refused.load() << " so far)" << std::endl;
}

// Whether a connection waits on `listener`: out of descriptors, accept fails before it looks, and
// a blocking listener's accept with a descriptor to spare would wait for the next client.
bool connectionPending(int listener) {
  pollfd ready{listener, POLLIN, 0};
  return ::poll(&ready, 1, 0) == 1 && (ready.revents & POLLIN) != 0;
}

// Takes one pending connection with the reserve descriptor's slot and closes it. False when
// there was none pending, or the slot went to another thread first.
bool refusePending(int listener) {
  std::lock_guard<std::mutex> lock(reserveMutex);
  if (reserve < 0 || !connectionPending(listener)) return false;
  ::close(reserve);
  const int connection = acceptRaw(listener, nullptr, nullptr, SOCK_CLOEXEC);
  const int cause = errno;
  if (connection >= 0) ::close(connection);
  reserve = -1;
  armLocked();
  errno = cause;
  if (connection < 0) return false;
  refused.fetch_add(1);
  report();
  return true;
}

// accept(2): "Linux accept() passes already-pending network errors on the new socket as an
// error code from accept()" and the application should retry: they belong to that connection.
bool isConnectionsOwnError(int error) {
  switch (error) {
    case ECONNABORTED:
    case EPROTO:
    case EPERM:  // a firewall rule refused this connection
    case ENETDOWN:
    case ENOPROTOOPT:
    case EHOSTDOWN:
    case ENONET:
    case EHOSTUNREACH:
    case EOPNOTSUPP:
    case ENETUNREACH:
    case EINTR:
      return true;
    default:
      return false;
  }
}

}  // namespace

void armAcceptGuard() {
  std::lock_guard<std::mutex> lock(reserveMutex);
  armLocked();
}

int acceptGuarded(int listener, sockaddr* address, socklen_t* length, int flags) {
  for (int attempt = 0; attempt < kRefusalsPerCall; ++attempt) {
    const int connection = acceptRaw(listener, address, length, flags);
    if (connection >= 0) return connection;
    const int error = errno;
    if (isConnectionsOwnError(error)) {
      // Retried only while another waits: a blocking listener's accept would wait for the next.
      if (connectionPending(listener)) continue;
      errno = EAGAIN;
      return -1;
    }
    if (error == EMFILE || error == ENFILE) {
      if (refusePending(listener)) continue;
      armAcceptGuard();  // in case descriptors were freed since the slot was lost
      errno = EAGAIN;
      return -1;
    }
    // Out of kernel memory, the connection waits for some; other errors are the caller's.
    errno = error == ENOBUFS || error == ENOMEM ? EAGAIN : error;
    return -1;
  }
  errno = EAGAIN;
  return -1;
}

uint64_t connectionsRefusedWithoutDescriptors() { return refused.load(); }

}  // namespace nnremote::emulator
