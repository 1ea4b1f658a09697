// The backend hosts' socket directories: private, removed with their owner, and, when the owner
// could not (SIGKILL), by the next one; never one whose owner lives or that is being made.
#include "emulator/private_socket_directory.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace nnremote::emulator {
namespace {

TEST(PrivateSocketDirectoryTest, OnlyItsUserMayEnterAndItGoesWithItsOwner) {
  std::string path;
  {
    auto directory = PrivateSocketDirectory::create();
    ASSERT_TRUE(directory.ok()) << directory.error().message;
    path = (*directory)->path();
    struct stat info;
    ASSERT_EQ(::stat(path.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0700u);
    EXPECT_EQ(info.st_uid, ::geteuid());
    EXPECT_EQ(std::filesystem::path((*directory)->socketPath()).parent_path(), path);
    EXPECT_LT((*directory)->socketPath().size(), 108u);  // sockaddr_un's sun_path
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(PrivateSocketDirectoryTest, OneWhoseOwnerEndedWithoutCleaningUpIsRemoved) {
  int pipe[2];
  ASSERT_EQ(::pipe(pipe), 0);
  const pid_t owner = ::fork();
  if (owner == 0) {  // makes one, then ends as SIGKILL would end it: no destructor runs
    auto directory = PrivateSocketDirectory::create();
    if (!directory.ok()) ::_exit(1);
    const std::string path = (*directory)->path() + "\n";
    const bool told = ::write(pipe[1], path.data(), path.size()) == static_cast<ssize_t>(path.size());
    ::_exit(told ? 0 : 1);
  }
  ::close(pipe[1]);
  char buffer[256] = {};
  const ssize_t got = ::read(pipe[0], buffer, sizeof buffer - 1);
  ::close(pipe[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(owner, &status, 0), owner);
  ASSERT_GT(got, 1) << "the owner made no directory";
  const std::string path(buffer, got - 1);
  // Not asserted to be there now: a server another test starts meanwhile may remove it first.
  PrivateSocketDirectory::removeAbandoned();
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(PrivateSocketDirectoryTest, OneWhoseOwnerLivesStays) {
  auto directory = PrivateSocketDirectory::create();
  ASSERT_TRUE(directory.ok()) << directory.error().message;
  PrivateSocketDirectory::removeAbandoned();
  EXPECT_TRUE(std::filesystem::exists((*directory)->path()));
}

TEST(PrivateSocketDirectoryTest, OneWithoutItsLockFileYetStays) {
  char pattern[] = "/tmp/nnremote-backend-XXXXXX";  // as create() makes it, before it is locked
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  PrivateSocketDirectory::removeAbandoned();
  EXPECT_TRUE(std::filesystem::exists(pattern));
  ::rmdir(pattern);
}

}  // namespace
}  // namespace nnremote::emulator
