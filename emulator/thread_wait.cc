#include "emulator/thread_wait.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

namespace nnremote::emulator {
namespace {

// A number as the syscall file writes it: decimal, or hex after "0x"; advances `at` past it.
bool parseNumber(const char*& at, uint64_t& value, bool& negative) {
  while (*at == ' ') ++at;
  negative = *at == '-';
  if (negative) ++at;
  const bool isHex = at[0] == '0' && at[1] == 'x';
  if (isHex) at += 2;
  const char* start = at;
  value = 0;
  for (;; ++at) {
    const char c = *at;
    if (c >= '0' && c <= '9') {
      value = value * (isHex ? 16 : 10) + static_cast<uint64_t>(c - '0');
    } else if (isHex && c >= 'a' && c <= 'f') {
      value = value * 16 + static_cast<uint64_t>(c - 'a' + 10);
    } else {
      break;
    }
  }
  return at != start;
}

// What to say of a call's arguments.
enum class Shows { kNothing, kFile, kFileAndRequest };

struct KnownCall {
  long number;
  const char* name;
  Shows shows;
};

// The calls a thread is found waiting in, in practice. Those that some architectures lack
// (aarch64 has only the newer forms) are listed where they exist.
constexpr KnownCall kKnownCalls[] = {
    {SYS_read, "read", Shows::kFile},
    {SYS_write, "write", Shows::kFile},
    {SYS_pread64, "pread64", Shows::kFile},
    {SYS_pwrite64, "pwrite64", Shows::kFile},
    {SYS_readv, "readv", Shows::kFile},
    {SYS_writev, "writev", Shows::kFile},
    {SYS_ioctl, "ioctl", Shows::kFileAndRequest},
    {SYS_fsync, "fsync", Shows::kFile},
    {SYS_fdatasync, "fdatasync", Shows::kFile},
    {SYS_flock, "flock", Shows::kFile},
    {SYS_fcntl, "fcntl", Shows::kFile},
    {SYS_close, "close", Shows::kFile},
    {SYS_accept4, "accept4", Shows::kFile},
    {SYS_connect, "connect", Shows::kFile},
    {SYS_recvfrom, "recvfrom", Shows::kFile},
    {SYS_recvmsg, "recvmsg", Shows::kFile},
    {SYS_sendto, "sendto", Shows::kFile},
    {SYS_sendmsg, "sendmsg", Shows::kFile},
    {SYS_epoll_pwait, "epoll_pwait", Shows::kFile},
    {SYS_ppoll, "ppoll", Shows::kNothing},
    {SYS_pselect6, "pselect6", Shows::kNothing},
    {SYS_futex, "futex", Shows::kNothing},
    {SYS_nanosleep, "nanosleep", Shows::kNothing},
    {SYS_clock_nanosleep, "clock_nanosleep", Shows::kNothing},
    {SYS_wait4, "wait4", Shows::kNothing},
    {SYS_waitid, "waitid", Shows::kNothing},
    {SYS_rt_sigsuspend, "rt_sigsuspend", Shows::kNothing},
    {SYS_rt_sigtimedwait, "rt_sigtimedwait", Shows::kNothing},
    {SYS_openat, "openat", Shows::kNothing},
    {SYS_mmap, "mmap", Shows::kNothing},
    {SYS_munmap, "munmap", Shows::kNothing},
    {SYS_msync, "msync", Shows::kNothing},
    {SYS_clone, "clone", Shows::kNothing},
    {SYS_io_getevents, "io_getevents", Shows::kNothing},
#ifdef SYS_accept
    {SYS_accept, "accept", Shows::kFile},
#endif
#ifdef SYS_epoll_wait
    {SYS_epoll_wait, "epoll_wait", Shows::kFile},
#endif
#ifdef SYS_poll
    {SYS_poll, "poll", Shows::kNothing},
#endif
#ifdef SYS_select
    {SYS_select, "select", Shows::kNothing},
#endif
#ifdef SYS_pause
    {SYS_pause, "pause", Shows::kNothing},
#endif
#ifdef SYS_vfork
    {SYS_vfork, "vfork", Shows::kNothing},
#endif
#ifdef SYS_open
    {SYS_open, "open", Shows::kNothing},
#endif
#ifdef SYS_io_uring_enter
    {SYS_io_uring_enter, "io_uring_enter", Shows::kFile},
#endif
};

const KnownCall* knownCall(long number) {
  for (const KnownCall& call : kKnownCalls) {
    if (call.number == number) return &call;
  }
  return nullptr;
}

}  // namespace

ssize_t readSmallFile(const char* path, char* buffer, size_t size) {
  const int file = ::open(path, O_RDONLY | O_CLOEXEC);
  if (file < 0) return -1;
  const ssize_t read = ::read(file, buffer, size - 1);
  ::close(file);
  if (read < 0) return -1;
  buffer[read] = '\0';
  return read;
}

ThreadWait readThreadWait(pid_t thread) {
  ThreadWait wait;
  SignalSafeText<63> path;
  path.text("/proc/self/task/").decimal(static_cast<uint64_t>(thread)).text("/syscall");
  // "NR ARG0 ... ARG5 SP PC" in a system call, "-1 SP PC" out of one, "running" if running.
  char text[256];
  if (readSmallFile(path.c_str(), text, sizeof text) <= 0) return wait;
  const char* at = text;
  uint64_t number = 0;
  bool negative = false;
  if (!parseNumber(at, number, negative)) return wait;
  wait.syscall = negative ? -1 : static_cast<long>(number);
  uint64_t values[8] = {};
  const int count = negative ? 2 : 8;  // SP and PC only, out of a system call
  for (int i = 0; i < count; ++i) {
    bool unused = false;
    if (!parseNumber(at, values[i], unused)) return wait;
  }
  if (!negative) std::memcpy(wait.arguments, values, sizeof wait.arguments);
  wait.pc = static_cast<uintptr_t>(values[count - 1]);
  wait.known = true;

  path.clear();
  path.text("/proc/self/task/").decimal(static_cast<uint64_t>(thread)).text("/wchan");
  // "0" where the kernel does not name its functions to this process.
  if (readSmallFile(path.c_str(), wait.kernelFunction, sizeof wait.kernelFunction) <= 0 ||
      std::strcmp(wait.kernelFunction, "0") == 0) {
    wait.kernelFunction[0] = '\0';
  }
  if (char* end = std::strchr(wait.kernelFunction, '\n')) *end = '\0';  // none is written, but be sure
  return wait;
}

void describeThreadWait(const ThreadWait& wait, SignalSafeText<1023>& line) {
  if (!wait.known) return;
  if (wait.syscall < 0) {
    line.text("in user space");
  } else {
    const KnownCall* call = knownCall(wait.syscall);
    line.text("in system call ");
    if (call != nullptr) {
      line.text(call->name);
    } else {
      line.text("number ").decimal(static_cast<uint64_t>(wait.syscall));
    }
    const auto fd = static_cast<int>(wait.arguments[0]);
    if (call != nullptr && call->shows != Shows::kNothing && fd >= 0) {
      line.text(" (fd ").decimal(static_cast<uint64_t>(fd));
      SignalSafeText<63> link;
      link.text("/proc/self/fd/").decimal(static_cast<uint64_t>(fd));
      char target[256];
      const ssize_t size = ::readlink(link.c_str(), target, sizeof target - 1);
      if (size > 0) {
        target[size] = '\0';
        line.text(": ").text(target);
      }
      if (call->shows == Shows::kFileAndRequest) line.text(", request ").hex(wait.arguments[1]);
      line.text(")");
    }
  }
  if (wait.kernelFunction[0] != '\0') line.text(", sleeping in the kernel in ").text(wait.kernelFunction);
}

}  // namespace nnremote::emulator
