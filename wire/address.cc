#include "wire/address.h"

#include <sys/un.h>

#include <cstring>

namespace nnremote::wire {
namespace {

constexpr char kUnixPrefix[] = "unix:";
constexpr char kAbstractPrefix[] = "unix-abstract:";
// What sockaddr_un holds after its terminating (path) or leading (abstract name) zero byte.
constexpr size_t kMaxSocketName = sizeof(sockaddr_un::sun_path) - 1;

bool startsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

bool allOf(const std::string& text, const char* allowed) {
  return !text.empty() && text.find_first_not_of(allowed) == std::string::npos;
}

constexpr char kNameCharacters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_";

// A DNS name or IPv4 address, or an IPv6 address in brackets (with a zone after '%').
bool isHost(const std::string& host) {
  if (host.size() < 2 || host.front() != '[' || host.back() != ']') return allOf(host, kNameCharacters);
  const std::string inside = host.substr(1, host.size() - 2);
  const size_t percent = inside.find('%');
  if (!allOf(inside.substr(0, percent), "0123456789abcdefABCDEF:.")) return false;
  return percent == std::string::npos || allOf(inside.substr(percent + 1), kNameCharacters);
}

// Fills `address` from `text`; what is wrong with it, or "".
std::string parse(const std::string& text, AddressUse use, Address* address) {
  if (isUnixAddress(text)) {
    const bool abstract = startsWith(text, kAbstractPrefix);
    address->kind = abstract ? Address::Kind::kUnixAbstract : Address::Kind::kUnixPath;
    address->name = text.substr(std::strlen(abstract ? kAbstractPrefix : kUnixPrefix));
    if (address->name.empty()) return abstract ? "names no socket (unix-abstract:NAME)" : "names no socket (unix:PATH)";
    if (address->name.size() > kMaxSocketName) {
      return "is too long for a unix socket: its " + std::string(abstract ? "name" : "path") + " has " +
             std::to_string(address->name.size()) + " characters, at most " + std::to_string(kMaxSocketName) + " fit";
    }
    return "";
  }
  address->kind = Address::Kind::kTcp;
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) return "has no port (HOST:PORT)";
  address->name = text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  if (!isHost(address->name)) {
    return "has no usable host: '" + address->name +
           "' is not a host name, an IPv4 address or an IPv6 address in brackets";
  }
  const unsigned long lowest = use == AddressUse::kListen ? 0 : 1;
  // At most five digits, so the number fits before it is read (a longer one would wrap).
  const unsigned long value = allOf(port, "0123456789") && port.size() <= 5 ? std::stoul(port) : 65536;
  if (value > 65535 || value < lowest) {
    return "has no usable port: '" + port + "' is not a number from " + std::to_string(lowest) + " to 65535";
  }
  address->port = static_cast<uint16_t>(value);
  return "";
}

}  // namespace

bool isUnixAddress(const std::string& text) {
  return startsWith(text, kUnixPrefix) || startsWith(text, kAbstractPrefix);
}

hal::Result<Address> parseAddress(const std::string& text, AddressUse use) {
  Address address;
  if (const std::string problem = parse(text, use, &address); !problem.empty()) {
    return hal::invalidArgument() << "'" << text << "' " << problem;
  }
  return address;
}

std::string whyNotAnAddress(const std::string& text, AddressUse use) {
  Address address;
  return parse(text, use, &address);
}

}  // namespace nnremote::wire
