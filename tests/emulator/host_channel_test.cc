// What a backend host tells its parent on the host channel, read as the parent must read it: as
// the words of a process whose memory may be corrupt.
#include "emulator/host_channel.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "hal/backend_abi.h"

namespace nnremote::emulator {
namespace {

using ::testing::HasSubstr;

TEST(HostedDevicesTest, AListRoundTrips) {
  const std::string payload = encodeHostedDevice({"npu-a", 1}) + encodeHostedDevice({"npu-b", hal::kMaxEngines});
  auto devices = decodeHostedDevices(payload);
  ASSERT_TRUE(devices.ok()) << devices.error().message;
  ASSERT_EQ(devices->size(), 2u);
  EXPECT_EQ((*devices)[0].name, "npu-a");
  EXPECT_EQ((*devices)[0].engines, 1u);
  EXPECT_EQ((*devices)[1].name, "npu-b");
  EXPECT_EQ((*devices)[1].engines, hal::kMaxEngines);
}

// An engine count reaches the parent's scheduler, which plans a lane for each engine: a count
// past the bound (4294967295 would take gigabytes) or no count at all is a malformed list.
TEST(HostedDevicesTest, AMalformedLineIsRefusedNamingIt) {
  for (const std::string& payload : {std::string("npu-a\t1\nnpu-b\t257\n"), std::string("npu\t4294967295\n"),
                                     std::string("npu\t0\n"), std::string("npu\t\n"), std::string("npu\t2x\n"),
                                     std::string("npu 2\n"), std::string("\t2\n"), std::string("npu\t-1\n")}) {
    auto devices = decodeHostedDevices(payload);
    ASSERT_FALSE(devices.ok()) << payload;
    EXPECT_EQ(devices.error().code, hal::ErrorStatus::GENERAL_FAILURE);
    EXPECT_THAT(devices.error().message, HasSubstr("backend host sent a malformed device list: line "));
  }
  auto second = decodeHostedDevices("npu-a\t1\nnpu-b\t257\n");
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.error().message, HasSubstr("line 2 is not NAME<tab>ENGINES (1 to 256)"));
}

}  // namespace
}  // namespace nnremote::emulator
