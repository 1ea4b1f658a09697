// Where an npu_emulator listens and where its clients reach it: "unix:PATH", "unix-abstract:NAME"
// or "HOST:PORT" (an IPv6 host in brackets, as "[::1]:50051"). gRPC takes these and more, and
// reads some loosely: it listens on port 99999 as port 34463, and connects to a HOST without a
// port on 443. Both ends check an address here first, so such a typo is an error naming it.
#ifndef NNREMOTE_WIRE_ADDRESS_H_
#define NNREMOTE_WIRE_ADDRESS_H_

#include <cstdint>
#include <string>

#include "hal/result.h"

namespace nnremote::wire {

struct Address {
  enum class Kind { kUnixPath, kUnixAbstract, kTcp };
  Kind kind = Kind::kTcp;
  std::string name;   // the socket's path, its abstract name, or the TCP host (brackets kept)
  uint16_t port = 0;  // TCP only

  bool isUnix() const { return kind != Kind::kTcp; }
  // The TCP host as the resolver (getaddrinfo) takes it: an IPv6 address without its brackets.
  std::string resolverHost() const {
    const bool bracketed = name.size() >= 2 && name.front() == '[' && name.back() == ']';
    return bracketed ? name.substr(1, name.size() - 2) : name;
  }
};

// Whether an address is to listen on (TCP port 0 picks a free port) or to connect to.
enum class AddressUse { kListen, kConnect };

// `text` as an Address, or INVALID_ARGUMENT quoting it and saying what is wrong.
hal::Result<Address> parseAddress(const std::string& text, AddressUse use);

// What is wrong with `text` as an address, for a message that already quotes it ("has no port
// (HOST:PORT)"); "" if nothing is.
std::string whyNotAnAddress(const std::string& text, AddressUse use);

// Whether `text` names a unix socket (either form), by its prefix alone.
bool isUnixAddress(const std::string& text);

}  // namespace nnremote::wire

#endif  // NNREMOTE_WIRE_ADDRESS_H_
