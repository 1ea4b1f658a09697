// Shared memory hal creates has its pages allocated at once (hal/memory.h), so a /dev/shm without
// room for them is an error at creation rather than a SIGBUS at some later write, in a client that
// has no guard against it. The full /dev/shm is a small tmpfs mounted over it in a child process's
// own mount namespace, as a container's 64 MiB one would be.
#include <dirent.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "hal/memory.h"

namespace nnremote::hal {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(SharedMemoryRoomTest, ACreatedPoolHoldsAllItsPages) {
  constexpr size_t kSize = 1 << 20;
  auto memory = createSharedMemory(kSize);
  ASSERT_TRUE(memory.ok()) << memory.error().message;
  const int fd = ::shm_open((*memory)->sharedName().c_str(), O_RDONLY, 0);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  struct stat status;
  ASSERT_EQ(::fstat(fd, &status), 0);
  ::close(fd);
  EXPECT_EQ(static_cast<size_t>(status.st_size), kSize);
  EXPECT_GE(static_cast<size_t>(status.st_blocks) * 512, kSize) << "the object is sparse: a write may find no room";
}

// Writes `line` to `fd` and ends the child.
[[noreturn]] void answer(int fd, const std::string& line) {
  (void)!::write(fd, line.data(), line.size());
  std::_Exit(0);
}

bool writeFile(const char* path, const std::string& text) {
  std::ofstream file(path);
  file << text;
  file.flush();
  return static_cast<bool>(file);
}

// A mount namespace of this (single-threaded, forked) process's own: as root if it may, else in
// a user namespace of its own, where it is root too. Empty or why not.
std::string enterMountNamespace() {
  if (::unshare(CLONE_NEWNS) == 0) return "";
  const uid_t uid = ::getuid();
  const gid_t gid = ::getgid();
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
    return std::string("cannot make a mount namespace: ") + std::strerror(errno);
  }
  if (!writeFile("/proc/self/setgroups", "deny") ||
      !writeFile("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") ||
      !writeFile("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1")) {
    return "cannot map this user into a new user namespace";
  }
  return "";
}

// Names in /dev/shm that hal made for this process.
int ourObjects() {
  const std::string prefix = "nnremote-" + std::to_string(::getpid()) + "-";
  int count = 0;
  if (DIR* dir = ::opendir("/dev/shm")) {
    while (const dirent* entry = ::readdir(dir)) count += std::string(entry->d_name).rfind(prefix, 0) == 0;
    ::closedir(dir);
  }
  return count;
}

// Runs in the child: a 256 KiB /dev/shm of its own, then pools that fit and one that does not.
// Its one line: "SKIP why", "FAIL what", or "REFUSED status|message|objects left".
[[noreturn]] void childOnASmallDevShm(int out) {
  if (const std::string why = enterMountNamespace(); !why.empty()) answer(out, "SKIP " + why);
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
      ::mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=256k") != 0) {
    answer(out, std::string("SKIP cannot mount a small tmpfs on /dev/shm: ") + std::strerror(errno));
  }
  auto fits = createSharedMemory(64 << 10);
  if (!fits.ok()) answer(out, "FAIL 64 KiB did not fit in 256 KiB: " + fits.error().message);
  std::memset((*fits)->data(), 1, (*fits)->size());

  // Without its pages taken up front, this would be created, and the memset below would end the
  // process with SIGBUS.
  auto tooBig = createSharedMemory(1 << 20);
  if (tooBig.ok()) {
    std::memset((*tooBig)->data(), 1, (*tooBig)->size());
    answer(out, "FAIL 1 MiB was created in a 256 KiB /dev/shm");
  }
  answer(out, "REFUSED " + std::to_string(static_cast<int>(tooBig.error().code)) + "|" + tooBig.error().message + "|" +
                  std::to_string(ourObjects()));
}

TEST(SharedMemoryRoomTest, AFullDevShmIsAnErrorAtCreationNotASigbusLater) {
  int pipeFds[2];
  ASSERT_EQ(::pipe(pipeFds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipeFds[0]);
    childOnASmallDevShm(pipeFds[1]);
  }
  ::close(pipeFds[1]);
  std::string line;
  pollfd readable{pipeFds[0], POLLIN, 0};
  char buffer[512];
  // Bounded: the child only mounts and creates; 60 s is for a machine under a full build.
  while (::poll(&readable, 1, 60'000) == 1) {
    const ssize_t got = ::read(pipeFds[0], buffer, sizeof(buffer));
    if (got <= 0) break;
    line.append(buffer, static_cast<size_t>(got));
  }
  ::close(pipeFds[0]);
  ::kill(child, SIGKILL);  // harmless if it has ended; ends it if the poll timed out
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  if (line.rfind("SKIP ", 0) == 0) GTEST_SKIP() << line.substr(5);
  ASSERT_FALSE(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS) << "the child died of SIGBUS";
  ASSERT_THAT(line, StartsWith("REFUSED "));

  const std::string fields = line.substr(8);
  const size_t bar = fields.find('|'), lastBar = fields.rfind('|');
  EXPECT_EQ(fields.substr(0, bar), std::to_string(static_cast<int>(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)));
  const std::string message = fields.substr(bar + 1, lastBar - bar - 1);
  EXPECT_THAT(message, HasSubstr("cannot reserve 1048576 bytes of shared memory"));
  EXPECT_THAT(message, HasSubstr(std::strerror(ENOSPC)));
  EXPECT_THAT(message, HasSubstr("of 262144 bytes free")) << "it says how small /dev/shm is";
  EXPECT_EQ(fields.substr(lastBar + 1), "1") << "the refused object is unlinked; the one that fit stays";
}

}  // namespace
}  // namespace nnremote::hal
