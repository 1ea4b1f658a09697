// Shared memory shrunk under its mapping (hal/truncation_guard.h): with the guard armed, an access
// past the object's new end completes on zero pages and marks the memory truncated; a SIGBUS that
// is not such an access still reaches the handler that was there before.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "hal/memory.h"
#include "hal/truncation_guard.h"

namespace nnremote::hal {
namespace {

using ::testing::HasSubstr;

const size_t kPage = static_cast<size_t>(::sysconf(_SC_PAGESIZE));

// What a client can do to shared memory it registered: shrink the object behind its name.
void shrink(const SharedMemory& memory, size_t size) {
  const int fd = ::shm_open(memory->sharedName().c_str(), O_RDWR, 0);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);
  ::close(fd);
}

uint8_t readByte(const SharedMemory& memory, size_t offset) {
  return *static_cast<volatile uint8_t*>(memory->data() + offset);
}

TEST(TruncationGuardTest, AnAccessPastTheShrunkEndReadsZerosAndMarksTheMemory) {
  armTruncationGuard();
  auto memory = createSharedMemory(3 * kPage);
  ASSERT_TRUE(memory.ok()) << memory.error().message;
  std::memset((*memory)->data(), 0x5a, 3 * kPage);
  EXPECT_FALSE((*memory)->truncated());
  EXPECT_TRUE(checkNotTruncated(*memory, "pool").ok());

  shrink(*memory, kPage);
  EXPECT_EQ(readByte(*memory, 0), 0x5a) << "the page before the new end is still the object's";
  EXPECT_FALSE((*memory)->truncated()) << "nothing has touched a missing page yet";

  EXPECT_EQ(readByte(*memory, 2 * kPage), 0);
  EXPECT_TRUE((*memory)->truncated());
  // The whole mapping was replaced: nothing in it reaches the object any more.
  EXPECT_EQ(readByte(*memory, 0), 0);
  (*memory)->data()[2 * kPage] = 7;  // writes land in the private pages
  EXPECT_EQ(readByte(*memory, 2 * kPage), 7);

  const Status refused = checkNotTruncated(*memory, "request pool 2");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error().message,
              HasSubstr("request pool 2: the shared memory " + (*memory)->sharedName() +
                        " lost pages under the server's mapping (its owner shrank it below its " +
                        std::to_string(3 * kPage) + " bytes"));
}

TEST(TruncationGuardTest, AWriteToAMemoryShrunkToNothingCompletesToo) {
  armTruncationGuard();
  auto memory = createSharedMemory(100);
  ASSERT_TRUE(memory.ok());
  shrink(*memory, 0);
  (*memory)->data()[99] = 1;
  EXPECT_TRUE((*memory)->truncated());
}

TEST(TruncationGuardTest, AnEmptyPoolIsGuardedToo) {
  armTruncationGuard();
  auto memory = createSharedMemory(0);  // mapped as one byte
  ASSERT_TRUE(memory.ok());
  shrink(*memory, 0);
  EXPECT_EQ(readByte(*memory, 0), 0);
  EXPECT_TRUE((*memory)->truncated());
}

TEST(TruncationGuardTest, ThePoolsCheckNamesTheFirstTruncatedPool) {
  armTruncationGuard();
  auto heap = createHeapMemory(16), intact = createSharedMemory(16), shrunk = createSharedMemory(16);
  ASSERT_TRUE(heap.ok() && intact.ok() && shrunk.ok());
  shrink(*shrunk, 0);
  (void)readByte(*shrunk, 0);
  const Status refused = checkNotTruncated({*heap, *intact, nullptr, *shrunk}, "request pool");
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("request pool 3: "));
  EXPECT_TRUE(checkNotTruncated({*heap, *intact}, "request pool").ok());
  EXPECT_FALSE((*heap)->truncated());
}

TEST(TruncationGuardTest, MappingsComingAndGoingOnOtherThreadsDoNotConfuseIt) {
  armTruncationGuard();
  std::atomic<bool> done{false};
  std::vector<std::thread> churn;
  for (int t = 0; t < 2; ++t) {
    churn.emplace_back([&] {
      for (int i = 0; i < 5000 && !done.load(); ++i) {
        auto memory = createSharedMemory(kPage * (1 + i % 3));
        ASSERT_TRUE(memory.ok());
        EXPECT_FALSE((*memory)->truncated());
      }
    });
  }
  for (int i = 0; i < 200; ++i) {
    auto memory = createSharedMemory(2 * kPage);
    ASSERT_TRUE(memory.ok());
    shrink(*memory, 0);
    EXPECT_EQ(readByte(*memory, kPage + static_cast<size_t>(i)), 0);
    ASSERT_TRUE((*memory)->truncated()) << "round " << i;
  }
  done = true;
  for (std::thread& thread : churn) thread.join();
}

// The handler a process had before arming the guard, which says so by its exit code.
void exitSeven(int) { std::_Exit(7); }

void installExitSeven() {
  struct sigaction action {};
  action.sa_handler = exitSeven;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, nullptr);
}

// A file of our own mapped without hal: not registered, so not the guard's to mend.
uint8_t* mapShrunkFile() {
  char path[] = "/dev/shm/nnremote-guard-test-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(kPage)) != 0) std::_Exit(3);
  void* data = ::mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::unlink(path);
  if (data == MAP_FAILED || ::ftruncate(fd, 0) != 0) std::_Exit(4);
  return static_cast<uint8_t*>(data);
}

class TruncationGuardDeathTest : public ::testing::Test {
 protected:
  // Each death test runs in a new process, where the guard is armed after its own handler.
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(TruncationGuardDeathTest, AFaultOutsideItsMappingsGoesToTheHandlerBefore) {
  EXPECT_EXIT(
      {
        installExitSeven();
        armTruncationGuard();
        uint8_t* data = mapShrunkFile();
        (void)*static_cast<volatile uint8_t*>(data);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(7), "");
}

TEST_F(TruncationGuardDeathTest, ASentSigbusGoesToTheHandlerBefore) {
  EXPECT_EXIT(
      {
        installExitSeven();
        armTruncationGuard();
        ::raise(SIGBUS);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(7), "");
}

TEST_F(TruncationGuardDeathTest, UnarmedAProcessEndsAsItWouldWithoutIt) {
  // A client of the server (the proxy driver, an app's libneuralnetworks.so) does not arm it:
  // its own shared memory shrunk under it is its own doing, and the app's signal handlers stay
  // as the app set them.
  EXPECT_EXIT(
      {
        installExitSeven();
        auto memory = createSharedMemory(kPage);
        if (!memory.ok()) std::_Exit(3);
        shrink(*memory, 0);
        (void)readByte(*memory, 0);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(7), "");
}

}  // namespace
}  // namespace nnremote::hal
