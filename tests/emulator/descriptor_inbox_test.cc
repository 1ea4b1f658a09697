// The backend host's inbox of descriptors its parent hands over: a claim waits for its
// descriptor (the RPC and the channel race), names the token it missed, and unclaimed ones are
// bounded.
#include "emulator/descriptor_inbox.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <thread>

namespace nnremote::emulator {
namespace {

using ::testing::HasSubstr;

bool isOpen(int descriptor) { return ::fcntl(descriptor, F_GETFD) != -1; }

TEST(DescriptorInboxTest, AClaimWaitsForItsDescriptor) {
  DescriptorInbox inbox;
  const int descriptor = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(descriptor, 0);
  std::thread late([&] { inbox.put(7, descriptor); });
  auto taken = inbox.take(7, std::chrono::seconds(30));
  late.join();
  ASSERT_TRUE(taken.ok()) << taken.error().message;
  EXPECT_EQ(*taken, descriptor);
  ::close(*taken);
  // Taken once only.
  auto again = inbox.take(7, std::chrono::milliseconds(1));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(again.error().message, HasSubstr("passed_descriptor 7: no descriptor was handed over"));
}

TEST(DescriptorInboxTest, UnclaimedDescriptorsAreBoundedAndClosed) {
  std::vector<int> descriptors;
  {
    DescriptorInbox inbox;
    for (uint64_t token = 1; token <= DescriptorInbox::kMaxUnclaimed + 1; ++token) {
      const int descriptor = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      ASSERT_GE(descriptor, 0);
      inbox.put(token, descriptor);
      descriptors.push_back(descriptor);
    }
    // The oldest went when one too many came; the newest waits for its claim.
    EXPECT_FALSE(inbox.take(1, std::chrono::milliseconds(1)).ok());
    auto newest = inbox.take(DescriptorInbox::kMaxUnclaimed + 1, std::chrono::milliseconds(1));
    ASSERT_TRUE(newest.ok());
    ::close(*newest);
    descriptors.pop_back();
  }
  // The inbox closes what nobody claimed (the numbers may be reused since, so look at one only:
  // the last, which nothing here has opened again).
  EXPECT_FALSE(isOpen(descriptors.back()));
}

}  // namespace
}  // namespace nnremote::emulator
