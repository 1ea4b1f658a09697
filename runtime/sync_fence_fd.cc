#include "runtime/sync_fence_fd.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace nnremote::runtime {
namespace {

using State = hal::SyncFence::State;

// What a readable sync-fence fd says: a socket's first byte, or success for anything else.
State stateOfReadable(int fd) {
  char status = 0;
  const ssize_t peeked = recv(fd, &status, 1, MSG_PEEK | MSG_DONTWAIT);
  if (peeked == 1) return status == 0 ? State::SIGNALED : State::ERROR;
  if (peeked == 0) return State::ERROR;  // the peer closed without saying
  return errno == ENOTSOCK ? State::SIGNALED : State::ERROR;
}

}  // namespace

struct ImportedFence::Cancel {
  explicit Cancel(int fd) : fd(fd) {}
  ~Cancel() { close(fd); }
  const int fd;
};

hal::Result<int> exportSyncFence(const hal::SyncFence& fence) {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "socketpair: " << std::strerror(errno);
  }
  const int ours = ends[1];
  fence.onSignal([ours](State state) {
    const char status = state == State::SIGNALED ? 0 : 1;
    // The program may have closed its end already: no SIGPIPE for it, just nothing to tell.
    (void)!send(ours, &status, 1, MSG_NOSIGNAL);
    close(ours);
  });
  return ends[0];
}

hal::Result<std::unique_ptr<ImportedFence>> ImportedFence::watch(int fd) {
  if (fd < 0 || fcntl(fd, F_GETFD) < 0) return hal::invalidArgument() << "fd " << fd << " is not an open descriptor";
  const int watched = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  const int cancel = eventfd(0, EFD_CLOEXEC);
  if (watched < 0 || cancel < 0) {
    if (watched >= 0) close(watched);
    if (cancel >= 0) close(cancel);
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "cannot watch fd " << fd << ": " << std::strerror(errno);
  }
  hal::SyncFence fence = hal::SyncFence::create();
  auto stop = std::make_shared<Cancel>(cancel);
  // One thread per imported fence, ended by the fence or by the importer giving up on it.
  std::thread([fence, watched, stop] {
    pollfd fds[2] = {{watched, POLLIN, 0}, {stop->fd, POLLIN, 0}};
    State state = State::ERROR;
    for (;;) {
      const int ready = poll(fds, 2, -1);
      if (ready < 0 && errno == EINTR) continue;
      if (ready > 0 && (fds[0].revents & POLLIN)) state = stateOfReadable(watched);
      break;  // readable, hung up, cancelled or failed
    }
    fence.signal(state != State::SIGNALED);
    close(watched);
  }).detach();
  return std::unique_ptr<ImportedFence>(new ImportedFence(std::move(fence), std::move(stop)));
}

ImportedFence::~ImportedFence() {
  const uint64_t one = 1;
  (void)!write(cancel_->fd, &one, sizeof one);
}

}  // namespace nnremote::runtime
