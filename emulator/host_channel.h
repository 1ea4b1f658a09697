// The private link between npu_emulator and the child process that hosts one backend library
// (docs/backends.md#isolation): a unix SOCK_SEQPACKET socket pair, one message per packet, a
// type byte then the payload. The parent sets the child up and asks it how it is; the child says
// when it serves, why it could not, and, from a crash signal handler, what it was doing. Device
// traffic does not travel here: it is gRPC on the child's own socket.
#ifndef NNREMOTE_EMULATOR_HOST_CHANNEL_H_
#define NNREMOTE_EMULATOR_HOST_CHANNEL_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hal/result.h"

namespace nnremote::emulator {

enum class HostMessageType : uint8_t {
  kSetup = 1,   // parent -> child: a BackendHostSetup (backend_host.proto)
  kReady = 2,   // child -> parent: serving; the payload is the devices, one HostedDevice per line
  kFailed = 3,  // child -> parent: could not start; the payload is the error
  kPing = 4,    // parent -> child: a sequence number
  kPong = 5,    // child -> parent: that number, then what the library is doing (HostHealth)
  kDying = 6,   // child -> parent: from a crash handler, the signal and the call it struck in
  // parent -> child: a shared-memory descriptor (SCM_RIGHTS) and the token RegisterMemory's
  // passed_descriptor names it by. Pools reach the child by descriptor, not by name, so a pool
  // whose name the client has unlinked still reaches a restarted child without a copy.
  kDescriptor = 7,
  // npu_emulator -> its zygote (host_zygote.h): fork a backend host on this channel (SCM_RIGHTS).
  kSpawn = 8,
  kSpawned = 9,  // zygote -> npu_emulator: the host's pid
  // parent -> child: a restarted child has served for restart_probation_ms; it becomes a session
  // (and scheduler autogroup) of its own, at full CPU weight.
  kEndProbation = 10,
  // parent -> child, before it kills the child for a call over a limit: write the stack of the
  // thread in that call (crash_report.h). The payload: "age" (the longest-running call) or "cpu"
  // (the one that used the most CPU time), a newline, and why the child is killed.
  kReportCall = 11,
  kReported = 12,  // child -> parent: written (or that call had returned)
};

// The signal a backend host writes a report on: sent by the host itself to the thread of a call
// over a limit (kReportCall), or by the parent to a child that stopped answering its health
// checks (sigqueue, whose value is health_check_timeout_ms), which then reports every thread. A
// real-time signal: none of them is the default action of anything, and a library is unlikely to
// use this one (glibc keeps the lowest ones for itself; SIGRTMIN is past them).
int hostReportSignal();

// The fd a backend host finds its host channel on (npu_emulator --backend-host=3), and the zygote
// its own (--backend-zygote=3).
constexpr int kChildChannelFd = 3;

struct HostMessage {
  HostMessageType type{};
  std::string payload;
  int descriptor = -1;  // kDescriptor's or kSpawn's; the receiver owns it
};

// Sends one message; never raises SIGPIPE (a child that died is an error, not a signal).
hal::Status sendHostMessage(int socket, HostMessageType type, const std::string& payload);

// Sends a message carrying `descriptor` (which stays the caller's): kDescriptor, with the token
// as its payload, or kSpawn. Does not wait: a child that does not read its channel gets an
// error, not a blocked sender.
hal::Status sendHostDescriptor(int socket, HostMessageType type, const std::string& payload, int descriptor);

// Receives one message, waiting at most `timeout`: nullopt when none came in time; an error
// when the other side is gone (end of file) or the socket failed.
hal::Result<std::optional<HostMessage>> receiveHostMessage(int socket, std::chrono::milliseconds timeout);

// A device the child serves, as kReady lists it: its name and how many executions it runs at once.
struct HostedDevice {
  std::string name;
  uint32_t engines = 1;
  bool operator==(const HostedDevice& other) const { return name == other.name && engines == other.engines; }
};
std::string encodeHostedDevice(const HostedDevice& device);  // one line
hal::Result<std::vector<HostedDevice>> decodeHostedDevices(const std::string& payload);

// What a Pong says: the longest-running call into the library and the one that has used the
// most CPU time, if any runs.
struct HostHealth {
  uint64_t sequence = 0;
  std::string longestCall;
  std::chrono::milliseconds longestCallAge{0};
  std::string busiestCall;
  std::chrono::milliseconds busiestCallCpu{0};
};
std::string encodeHostHealth(const HostHealth& health);
hal::Result<HostHealth> decodeHostHealth(const std::string& payload);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_HOST_CHANNEL_H_
