// The forms of an npu_emulator's address (wire/address.h), which both ends check before gRPC
// reads them loosely (port 99999 as 34463, a missing port as 443).
#include "wire/address.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace nnremote::wire {
namespace {

using ::testing::HasSubstr;

TEST(AddressTest, TakesEachFormApart) {
  auto path = parseAddress("unix:/tmp/nnremote.sock", AddressUse::kConnect);
  ASSERT_TRUE(path.ok()) << path.error().message;
  EXPECT_EQ(path->kind, Address::Kind::kUnixPath);
  EXPECT_EQ(path->name, "/tmp/nnremote.sock");
  EXPECT_TRUE(path->isUnix());

  auto abstract = parseAddress("unix-abstract:nnremote-lab", AddressUse::kListen);
  ASSERT_TRUE(abstract.ok()) << abstract.error().message;
  EXPECT_EQ(abstract->kind, Address::Kind::kUnixAbstract);
  EXPECT_EQ(abstract->name, "nnremote-lab");

  const std::pair<std::string, std::pair<std::string, uint16_t>> tcp[] = {
      {"127.0.0.1:50051", {"127.0.0.1", 50051}}, {"npu-7.lab.example:1", {"npu-7.lab.example", 1}},
      {"[::1]:65535", {"[::1]", 65535}},         {"[fe80::1%eth0]:50051", {"[fe80::1%eth0]", 50051}},
      {"unixbox:50051", {"unixbox", 50051}},  // a host whose name starts with "unix" is TCP
  };
  for (const auto& [text, expected] : tcp) {
    auto address = parseAddress(text, AddressUse::kConnect);
    ASSERT_TRUE(address.ok()) << address.error().message;
    EXPECT_EQ(address->kind, Address::Kind::kTcp) << text;
    EXPECT_FALSE(address->isUnix()) << text;
    EXPECT_EQ(address->name, expected.first) << text;
    EXPECT_EQ(address->port, expected.second) << text;
  }
}

TEST(AddressTest, PortZeroIsOnlyForListening) {
  auto listen = parseAddress("0.0.0.0:0", AddressUse::kListen);
  ASSERT_TRUE(listen.ok()) << listen.error().message;
  EXPECT_EQ(listen->port, 0);
  auto connect = parseAddress("127.0.0.1:0", AddressUse::kConnect);
  ASSERT_FALSE(connect.ok());
  EXPECT_EQ(connect.error().message, "'127.0.0.1:0' has no usable port: '0' is not a number from 1 to 65535");
}

TEST(AddressTest, WhatIsWrongIsNamed) {
  const std::pair<std::string, std::string> cases[] = {
      {"localhost:99999", "'localhost:99999' has no usable port: '99999' is not a number from 0 to 65535"},
      {"localhost:4294967297", "'4294967297' is not a number from 0 to 65535"},  // would wrap to 1
      {"localhost:", "'localhost:' has no usable port: '' is not"},
      {"localhost:+80", "'+80' is not a number"},
      {"localhost", "'localhost' has no port (HOST:PORT)"},
      {"", "'' has no port"},
      {":50051", "has no usable host: '' is not a host name"},
      {"ho st:50051", "'ho st' is not a host name, an IPv4 address or an IPv6 address in brackets"},
      {"::1:50051", "'::1' is not a host name"},  // IPv6 needs its brackets
      {"[::1%]:50051", "'[::1%]' is not a host name"},
      {"dns:///host:50051", "'dns:///host' is not a host name"},
      {"unix:", "'unix:' names no socket (unix:PATH)"},
      {"unix-abstract:", "names no socket (unix-abstract:NAME)"},
      {"unix:/" + std::string(120, 'x'), "is too long for a unix socket: its path has 121 characters, at most 107 fit"},
      {"unix-abstract:" + std::string(108, 'x'), "its name has 108 characters, at most 107 fit"},
  };
  for (const auto& [text, expected] : cases) {
    auto address = parseAddress(text, AddressUse::kListen);
    ASSERT_FALSE(address.ok()) << text;
    EXPECT_EQ(address.error().code, hal::ErrorStatus::INVALID_ARGUMENT) << text;
    EXPECT_THAT(address.error().message, HasSubstr(expected));
    EXPECT_EQ(whyNotAnAddress(text, AddressUse::kListen), address.error().message.substr(text.size() + 3))
        << "the same problem, without the quoted text";
  }
  EXPECT_EQ(whyNotAnAddress("unix:/tmp/a.sock", AddressUse::kConnect), "");
}

}  // namespace
}  // namespace nnremote::wire
