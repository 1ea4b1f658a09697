#include "emulator/host_channel.h"

#include <signal.h>

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#include "hal/backend_abi.h"

namespace nnremote::emulator {
namespace {

// Packets hold a setup or a device list at most; anything longer is cut (MSG_TRUNC tells).
constexpr size_t kMaxPacket = 64 * 1024;

}  // namespace

hal::Status sendHostMessage(int socket, HostMessageType type, const std::string& payload) {
  std::string packet(1, static_cast<char>(type));
  packet += payload;
  if (packet.size() > kMaxPacket) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
           << "backend host message of " << packet.size() << " bytes is over " << kMaxPacket;
  }
  for (;;) {
    const ssize_t sent = ::send(socket, packet.data(), packet.size(), MSG_NOSIGNAL);
    if (sent == static_cast<ssize_t>(packet.size())) return {};
    if (sent < 0 && errno == EINTR) continue;
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
           << "backend host channel: send failed: " << (sent < 0 ? std::strerror(errno) : "short write");
  }
}

hal::Status sendHostDescriptor(int socket, HostMessageType type, const std::string& payload, int descriptor) {
  std::string packet(1, static_cast<char>(type));
  packet += payload;
  iovec data{packet.data(), packet.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  cmsghdr* header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(header), &descriptor, sizeof(int));
  for (;;) {
    const ssize_t sent = ::sendmsg(socket, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent == static_cast<ssize_t>(packet.size())) return {};
    if (sent < 0 && errno == EINTR) continue;
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
           << "backend host channel: cannot pass a descriptor: " << (sent < 0 ? std::strerror(errno) : "short write");
  }
}

hal::Result<std::optional<HostMessage>> receiveHostMessage(int socket, std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    pollfd fd{socket, POLLIN, 0};
    const int ready = ::poll(&fd, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "backend host channel: " << std::strerror(errno);
    }
    if (ready == 0) return std::optional<HostMessage>();
    std::vector<char> buffer(kMaxPacket);
    iovec data{buffer.data(), buffer.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr header{};
    header.msg_iov = &data;
    header.msg_iovlen = 1;
    header.msg_control = control;
    header.msg_controllen = sizeof control;
    // Descriptors arrive close-on-exec: the library's own children get none.
    const ssize_t got = ::recvmsg(socket, &header, MSG_CMSG_CLOEXEC);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got < 0) {
      return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "backend host channel: " << std::strerror(errno);
    }
    HostMessage message;
    for (cmsghdr* part = CMSG_FIRSTHDR(&header); part != nullptr; part = CMSG_NXTHDR(&header, part)) {
      if (part->cmsg_level == SOL_SOCKET && part->cmsg_type == SCM_RIGHTS && part->cmsg_len == CMSG_LEN(sizeof(int))) {
        std::memcpy(&message.descriptor, CMSG_DATA(part), sizeof(int));
      }
    }
    if (got == 0) return hal::makeError(hal::ErrorStatus::DEAD_OBJECT) << "backend host channel closed";
    message.type = static_cast<HostMessageType>(buffer[0]);
    message.payload.assign(buffer.data() + 1, static_cast<size_t>(got) - 1);
    const bool carries = message.type == HostMessageType::kDescriptor || message.type == HostMessageType::kSpawn;
    if (!carries && message.descriptor >= 0) {
      ::close(message.descriptor);  // only kDescriptor and kSpawn carry one
      message.descriptor = -1;
    }
    return std::optional<HostMessage>(std::move(message));
  }
}

std::string encodeHostedDevice(const HostedDevice& device) {
  return device.name + "\t" + std::to_string(device.engines) + "\n";
}

hal::Result<std::vector<HostedDevice>> decodeHostedDevices(const std::string& payload) {
  std::vector<HostedDevice> devices;
  std::istringstream in(payload);
  // The child's loader checked what its library said; this checks what arrived, which a child
  // whose memory is corrupt could have written.
  size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const size_t tab = line.find('\t');
    const char* count = tab == std::string::npos ? nullptr : line.c_str() + tab + 1;
    char* end = nullptr;
    const unsigned long engines = count == nullptr ? 0 : std::strtoul(count, &end, 10);
    if (tab == 0 || count == nullptr || end == count || *end != '\0' || engines == 0 || engines > hal::kMaxEngines) {
      return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
             << "backend host sent a malformed device list: line " << number << " is not NAME<tab>ENGINES (1 to "
             << hal::kMaxEngines << ")";
    }
    devices.push_back({line.substr(0, tab), static_cast<uint32_t>(engines)});
  }
  return devices;
}

std::string encodeHostHealth(const HostHealth& health) {
  std::ostringstream out;
  out << health.sequence << "\n"
      << health.longestCallAge.count() << "\n"
      << health.longestCall << "\n"
      << health.busiestCallCpu.count() << "\n"
      << health.busiestCall;
  return out.str();
}

hal::Result<HostHealth> decodeHostHealth(const std::string& payload) {
  std::istringstream in(payload);
  HostHealth health;
  int64_t age = 0, cpu = 0;
  in >> health.sequence >> age;
  in.ignore(1);
  std::getline(in, health.longestCall);
  in >> cpu;
  in.ignore(1);
  std::getline(in, health.busiestCall);
  if (in.bad() || age < 0 || cpu < 0) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "backend host sent a malformed health report";
  }
  health.longestCallAge = std::chrono::milliseconds(age);
  health.busiestCallCpu = std::chrono::milliseconds(cpu);
  return health;
}

int hostReportSignal() { return SIGRTMIN + 4; }

}  // namespace nnremote::emulator
